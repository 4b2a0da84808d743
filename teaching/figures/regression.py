"""Figures of the Structured regression page: predictions, certainty, digits, timings."""

import numpy as np
from plotly.subplots import make_subplots

from teaching.figures.base import (BASE_FONT, TRAIN, color, finish, line_style, marker_style, new_figure,
                                   style)


def regression_fits(x, y_true, fits, output=0, labelled=None, heading="Predictions on the test inputs",
                    x_title="x", y_title=None, points=False, train=None):
    """Predictions on the test inputs: GPR with a 2-std band, TGPs coloured by certainty phi
    (colour scale stretched over the observed range of phi). ``labelled`` = (x, y) of the
    revealed target labels, drawn as large black rings. ``points``: x is one of several inputs,
    so every prediction is drawn as a marker (a line or band along x would join points that
    differ in the other inputs). ``train`` = (x, y) of the training points (of this output), drawn
    as small blue markers, so that the shift between the training and the test inputs can be seen."""
    order = np.argsort(x)
    fig = new_figure(heading, x_title, y_title or f"y{output}")
    if train is not None:
        fig.add_scatter(x=train[0], y=train[1], mode="markers", name="training data",
                        marker=dict(color=TRAIN, size=5, opacity=0.6))
    truth = dict(color="#888888", size=7, symbol="circle-open") if points else dict(color="#BBBBBB", size=6)
    fig.add_scatter(x=x, y=y_true[:, output], mode="markers", name="test truth", marker=truth)
    phis = [f["certainty"] for f in fits.values() if f.get("certainty") is not None]
    lo = min(float(np.min(p)) for p in phis) if phis else 0.0
    hi = max(float(np.max(p)) for p in phis) if phis else 1.0
    for name, fit in fits.items():
        mean = fit["mean"][:, output]
        if fit.get("std") is not None and not points:
            std = fit["std"][:, output]
            band = np.concatenate([(mean + 2 * std)[order], (mean - 2 * std)[order][::-1]])
            fig.add_scatter(x=np.concatenate([x[order], x[order][::-1]]), y=band, fill="toself",
                            line=dict(width=0), fillcolor="rgba(120,120,120,0.2)", name=f"{name} +-2 std",
                            hoverinfo="skip", showlegend=False, legendgroup=name)  # the caption explains the band
        if fit.get("certainty") is not None:
            fig.add_scatter(x=x, y=mean, mode="markers", name=f"{name} (colour: phi)", legendgroup=name,
                            marker=dict(color=fit["certainty"], colorscale="Viridis", cmin=lo, cmax=hi if hi > lo else lo + 1e-9,
                                        size=9, symbol=style(name)["symbol"], line=dict(width=1, color=color(name)),
                                        colorbar=dict(title="phi", len=0.7, x=1.02)))
        elif points:
            fig.add_scatter(x=x, y=mean, name=name, mode="markers",
                            marker=marker_style(name, 8, opacity=0.8, line=dict(width=1, color="#000000")))
        else:
            fig.add_scatter(x=x[order], y=mean[order], name=name, mode="lines", line=line_style(name, 4),
                            legendgroup=name)
    if labelled is not None:
        fig.add_scatter(x=labelled[0], y=labelled[1][:, output], mode="markers", name="labelled target points",
                        marker=dict(color="#000000", size=14, symbol="circle-open", line=dict(width=3)))
    if train is not None:  # the y range of the test outputs and predictions: far-off training outputs are cut
        shown = np.concatenate([y_true[:, output], *(f["mean"][:, output] for f in fits.values())])
        shown = shown[np.isfinite(shown)]
        if shown.size:
            low, high = float(shown.min()), float(shown.max())
            pad = 0.1 * (high - low or 1.0)
            fig.update_yaxes(range=[low - pad, high + pad])
    return finish(fig, legend_rows=1 + len(fits) // 3)


def error_vs_certainty(errors, certainty, name):
    fig = new_figure(f"{name}: error vs certainty", "certainty phi", "Euclidean error")
    fig.add_scatter(x=certainty, y=errors, mode="markers", marker=marker_style(name, 8, opacity=0.6), name=name)
    fig = finish(fig, height=400, legend_rows=0)
    fig.update_layout(showlegend=False)
    return fig


def error_by_certainty_bin(bins, name):
    """Mean error (with its interval) per certainty bin of :func:`covshift.metrics.certainty_error_bins`,
    from the least to the most certain: the relation a scatter crowded near phi = 1 hides."""
    k = len(bins["error"])
    labels = [f"{i + 1}" + (" (least)" if i == 0 else " (most)" if i == k - 1 else "") for i in range(k)]
    fig = new_figure(f"{name}: mean error per certainty bin", f"bin of phi (1/{k} of the points each)",
                     "mean Euclidean error")
    fig.add_scatter(x=labels, y=bins["error"], mode="markers+lines", name=name,
                    marker=marker_style(name, 12), line=line_style(name, width=2),
                    error_y=dict(type="data", symmetric=False, array=bins["high"] - bins["error"],
                                 arrayminus=bins["error"] - bins["low"], thickness=2, width=8),
                    customdata=np.column_stack([bins["certainty"], bins["count"]]),
                    hovertemplate="mean phi %{customdata[0]:.4f}<br>%{customdata[1]} points<br>"
                                  "mean error %{y:.3f}<extra></extra>")
    fig = finish(fig, height=400, legend_rows=0)
    fig.update_layout(showlegend=False)
    return fig


def predicted_vs_true(y_true, predictions, max_outputs=4):
    """Per output: predicted against true values (the diagonal is perfect)."""
    d = min(y_true.shape[1], max_outputs)
    fig = make_subplots(rows=1, cols=d, subplot_titles=[f"output y{k}" for k in range(d)])
    lo, hi = float(np.min(y_true)), float(np.max(y_true))
    for k in range(d):
        fig.add_scatter(x=[lo, hi], y=[lo, hi], mode="lines", line=dict(color="#BBBBBB", dash="dot"),
                        showlegend=False, row=1, col=k + 1)
        for name, pred in predictions.items():
            fig.add_scatter(x=y_true[:, k], y=pred[:, k], mode="markers", name=name, showlegend=k == 0,
                            marker=marker_style(name, 7, opacity=0.6), row=1, col=k + 1)
    fig.update_layout(title_text="Predicted vs true, per output")
    fig = finish(fig, height=420, legend_rows=1 + len(predictions) // 4)
    fig.update_annotations(font_size=BASE_FONT)
    return fig


def digits_grid(X, Y_true, predictions, n_images=6):
    """True vs reconstructed 8x8 digits: outer pixels from the input, centre 4x4 predicted."""
    centre = np.zeros((8, 8), dtype=bool)
    centre[2:6, 2:6] = True
    rows = ["truth"] + list(predictions)
    n = min(n_images, len(X))
    fig = make_subplots(rows=len(rows), cols=n, horizontal_spacing=0.01, vertical_spacing=0.03,
                        row_titles=rows)
    for r, name in enumerate(rows, start=1):
        centre_values = Y_true if name == "truth" else predictions[name]
        for c in range(n):
            image = np.zeros((8, 8))
            image[~centre] = X[c]
            image[centre] = np.clip(centre_values[c], 0, 1)
            fig.add_heatmap(z=image[::-1], colorscale="gray_r", zmin=0, zmax=1, showscale=False,
                            row=r, col=c + 1)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor=None)
    fig.update_layout(title_text="Digits: true and reconstructed centre pixels", showlegend=False)
    finish(fig, height=120 * len(rows) + 60, legend_rows=0)
    fig.update_layout(margin=dict(l=20, r=120, t=50, b=10))
    return fig


def _ticks_125(values):
    """1-2-5 ticks in every decade the positive values span, the ends included."""
    values = np.asarray([v for v in values if np.isfinite(v) and v > 0], dtype=float)
    if not values.size:
        return []
    low, high = int(np.floor(np.log10(values.min()))), int(np.ceil(np.log10(values.max())))
    ticks = [m * 10.0 ** k for k in range(low, high + 1) for m in (1, 2, 5)]
    inside = [t for t in ticks if values.min() / 2.5 <= t <= values.max() * 2.5]
    return inside or ticks


def scaling(results, slopes=None):
    """Run time vs n on log axes (paper Fig. 2g).

    Parameters
    ----------
    results : dict
        {name: (sizes, runs)}: ``runs`` holds per size a number or a sequence of timed runs; the
        median is drawn, the range of the runs as an error bar.
    slopes : dict, optional
        {name: log-log slope}, shown in the legend.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = new_figure("Run time vs sample size (paper Fig. 2g)", "n_tr = n_te", "CPU seconds (median)",
                     xaxis_type="log", yaxis_type="log")
    every_size, every_time = set(), []
    for name, (sizes, runs) in results.items():
        runs = [np.atleast_1d(np.asarray(r, dtype=float)) for r in runs]
        median = np.array([np.median(r) for r in runs])
        low, high = [np.array([f(r) for r in runs]) for f in (np.min, np.max)]
        slope = (slopes or {}).get(name)
        label = name if slope is None or not np.isfinite(slope) else f"{name} (slope {slope:.2f})"
        fig.add_scatter(x=list(sizes), y=median, mode="lines+markers", name=label, line=line_style(name),
                        marker=marker_style(name, 9),
                        error_y=dict(type="data", symmetric=False, array=high - median, arrayminus=median - low,
                                     color=color(name), thickness=2, width=6))
        every_size.update(sizes)
        every_time.extend([*low, *high])
    finish(fig, legend_rows=1)
    sizes = sorted(every_size)
    fig.update_xaxes(tickmode="array", tickvals=sizes, ticktext=[f"{n:g}" for n in sizes])
    ticks = _ticks_125(every_time)
    fig.update_yaxes(tickmode="array", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
    return fig
