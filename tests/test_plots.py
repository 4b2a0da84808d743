"""Figures are pure functions: data in, plotly Figure out, with the traces the pages rely on."""

import numpy as np
import plotly.graph_objects as go

from covshift import plots
from covshift.data import circle_outputs, sinc_shift
from covshift.weights import FCFWCS, PFWCS


def test_method_colours_are_consistent_and_distinct_within_a_family():
    weights = ["KLIEP", "FWCS", "AFWCS", "PFWCS", "FCFWCS"]
    assert len({plots.color(n) for n in weights}) == len(weights)
    assert plots.color("unknown") == "#777777"


def test_weight_figures():
    data = sinc_shift(n_tr=200, n_te=150)
    est = PFWCS(sigma=0.3, tol=1e-4).fit(data.X_tr, data.X_te)
    grid = np.linspace(-1, 2, 50)
    fig = plots.weights_vs_truth(grid, {"PFWCS": est.predict_weights(grid[:, None])},
                                 data.density_ratio(grid[:, None]))
    assert isinstance(fig, go.Figure) and [t.name for t in fig.data] == ["true ratio", "PFWCS"]
    assert fig.data[1].line.color == plots.color("PFWCS")
    gap = plots.duality_gaps({"PFWCS": est.history_})
    assert gap.layout.yaxis.type == "log"
    kinds = {t.name for t in gap.data}
    assert "PFWCS" in kinds and any("drop" in k or "swap" in k for k in kinds)
    stems = plots.alpha_stems({"PFWCS": (est.center_index_, est.alpha_)})
    assert f"{np.count_nonzero(est.alpha_)} non-zero" in stems.layout.annotations[0].text
    assert len(plots.active_set_sizes({"PFWCS": est.history_}).data) == 1
    fc = FCFWCS(sigma=0.3).fit(data.X_tr, data.X_te)
    assert plots.inner_iterations({"FCFWCS": fc.history_}).data[0].type == "bar"


def test_data_and_regression_figures():
    data = circle_outputs(n_tr=50, n_te=40)
    assert len(plots.input_densities(data.X_tr, data.X_te, np.ones(50)).data) == 3
    assert len(plots.data_scatter(data.X_tr, data.Y_tr, data.X_te, data.Y_te).data) == 2
    fits = {"GPR": {"mean": data.Y_te, "std": np.full_like(data.Y_te, 0.1), "certainty": None},
            "SMTGP": {"mean": data.Y_te, "std": None, "certainty": np.linspace(0.1, 1, 40)}}
    fig = plots.regression_fits(data.X_te[:, 0], data.Y_te, fits)
    assert any(t.fill == "toself" for t in fig.data)
    assert len(plots.predicted_vs_true(data.Y_te, {"GPR": data.Y_te}).data) == 4
    assert len(plots.error_vs_certainty(np.ones(40), np.ones(40), "SMTGP").data) == 1


def test_first_component_projects_multidimensional_inputs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3)) * [5, 1, 0.1]
    a, b, label = plots.first_component(X[:20], X[20:])
    assert a.shape == (20,) and b.shape == (10,) and "principal" in label
    assert abs(np.corrcoef(np.r_[a, b], X[:, 0])[0, 1]) > 0.99


def test_digits_grid_and_scaling():
    X = np.random.default_rng(0).uniform(size=(3, 48))
    Y = np.random.default_rng(1).uniform(size=(3, 16))
    fig = plots.digits_grid(X, Y, {"GPR": Y}, n_images=3)
    assert len(fig.data) == 6
    assert plots.scaling({"PFWCS": ([100, 200], [0.1, 0.3])}).layout.xaxis.type == "log"
