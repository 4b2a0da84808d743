"""Each lesson's stage figure, as a recipe: the figure function of :mod:`teaching.figures` and its arguments,
computed through the lesson's :class:`teaching.view.View`.

The students' join page draws the revealed lesson's figure with it (issue 36: after the reveal a student's
phone shows the answer *and* the revealed figure), and ``tests/teaching/test_lesson_figures.py`` measures what
the eye sees on the very figures it gives. The pages draw the same figure functions from the same View
methods, with their own controls around them.
"""

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from teaching import figures, fits
from teaching.lessons.weighting import EQUAL_GAPS


@dataclass(frozen=True)
class Recipe:
    """A figure to draw: ``make(*args, **kwargs)``, with ``title`` naming it (the one-line caption of a chart
    that cannot be drawn). ``ui.chart(title, make, *args, **kwargs)`` draws it for the session's device."""

    title: str
    make: Callable
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)

    def build(self, **layout):
        """The plotly figure (``layout``: e.g. ``phone=True``, ``height=...``, as :func:`teaching.figures`
        functions take them)."""
        return self.make(*self.args, **self.kwargs, **layout)


def _true_ratio(data):
    x = np.concatenate([data.X_tr[:, 0], data.X_te[:, 0]])
    grid = np.linspace(x.min(), x.max(), 400)
    return grid, data.density_ratio(grid[:, None])


def why_weights(run):
    """Home's stage: a GP of the lesson's width fitted with and without weights, and their test errors."""
    view, data = run.view, run.view.data()
    width = float(run.setting("home_width"))
    effect = view.weighting_effect(width, float(run.setting("lambda_x")))
    return Recipe("shift overview", figures.shift_overview,
                  (data.X_tr, data.Y_tr, data.X_te, data.Y_te, view.effect_grid(),
                   {label: pred for label, (_, pred) in effect.items()}),
                  {"heading": f"A GP of width {width:g}, fitted with and without weights",
                   "focus": (float(data.X_te.min()) - 0.05, float(data.X_te.max()) + 0.05)})


def regression(run):
    """Structured regression's stage (Structured output, IW-SMTGP): the models' fits of output y0."""
    data = run.view.data()
    models = {n: run.view.prediction(n).model for n in run.setting("models")}
    return Recipe("regression fits", figures.regression_fits, (data.X_te[:, 0], data.Y_te, models, 0),
                  {"train": (data.X_tr[:, 0], data.Y_tr[:, 0]), "ratio": _true_ratio(data)})


def few_labels(run):
    """The few-labels stage: three GPs on the test points, the labelled ones marked."""
    data, n_labels = run.view.data(), int(run.setting("n_labels"))
    X_eval, Y_eval, preds = run.view.few_labels(n_labels)
    labelled = run.view.labelled_points(n_labels)
    return Recipe("regression fits", figures.regression_fits,
                  (X_eval[:, 0], Y_eval, {n: {"mean": p} for n, p in preds.items()}),
                  {"labelled": (data.X_te[labelled, 0], data.Y_te[labelled]), "ratio": _true_ratio(data),
                   "heading": "A few target labels: three GPs"})


def estimators(run):
    """Estimators disagree: each estimator's w(x) against the true ratio, their errors below."""
    data = run.view.data()
    x = data.X_tr[:, 0]
    grid = np.linspace(min(x.min(), data.X_te.min()), max(x.max(), data.X_te.max()), 300)
    curves, weights = {}, {}
    for name in run.setting("estimators"):
        model = run.view.weights(name).model
        try:
            curves[name] = model.predict_weights(grid[:, None])
        except NotImplementedError:  # an estimator of the training points' weights only: no curve
            continue
        weights[name] = model.weights_
    return Recipe("weights vs truth", figures.weights_vs_truth, (grid, curves, data.density_ratio(grid[:, None])),
                  {"errors": (x, weights, data.true_weights)})


def kliep(run):
    """KLIEP and its Frank-Wolfe solvers: the solvers' relative duality gaps."""
    histories = {n: figures.convergence(run.view.weights(n).model.history_) for n in run.setting("estimators")}
    return Recipe("duality gaps", figures.duality_gaps, (histories, run.setting("gap_axis")), {"levels": EQUAL_GAPS})


def boundary(run):
    """Boundary turns: the three classifiers' decision map, points sized by the chosen weights."""
    data = run.view.classification_toy()
    _, (xs, ys, scores, p_test), weights, _ = run.view.classifiers()
    names = fits.classification.shift_classifier_names(run.view.classification.weights)
    source = names[2] if run.setting("clf.sized_by") == "integrated" else names[1]
    return Recipe("classification map", figures.classification_map,
                  (data.X_tr, data.Y_tr, data.X_te, data.Y_te, xs, ys, scores, p_test, weights.get(source), source),
                  {"true_boundary": fits.classification.classification_true_boundary(xs)})


#: lesson key -> its stage figure.
RECIPES = {"why-weights": why_weights, "kliep-solvers": kliep, "estimators-disagree": estimators,
           "structured-output": regression, "iw-smtgp": regression, "few-labels": few_labels,
           "boundary-turns": boundary}


def stage_figure(run):
    """The :class:`Recipe` of the stage figure of ``run``'s lesson (a :class:`teaching.lessons.LessonRun`)."""
    return RECIPES[run.lesson.key](run)
