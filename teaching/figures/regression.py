"""Figures of the Structured regression page: predictions, certainty, digits, timings."""

import numpy as np

from teaching.figures.base import (BASE_FONT, HEIGHT, TEST, TRAIN, built, cell, color, error_panel_traces, finish,
                                   line_style, marker_style, new_figure, subplot_layout, subplots)


#: Drawing order: each later line is this much thinner (px), each later marker this much smaller, so that a
#: prediction drawn on top of another never hides it (tests/teaching/test_lesson_figures.py).
LINE_WIDTHS, MARKER_SIZES = (7, 5, 3, 1.5), (14, 8, 5, 2)


def _regions(ratio):
    """[(lo, hi, kind)] of the x ranges where the true ratio w(x) = p_te / p_tr is above 1 ("test") and below
    it ("training"), from ``ratio`` = (grid, w on the grid)."""
    grid, w = (np.ravel(np.asarray(a, dtype=float)) for a in ratio)
    above = w > 1
    cuts = np.flatnonzero(np.diff(above.astype(int))) + 1
    edges = np.concatenate([[0], cuts, [len(grid)]])
    regions = []
    for a, b in zip(edges[:-1], edges[1:]):
        lo = grid[a] if a == 0 else (grid[a - 1] + grid[a]) / 2
        hi = grid[b - 1] if b == len(grid) else (grid[b - 1] + grid[b]) / 2
        regions.append((float(lo), float(hi), "test" if above[a] else "training"))
    return regions


#: Shading of the regions of :func:`_regions` (the colours of the training and test points, faint).
REGION_FILLS = {"training": "rgba(0,114,178,0.10)", "test": "rgba(213,94,0,0.13)"}
#: Their names above the plot, in the points' colours darkened to 4.5:1 contrast on white.
REGION_TEXT = {"training": TRAIN, "test": "#B34D00"}


def regression_fits(x, y_true, fits, output=0, labelled=None, heading="Predictions on the test inputs",
                    x_title="x", y_title=None, points=False, train=None, ratio=None):
    """Predictions on the test inputs, and under them each model's test error along x.

    Top: the true test outputs (orange, the app's test colour), GPR-type predictions as lines (GPR with a 2-std
    band), Twin GPs as markers in their own colour and symbol; in drawing order each line is thinner and each
    marker smaller than the one before (:data:`LINE_WIDTHS`, :data:`MARKER_SIZES`), so that predictions on top
    of each other both show. Bottom (1-D inputs): each model's mean Euclidean error over all outputs in 8 bins
    of equal count along x (:func:`binned_along`); the count-weighted mean of a curve is the model's mean
    error, the number the page's table and the lessons' claims report.

    ``labelled`` = (x, y) of the revealed target labels, drawn as large black rings. ``points``: x is one
    of several inputs, so every prediction is drawn as a marker and no error panel (a line or band along x
    would join points that differ in the other inputs). ``train`` = (x, y) of the training points (of this
    output), small blue markers. ``ratio`` = (grid, true w(x) on it): the x ranges where w > 1 (the test
    region) and w < 1 (the training region) are shaded orange and blue."""
    order = np.argsort(x)
    panel = not points
    layout = subplot_layout(rows=2, cols=1, shared_xaxes=True, row_heights=[0.6, 0.4], vertical_spacing=0.06) \
        if panel else subplot_layout(rows=1, cols=1)
    top = cell(1)
    data, shapes, annotations = [], [], []
    if ratio is not None:  # shaded over the x range of the points drawn
        drawn = np.concatenate([np.ravel(x)] + ([np.ravel(train[0])] if train is not None else []))
        left, right = float(drawn.min()), float(drawn.max())
        regions = [(max(lo, left), min(hi, right), kind) for lo, hi, kind in _regions(ratio) if hi > left and lo < right]
        for lo, hi, kind in regions:  # over every panel, behind the traces
            shapes += [dict(type="rect", x0=lo, x1=hi, xref=axes["xaxis"], y0=0, y1=1, yref=f"{axes['yaxis']} domain",
                            fillcolor=REGION_FILLS[kind], line=dict(width=0), layer="below")
                       for axes in map(cell, range(1, 3 if panel else 2))]
        for kind in ("training", "test"):  # each region named once, over its widest stretch
            lo, hi, _ = max((r for r in regions if r[2] == kind), key=lambda r: r[1] - r[0], default=(0, 0, None))
            if hi > lo:
                annotations.append(dict(x=(lo + hi) / 2, y=1, yref="y domain", yanchor="bottom", showarrow=False,
                                        text=f"{kind} region", font=dict(size=BASE_FONT, color=REGION_TEXT[kind])))
    if train is not None:
        data.append(dict(type="scatter", x=train[0], y=train[1], mode="markers", name="training data",
                         marker=dict(color=TRAIN, size=5, opacity=0.6), **top))
    truth = dict(color=TEST, size=7, symbol="circle-open") if points else \
        dict(color=TEST, size=6, symbol="triangle-up", opacity=0.55)
    data.append(dict(type="scatter", x=x, y=y_true[:, output], mode="markers", name="test truth", marker=truth, **top))
    lines = [n for n, f in fits.items() if f.get("certainty") is None and not points]
    markers = [n for n in fits if n not in lines]
    for name, fit in fits.items():
        mean = fit["mean"][:, output]
        if name in lines:
            if fit.get("std") is not None:
                std = fit["std"][:, output]
                band = np.concatenate([(mean + 2 * std)[order], (mean - 2 * std)[order][::-1]])
                data.append(dict(type="scatter", x=np.concatenate([x[order], x[order][::-1]]), y=band, fill="toself",
                                 line=dict(width=0), fillcolor="rgba(120,120,120,0.2)", name=f"{name} +-2 std",
                                 hoverinfo="skip", showlegend=False, legendgroup=name, **top))  # the caption explains it
            width = LINE_WIDTHS[min(lines.index(name), len(LINE_WIDTHS) - 1)]
            data.append(dict(type="scatter", x=x[order], y=mean[order], name=name, mode="lines",
                             line=line_style(name, width), legendgroup=name, **top))
        else:
            size = MARKER_SIZES[min(markers.index(name), len(MARKER_SIZES) - 1)]
            data.append(dict(type="scatter", x=x, y=mean, name=name, mode="markers", legendgroup=name,
                             marker=marker_style(name, size, line=dict(width=1, color="#FFFFFF")), **top))
    if labelled is not None:
        data.append(dict(type="scatter", x=labelled[0], y=labelled[1][:, output], mode="markers",
                         name="labelled target points",
                         marker=dict(color="#000000", size=14, symbol="circle-open", line=dict(width=3)), **top))
    if panel:
        for name, fit in fits.items():
            data += error_panel_traces(x, np.linalg.norm(np.asarray(fit["mean"], dtype=float) - y_true, axis=1), name)[0]
        layout["yaxis2"].update(title={"text": "test error"}, rangemode="tozero", nticks=3)
    layout["title"] = {"text": heading}
    layout["xaxis2" if panel else "xaxis"]["title"] = {"text": x_title}
    layout["yaxis"]["title"] = {"text": y_title or f"y{output}"}
    if train is not None:  # the y range of the test outputs and predictions: far-off training outputs are cut
        shown = np.concatenate([y_true[:, output], *(f["mean"][:, output] for f in fits.values())])
        shown = shown[np.isfinite(shown)]
        if shown.size:
            low, high = float(shown.min()), float(shown.max())
            pad = 0.1 * (high - low or 1.0)
            layout["yaxis"]["range"] = [low - pad, high + pad]
    if shapes:
        layout["shapes"] = shapes
    if annotations:
        layout["annotations"] = layout.get("annotations", []) + annotations
    return built(data, layout, height=HEIGHT + (110 if panel else 0), legend_rows=1 + len(fits) // 3)


def _single_panel(title, x_title, y_title):
    """The layout of a one-panel figure without a legend (:func:`built`), as :func:`new_figure` and ``showlegend``."""
    return {"title": {"text": title}, "xaxis": {"title": {"text": x_title}}, "yaxis": {"title": {"text": y_title}},
            "showlegend": False}


def error_vs_certainty(errors, certainty, name):
    return built([dict(type="scatter", x=certainty, y=errors, mode="markers", marker=marker_style(name, 8, opacity=0.6),
                       name=name)],
                 _single_panel(f"{name}: error vs certainty", "certainty phi", "Euclidean error"), height=400,
                 legend_rows=0)


def error_by_certainty_bin(bins, name):
    """Mean error (with its interval) per certainty bin of :func:`covshift.metrics.certainty_error_bins`,
    from the least to the most certain: the relation a scatter crowded near phi = 1 hides."""
    k = len(bins["error"])
    labels = [f"{i + 1}" + (" (least)" if i == 0 else " (most)" if i == k - 1 else "") for i in range(k)]
    trace = dict(type="scatter", x=labels, y=bins["error"], mode="markers+lines", name=name,
                 marker=marker_style(name, 12), line=line_style(name, width=2),
                 error_y=dict(type="data", symmetric=False, array=bins["high"] - bins["error"],
                              arrayminus=bins["error"] - bins["low"], thickness=2, width=8),
                 customdata=np.column_stack([bins["certainty"], bins["count"]]),
                 hovertemplate="mean phi %{customdata[0]:.4f}<br>%{customdata[1]} points<br>"
                               "mean error %{y:.3f}<extra></extra>")
    return built([trace], _single_panel(f"{name}: mean error per certainty bin", f"bin of phi (1/{k} of the points each)",
                                        "mean Euclidean error"), height=400, legend_rows=0)


def predicted_vs_true(y_true, predictions, max_outputs=4):
    """Per output: predicted against true values (the diagonal is perfect)."""
    d = min(y_true.shape[1], max_outputs)
    fig = subplots(rows=1, cols=d, subplot_titles=[f"output y{k}" for k in range(d)])
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
    fig = subplots(rows=len(rows), cols=n, horizontal_spacing=0.01, vertical_spacing=0.03,
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
