"""The classification figures (teaching.figures) and the page helpers (teaching.catalog) on the toy."""

import numpy as np
import plotly.graph_objects as go

from teaching import figures, fits


def test_map_draws_every_boundary_the_selector_and_weighted_points():
    data = fits.classification.classification_toy(n=200, seed=1)
    outcomes = fits.classification.fit_shift_classifiers(data, kernel="linear", weights_name="LogisticRatio")
    xs, ys, scores, p_test = fits.classification.classification_grid(outcomes, data, resolution=30)
    assert p_test.shape == (30, 30) and np.all((p_test >= 0) & (p_test <= 1))
    weights = fits.classification.training_weights(outcomes)
    assert set(weights) == {"two-stage (LogisticRatio)", "integrated"}
    fig = figures.classification_map(data.X_tr, data.Y_tr, data.X_te, data.Y_te, xs, ys, scores, p_test,
                                   weights["integrated"], "integrated",
                                   true_boundary=fits.classification.classification_true_boundary(xs))
    contours = [t for t in fig.data if isinstance(t, go.Contour) and not t.name.endswith("(halo)")]
    assert [t.name for t in contours] == list(scores)
    dashes = {t.name: t.line.dash for t in contours}
    assert len(set(dashes.values())) == 3  # each classifier in its own dash
    assert any(isinstance(t, go.Heatmap) for t in fig.data)
    training = [t for t in fig.data if t.name in ("class 0", "class 1")]  # the training points, one trace per class
    sizes = np.concatenate([np.atleast_1d(t.marker.size) for t in training])
    assert sizes.max() > sizes.min()  # sized by weight
    truth = next(t for t in fig.data if t.name == "true boundary")
    inside = np.asarray(truth.y, dtype=float)
    assert np.nanmin(inside) >= ys[0] and np.nanmax(inside) <= ys[-1]


def test_scores_table_and_fig3_from_stored_results():
    data = fits.classification.classification_toy(n=200, seed=2)
    rows = fits.classification.classification_scores(fits.classification.fit_shift_classifiers(data, kernel="linear"), data)
    assert [r["classifier"] for r in rows] == fits.classification.shift_classifier_names("LogisticRatio")
    assert all(0 <= r["accuracy"] <= 1 and 0 <= r["AUC"] <= 1 and r["log-loss"] > 0 for r in rows)
    results = fits.classification.classification_fig3_results()
    assert results is not None and set(results["tasks"]) == {"breast_cancer", "digits_3_8", "wine"}
    fig = figures.fig3_curves(results)
    assert len(fig.data) == 4 * len(results["tasks"])  # four adaptive methods per panel
