"""Figures of the Data & shift page and Home: input densities, scatter plots, the shift overview."""

import numpy as np
from scipy.stats import gaussian_kde

from teaching.figures.base import (TEST, TRAIN, built, cell, error_panel_mean_trace, error_panel_traces, finish,
                                   line_style, marker_style, new_figure, subplot_layout)

#: The area between the unweighted fit's test error and the weighted one's: the error the weights remove.
GAIN_FILL = "rgba(119,119,119,0.30)"


def first_component(X_tr, X_te):
    """1-D view of the inputs: the input itself, or the first principal component of both sets."""
    X = np.vstack([X_tr, X_te])
    if X.shape[1] == 1:
        return X_tr[:, 0], X_te[:, 0], "x"
    centre = X.mean(axis=0)
    _, _, vt = np.linalg.svd(X - centre, full_matrices=False)
    return (X_tr - centre) @ vt[0], (X_te - centre) @ vt[0], "first principal component of x"


def density(values, grid, weights=None):
    if len(values) < 2 or np.ptp(values) == 0:
        return np.zeros_like(grid)
    return gaussian_kde(values, weights=weights)(grid)


def input_densities(X_tr, X_te, weights=None):
    """Training vs test input densities (kernel density estimates), optionally also the
    importance-weighted training density, which should match the test one."""
    a, b, label = first_component(X_tr, X_te)
    lo, hi = min(a.min(), b.min()), max(a.max(), b.max())
    pad = 0.1 * (hi - lo or 1.0)
    grid = np.linspace(lo - pad, hi + pad, 300)
    fig = new_figure("Input densities: training vs test", label, "density")
    fig.add_scatter(x=grid, y=density(a, grid), name="p_tr (training)", line=dict(color=TRAIN, width=3))
    fig.add_scatter(x=grid, y=density(b, grid), name="p_te (test)", line=dict(color=TEST, width=3, dash="dash"))
    if weights is not None and np.sum(weights) > 0:
        fig.add_scatter(x=grid, y=density(a, grid, weights), name="w-weighted training",
                        line=dict(color=TRAIN, width=3, dash="dot"))
    return finish(fig)


def data_scatter(X_tr, Y_tr, X_te, Y_te, output=0):
    """The data: one output against the (first component of the) input."""
    a, b, label = first_component(X_tr, X_te)
    fig = new_figure("The data", label, f"y{output}")
    fig.add_scatter(x=a, y=Y_tr[:, output], mode="markers", name="training",
                    marker=dict(color=TRAIN, size=7, opacity=0.6))
    fig.add_scatter(x=b, y=Y_te[:, output], mode="markers", name="test",
                    marker=dict(color=TEST, size=7, opacity=0.6, symbol="triangle-up"))
    return finish(fig)


def output_plane(Y_tr, Y_te, predictions=None, heading="Outputs: y1 against y0"):
    """Two-output data drawn in the output plane (the Circle data as a circle), with
    each model's predictions for the test points."""
    data = [dict(type="scatter", x=Y_tr[:, 0], y=Y_tr[:, 1], mode="markers", name="training",
                 marker=dict(color=TRAIN, size=6, opacity=0.5)),
            dict(type="scatter", x=Y_te[:, 0], y=Y_te[:, 1], mode="markers", name="test truth",
                 marker=dict(color=TEST, size=7, opacity=0.6, symbol="triangle-up"))]
    data += [dict(type="scatter", x=pred[:, 0], y=pred[:, 1], mode="markers", name=name,
                  marker=marker_style(name, 8, opacity=0.8)) for name, pred in (predictions or {}).items()]
    layout = {"title": {"text": heading}, "xaxis": {"title": {"text": "output 1"}},
              "yaxis": {"title": {"text": "output 2"}, "scaleanchor": "x", "scaleratio": 1}}
    return built(data, layout, legend_rows=1 + len(predictions or {}) // 4)


def shift_overview(X_tr, Y_tr, X_te, Y_te, grid, fits, heading="Covariate shift: same p(y|x), different p(x)",
                   focus=None):
    """Home picture: the fits learned on the training data (top) and each fit's error on the test points along x
    (bottom), where the unweighted fit's failure shows: the area between the unweighted fit's error and the last
    weighted one's is shaded (what the weights remove).

    ``fits`` maps a label ("no weights", "true weights", ...) to predictions on ``grid``; the first is the
    unweighted fit. The errors are the mean absolute errors of the test points in 8 bins of equal count along x
    (:func:`binned_along`, the counts in ``customdata``): a curve's count-weighted mean is the fit's test MAE.
    ``focus`` = (lo, hi) zooms both panels on that x range (the test region), with the y-axis fitted to the
    points and curves inside it, so differences between fits show. The training and test densities are drawn
    on the Data & shift page.
    """
    layout = subplot_layout(rows=2, cols=1, shared_xaxes=True, row_heights=[0.56, 0.44], vertical_spacing=0.06)
    g = grid[:, 0]
    data = [dict(type="scatter", x=X_tr[:, 0], y=Y_tr[:, 0], mode="markers", name="training points",
                 marker=dict(color=TRAIN, size=5, opacity=0.45), **cell(1)),
            dict(type="scatter", x=X_te[:, 0], y=Y_te[:, 0], mode="markers", name="test points",
                 marker=dict(color=TEST, size=7, symbol="triangle-up", opacity=0.7), **cell(1))]
    labels = list(fits)
    order = labels[1:] + labels[:1]  # the unweighted fit last, the area between it and the one before shaded
    gain = {label: dict(fill="tonexty", fillcolor=GAIN_FILL) if label == labels[0] and len(labels) > 1 else {}
            for label in labels}
    for label in order:  # the fit; its error: below
        data.append(dict(type="scatter", x=g, y=np.ravel(fits[label]), name=label, line=line_style(label, 4),
                         legendgroup=label, **cell(1), **gain[label]))
    means = {}
    for label in order:  # the same for the errors: the shaded area is what the weights remove
        errors = np.abs(np.interp(X_te[:, 0], g, np.ravel(fits[label])) - Y_te[:, 0])
        curve, *means[label] = error_panel_traces(X_te[:, 0], errors, label, mean_line=False, **gain[label])
        data += curve
    for label, (span, mean) in means.items():  # after the curves: a fill reaches the curve drawn before it
        data.append(error_panel_mean_trace(span, mean, label))
    layout["title"] = {"text": heading}
    layout["yaxis"]["title"] = {"text": "y"}
    layout["yaxis2"].update(title={"text": "test error"}, rangemode="tozero", nticks=3)
    layout["xaxis2"]["title"] = {"text": "x"}
    if focus is not None:
        lo, hi = focus
        inside = [Y_te[(X_te[:, 0] >= lo) & (X_te[:, 0] <= hi), 0], Y_tr[(X_tr[:, 0] >= lo) & (X_tr[:, 0] <= hi), 0]]
        inside += [np.ravel(v)[(g >= lo) & (g <= hi)] for v in fits.values()]
        values = np.concatenate([v for v in inside if v.size])
        pad = 0.08 * (values.max() - values.min() or 1.0)
        layout["xaxis"]["range"], layout["xaxis2"]["range"] = [lo, hi], [lo, hi]
        layout["yaxis"]["range"] = [values.min() - pad, values.max() + pad]
    return built(data, layout, height=440, legend_rows=2)


def error_by_width(table, chosen=None):
    """Test MAE against the model's input width, with and without weights.

    ``table`` = {width: {label: MAE}} (teaching.steps.weighting_by_width).
    """
    widths = sorted(table)
    data = [dict(type="scatter", x=widths, y=[table[w][label] for w in widths], mode="lines+markers", name=label,
                 line=line_style(label), marker=marker_style(label, 10)) for label in table[widths[0]]]
    layout = {"title": {"text": "Test error vs model flexibility"},
              "xaxis": {"title": {"text": "model width (small = flexible, large = smooth)"}, "type": "log",
                        "tickvals": [0.1, 0.2, 0.5, 1, 2, 5], "ticktext": ["0.1", "0.2", "0.5", "1", "2", "5"]},
              "yaxis": {"title": {"text": "test MAE"}}}
    if chosen is not None:  # plotly's add_vline: a line across the plot's height at x = chosen
        layout["shapes"] = [dict(type="line", x0=chosen, x1=chosen, xref="x", y0=0, y1=1, yref="y domain",
                                 line=dict(color="#555555", width=2, dash="dot"))]
    fig = built(data, layout)
    fig.layout.xaxis.dtick = None  # the ticks are the widths' own labels, not one per decade
    return fig
