"""Home's figures built in one go (teaching.figures.base.built, issue 40) are the figures they were built trace by trace
and finished; built() lays out log axes, annotations and a grid's second panel as finish() does."""

import json

import numpy as np
import plotly.io as pio
import pytest

from teaching import figures
from teaching.figures.base import (built, cell, error_panel_mean_trace, error_panel_traces, finish, line_style,
                                   marker_style, new_figure, subplot_layout, subplots)
from teaching.figures.data import GAIN_FILL


def _json(fig):
    return json.loads(pio.to_json(fig, validate=False))


def add_error_panel_curve(fig, x, errors, name, mean_line=True, **scatter):
    """The error panel's curve added to ``fig`` trace by trace (as the figures did before built()): (span, mean)."""
    traces, span, mean = error_panel_traces(x, errors, name, mean_line=mean_line, **scatter)
    fig.add_traces(traces, rows=2, cols=1)
    return span, mean


def add_error_panel_mean(fig, span, mean, name):
    """The error panel's mean line added to ``fig`` (as before built())."""
    fig.add_traces([error_panel_mean_trace(span, mean, name)], rows=2, cols=1)


def _shift_overview_trace_by_trace(X_tr, Y_tr, X_te, Y_te, grid, fits, heading="Covariate shift: same p(y|x), different p(x)",
                                   focus=None):
    """Home's figure as it was built before issue 40's stop 42: make_subplots, add_scatter(row=, col=), update_*, finish."""
    fig = subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.56, 0.44], vertical_spacing=0.06)
    g = grid[:, 0]
    fig.add_scatter(x=X_tr[:, 0], y=Y_tr[:, 0], mode="markers", name="training points",
                    marker=dict(color=figures.TRAIN, size=5, opacity=0.45), row=1, col=1)
    fig.add_scatter(x=X_te[:, 0], y=Y_te[:, 0], mode="markers", name="test points",
                    marker=dict(color=figures.TEST, size=7, symbol="triangle-up", opacity=0.7), row=1, col=1)
    labels = list(fits)
    for label in labels[1:] + labels[:1]:
        unweighted = label == labels[0] and len(labels) > 1
        fig.add_scatter(x=g, y=np.ravel(fits[label]), name=label, line=line_style(label, 4),
                        fill="tonexty" if unweighted else None, fillcolor=GAIN_FILL if unweighted else None,
                        legendgroup=label, row=1, col=1)
    means = {}
    for label in labels[1:] + labels[:1]:
        unweighted = label == labels[0] and len(labels) > 1
        means[label] = add_error_panel_curve(fig, X_te[:, 0], np.abs(np.interp(X_te[:, 0], g, np.ravel(fits[label]))
                                                                     - Y_te[:, 0]), label, mean_line=False,
                                             fill="tonexty" if unweighted else None,
                                             fillcolor=GAIN_FILL if unweighted else None)
    for label, (span, mean) in means.items():
        add_error_panel_mean(fig, span, mean, label)
    fig.update_layout(title_text=heading)
    fig.update_yaxes(title_text="y", row=1, col=1)
    fig.update_yaxes(title_text="test error", rangemode="tozero", nticks=3, row=2, col=1)
    fig.update_xaxes(title_text="x", row=2, col=1)
    if focus is not None:
        lo, hi = focus
        inside = [Y_te[(X_te[:, 0] >= lo) & (X_te[:, 0] <= hi), 0], Y_tr[(X_tr[:, 0] >= lo) & (X_tr[:, 0] <= hi), 0]]
        inside += [np.ravel(v)[(g >= lo) & (g <= hi)] for v in fits.values()]
        values = np.concatenate([v for v in inside if v.size])
        pad = 0.08 * (values.max() - values.min() or 1.0)
        fig.update_xaxes(range=[lo, hi])
        fig.update_yaxes(range=[values.min() - pad, values.max() + pad], row=1, col=1)
    return finish(fig, height=440, legend_rows=2)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("labels", [("no weights", "true weights", "estimated weights"), ("no weights",)])
@pytest.mark.parametrize("focused", [True, False])
def test_shift_overview_is_the_figure_built_trace_by_trace(seed, labels, focused):
    rng = np.random.default_rng(seed)
    X_tr, X_te = rng.normal(0, 1, (80, 1)), rng.normal(0.5, 0.4, (60, 1))
    Y_tr, Y_te = np.sinc(X_tr) + 0.1 * rng.normal(size=(80, 1)), np.sinc(X_te) + 0.1 * rng.normal(size=(60, 1))
    grid = np.linspace(-3, 3, 300)[:, None]
    fits = {label: np.sinc(grid[:, 0]) + 0.05 * k for k, label in enumerate(labels)}
    focus = (float(X_te.min()) - 0.05, float(X_te.max()) + 0.05) if focused else None
    built = figures.shift_overview(X_tr, Y_tr, X_te, Y_te, grid, fits, heading="A GP", focus=focus)
    reference = _shift_overview_trace_by_trace(X_tr, Y_tr, X_te, Y_te, grid, fits, heading="A GP", focus=focus)
    assert _json(built) == _json(reference)
    for laid_out in (figures.presentation, figures.phone, lambda fig: figures.fit_height(fig, 440)):
        assert _json(laid_out(built)) == _json(laid_out(reference))


def _error_by_width_trace_by_trace(table, chosen=None):
    """Home's width figure as it was built before issue 40's stop 42."""
    widths = sorted(table)
    fig = new_figure("Test error vs model flexibility", "model width (small = flexible, large = smooth)", "test MAE",
                     xaxis_type="log")
    for label in table[widths[0]]:
        fig.add_scatter(x=widths, y=[table[w][label] for w in widths], mode="lines+markers", name=label,
                        line=line_style(label), marker=figures.marker_style(label, 10))
    if chosen is not None:
        fig.add_vline(x=chosen, line=dict(color="#555555", width=2, dash="dot"))
    fig = finish(fig)
    fig.update_xaxes(dtick=None, tickvals=[0.1, 0.2, 0.5, 1, 2, 5], ticktext=["0.1", "0.2", "0.5", "1", "2", "5"])
    return fig


@pytest.mark.parametrize("chosen", [None, 2.0, 0.35])
def test_error_by_width_is_the_figure_built_trace_by_trace(chosen):
    rng = np.random.default_rng(0)
    table = {w: {label: float(rng.random()) for label in ("no weights", "true weights", "estimated weights")}
             for w in (0.1, 0.3, 1.0, 2.0, 3.0)}
    built_now, reference = figures.error_by_width(table, chosen), _error_by_width_trace_by_trace(table, chosen)
    for laid_out in (lambda fig: fig, figures.presentation, figures.phone):
        assert _json(laid_out(built_now)) == _json(laid_out(reference))


def test_built_lays_out_as_finish_does():
    """Log axes, an annotation without a font size, a grid's second panel, two legend rows."""
    fig = new_figure("errors", "n", "seconds", xaxis_type="log")
    fig.add_scatter(x=[1, 10, 100], y=[0.1, 0.2, 0.4], name="KMM", line=line_style("KMM"))
    fig.add_annotation(x=1, y=2, text="a label", showarrow=False)
    expected = finish(fig, legend_rows=2)
    made = built([dict(type="scatter", x=[1, 10, 100], y=[0.1, 0.2, 0.4], name="KMM", line=line_style("KMM"))],
                 {"title": {"text": "errors"}, "xaxis": {"title": {"text": "n"}, "type": "log"},
                  "yaxis": {"title": {"text": "seconds"}}, "annotations": [dict(x=1, y=2, text="a label", showarrow=False)]},
                 legend_rows=2)
    assert _json(made) == _json(expected)
    reference = subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.06)
    reference.add_scatter(x=[1, 2], y=[3, 4], name="two", row=2, col=1)
    made = built([dict(type="scatter", x=[1, 2], y=[3, 4], name="two", **cell(2))],
                 subplot_layout(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.06))
    assert _json(made) == _json(finish(reference))


def _output_plane_trace_by_trace(Y_tr, Y_te, predictions=None, heading="Outputs: y1 against y0"):
    """The output-plane figure as it was built before issue 40's stop 42: add_scatter, update_yaxes, finish."""
    fig = new_figure(heading, "output 1", "output 2")
    fig.add_scatter(x=Y_tr[:, 0], y=Y_tr[:, 1], mode="markers", name="training",
                    marker=dict(color=figures.TRAIN, size=6, opacity=0.5))
    fig.add_scatter(x=Y_te[:, 0], y=Y_te[:, 1], mode="markers", name="test truth",
                    marker=dict(color=figures.TEST, size=7, opacity=0.6, symbol="triangle-up"))
    for name, pred in (predictions or {}).items():
        fig.add_scatter(x=pred[:, 0], y=pred[:, 1], mode="markers", name=name,
                        marker=figures.marker_style(name, 8, opacity=0.8))
    fig.update_yaxes(scaleanchor="x", scaleratio=1)
    return finish(fig, legend_rows=1 + len(predictions or {}) // 4)


@pytest.mark.parametrize("models", [(), ("SMTGP",), ("GPR", "IW-GPR", "SMTGP", "IW-SMTGP"),
                                    ("GPR", "IW-GPR", "KLTGP", "IW-KLTGP", "SMTGP", "IW-SMTGP", "IKLTGP", "WKNN")])
def test_output_plane_is_the_figure_built_trace_by_trace(models):
    """The IW-SMTGP lesson's output-plane figure (Circle data), with 0 to 8 models (1 to 3 legend rows)."""
    rng = np.random.default_rng(len(models))
    angle_tr, angle_te = rng.uniform(0, 2 * np.pi, 60), rng.uniform(0, 2 * np.pi, 40)
    Y_tr, Y_te = np.column_stack([np.cos(angle_tr), np.sin(angle_tr)]), np.column_stack([np.cos(angle_te), np.sin(angle_te)])
    predictions = {name: Y_te * (0.9 - 0.05 * k) for k, name in enumerate(models)} or None
    heading = "The second output against the first"
    built_now = figures.output_plane(Y_tr, Y_te, predictions, heading=heading)
    reference = _output_plane_trace_by_trace(Y_tr, Y_te, predictions, heading=heading)
    for laid_out in (lambda fig: fig, figures.presentation, figures.phone, lambda fig: figures.fit_height(fig, 440)):
        assert _json(laid_out(built_now)) == _json(laid_out(reference))


# ------------------------------------------------------------------ the Importance weights page's simple figures
def _weights_on_points_trace_by_trace(x, weights, truth=None):
    fig = new_figure("Weights of the training points", "x", "w")
    if truth is not None:
        order = np.argsort(x)
        fig.add_scatter(x=x[order], y=truth[order], name="true ratio",
                        line=dict(color=figures.TRUTH, width=4, dash="dot"))
    for name, w in weights.items():
        fig.add_scatter(x=x, y=w, mode="markers", name=name, marker=marker_style(name, 7, opacity=0.7))
    return finish(fig, legend_rows=1 + len(weights) // 5)


def _weight_histogram_trace_by_trace(weights):
    fig = new_figure("Distribution of the weights (mean 1)", "w", "training points", barmode="overlay")
    for name, w in weights.items():
        fig.add_histogram(x=w, name=name, opacity=0.6, marker_color=figures.color(name), nbinsx=40)
    return finish(fig, legend_rows=1 + len(weights) // 5)


def _cv_curve_trace_by_trace(cv_results):
    fig = new_figure("Choosing sigma by likelihood cross-validation", "sigma (log scale)", "held-out log-likelihood",
                     xaxis_type="log")
    sigma = np.asarray(cv_results["sigma"])
    mean = np.asarray(cv_results["mean_log_likelihood"], dtype=float)
    std = np.asarray(cv_results["std_log_likelihood"], dtype=float)
    finite = np.isfinite(mean)
    fig.add_scatter(x=sigma[finite], y=mean[finite], mode="lines+markers", name="mean over folds",
                    error_y=dict(type="data", array=np.nan_to_num(std[finite])),
                    line=dict(color=figures.TRAIN, width=3))
    fig.add_vline(x=cv_results["best_sigma"], line=dict(color=figures.TEST, dash="dash", width=3),
                  annotation_text="chosen")
    return finish(fig)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_weights_pages_simple_figures_are_the_figures_built_trace_by_trace(seed):
    rng = np.random.default_rng(seed)
    names = ["KMM", "uLSIF", "RuLSIF", "Ensemble KMM (average)", "LogisticRatio", "FCFWCS"][:2 + 2 * seed]
    x, weights = rng.normal(size=60), {name: rng.gamma(2.0, size=60) for name in names}
    for truth in (None, rng.gamma(2.0, size=60)):
        assert _json(figures.weights_on_points(x, weights, truth)) == _json(_weights_on_points_trace_by_trace(
            x, weights, truth))
    assert _json(figures.weight_histogram(weights)) == _json(_weight_histogram_trace_by_trace(weights))
    cv = {"sigma": np.logspace(-2, 1, 9), "mean_log_likelihood": np.r_[rng.normal(size=8), np.nan],
          "std_log_likelihood": rng.random(9), "best_sigma": 0.3 * (seed + 1)}
    built_once, by_trace = _json(figures.cv_curve(cv)), _json(_cv_curve_trace_by_trace(cv))
    # the one difference: plotly.js places an annotation on a log axis by log10 of its x (add_vline gave the value)
    label, old_label = built_once["layout"]["annotations"][0], by_trace["layout"]["annotations"][0]
    assert label["x"] == pytest.approx(np.log10(cv["best_sigma"])) and old_label["x"] == cv["best_sigma"]
    assert built_once["layout"]["shapes"][0]["x0"] == cv["best_sigma"]  # a shape on a log axis: by its value
    old_label["x"] = label["x"]
    assert built_once == by_trace
