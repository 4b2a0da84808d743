"""Lessons as data: the classes, a lesson's run through its View, and the helpers the checks share.

The package's docstring (:mod:`teaching.lessons`) says what a lesson is.

This module never imports streamlit: the app's sidebar and pages read it.
"""

import functools
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from covshift import metrics
from teaching import catalog
from teaching.numbers import format_number
from teaching.view import View

#: Regression hyper-parameters every lesson sets (the app's defaults).
HYPER = dict(theta=0.9, gamma=1.5, rho_x=0.3, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3, tgp_start="linear")


@dataclass(frozen=True)
class Finding:
    """The outcome of one claim's check: does it hold, and the numbers behind it."""

    holds: bool
    numbers: dict


@dataclass(frozen=True)
class Claim:
    """One sentence shown beside ``figure`` and the check that evaluates it.

    ``check(run)`` receives a :class:`LessonRun` and returns a :class:`Finding`.
    """

    figure: str
    text: str
    check: Callable


@dataclass(frozen=True)
class Reveal:
    """What a lesson's banner invites, as data: its punchline.

    ``changes``: the one or two settings the stage's "Show me" button sets, with their values (each a
    setting the lesson invites, so the lesson stays); ``sees``: one line, "what you now see" in the
    figure; ``claims``: the claims that hold on the changed view (checked over seeds 0-2 like every
    claim, by tests/teaching/test_lessons.py)."""

    changes: dict
    sees: str
    claims: tuple = ()


@dataclass(frozen=True)
class Question:
    """A prediction the class is asked before the reveal (issue "Ask the class"): ``text`` and 2-4
    ``options`` in students' words. The right option is never hard-coded: ``answer(run)`` reads it off
    the measurement on the revealed view (``run`` is the :class:`LessonRun` of the revealed view) and
    returns ``(index of the right option, numbers measured)``."""

    text: str
    options: tuple
    answer: Callable


@dataclass(frozen=True)
class Answer:
    """The right option of a lesson's question on one revealed view, and what was measured to decide it."""

    index: int
    option: str
    numbers: dict


@dataclass(frozen=True)
class Lesson:
    """A self-contained lesson: page, every setting, claims. ``banner``: one line under the page's title (what to
    look at, the control to move); ``invites``: settings the student may change and stay in the lesson (its claims
    re-checked on the changed view); ``compares``: name prefixes of the settings its page reads, which alone decide
    whether a view is the lesson (empty: all; Home draws the sinc data whatever the other pages' settings).
    ``eye``: what the eye sees in the main figure that proves the claim (without reading the claim box);
    ``reveal``: the banner's invitation as data (:class:`Reveal`); ``question``: the prediction asked before
    the reveal (:class:`Question`)."""

    key: str
    title: str
    page: str
    summary: str
    settings: dict
    claims: tuple = field(default_factory=tuple)
    main_figure: str = ""
    banner: str = ""
    invites: tuple = ()
    compares: tuple = ()
    eye: str = ""
    reveal: Reveal = None
    question: Question = None

    @property
    def main_view(self):
        """The figure key of the lesson's main view (for screenshots): ``main_figure`` or the first claim's."""
        return self.main_figure or self.claims[0].figure

    def claims_for(self, figure):
        """The sentences shown beside ``figure`` (a key such as "weights.gap")."""
        return [claim.text for claim in self.claims if claim.figure == figure]


class LessonRun:
    """A lesson's settings (optionally with another seed, and ``changes``: values of the settings it
    invites, as the view has them) and its :class:`teaching.view.View`, built by the same
    :meth:`View.from_settings <teaching.view.View.from_settings>` as a page's: a claim's check computes
    through the View, so it reads the very cache entries the page filled."""

    def __init__(self, lesson, seed=None, changes=None):
        self.lesson = lesson
        self.settings = {**lesson.settings, **(changes or {})}
        if seed is not None:
            self.settings["seed"] = int(seed)

    def setting(self, name):
        if name not in self.settings:
            raise KeyError(f"Lesson {self.lesson.key!r} does not set {name!r}; every lesson sets all it uses.")
        return self.settings[name]

    @functools.cached_property
    def view(self):
        return View.from_settings(self.settings)


def errors(view, name):
    """Each test point's Euclidean error of model ``name``'s prediction on ``view``."""
    return metrics.euclidean_errors(view.data().Y_te, view.prediction(name).model["mean"])


def mae(view, name):
    """Model ``name``'s test MAE on ``view``."""
    return metrics.mae(view.data().Y_te, view.prediction(name).model["mean"])




def describe(numbers):
    """A Finding's numbers as one line of text, numbers to at most 4 significant digits: "name: value; name:
    value", nested dicts as "name: a value, b value" and (iteration, atoms) pairs as "iteration i with j active
    atoms" ("never")."""
    def value(v):
        if isinstance(v, dict):
            return ", ".join(f"{k} {value(x)}" for k, x in v.items())
        if isinstance(v, tuple):
            return "never" if v[0] is None else f"iteration {v[0]} with {v[1]} active atoms"
        if isinstance(v, list):
            return ", ".join(value(x) for x in v)
        if isinstance(v, bool):
            return "yes" if v else "no"
        return format_number(v, ".4g") if isinstance(v, (float, np.floating)) else str(v)
    return "; ".join(f"{k}: {value(v)}" for k, v in numbers.items())


def data_settings(name, seed=0, **params):
    """Every setting of a built-in data set: its name, seed and all its parameters."""
    spec = catalog.DATASETS[name][1]
    unknown = set(params) - set(spec)
    if unknown:
        raise ValueError(f"Data set {name!r} has no parameter(s) {sorted(unknown)}.")
    return {"source": "built-in", "dataset": name, "seed": seed,
            **{f"{name}.{p}": params.get(p, default[0]) for p, default in spec.items()}}


def rounded(value, digits=4):
    """``value`` rounded to ``digits`` decimals, as a float (a Finding's number)."""
    return float(np.round(value, digits))



def significant(value, digits=2):
    """``value`` to ``digits`` significant digits, as a float."""
    return float(f"{value:.{digits}g}")


#: The flexible width of the lessons' models (Why weights' slider, IW-SMTGP's rho_x): one that fits the sinc curve.
FLEXIBLE_WIDTH = 0.3
