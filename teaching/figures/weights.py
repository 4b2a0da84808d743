"""Figures of the Importance weights page: learned w(x), Frank-Wolfe duality gaps, active-set sizes, CV curves."""

import dataclasses
from dataclasses import dataclass

import numpy as np

from teaching import readings
from teaching.figures.base import (BASE_FONT, HEIGHT, STEP_MARKERS, TEST, TRAIN, TRUTH, merged, built, cell,
                                   clean_log_axis, color, decades, error_panel_traces, line_style,
                                   marker_style, subplot_layout)


def weights_vs_truth(grid, curves, truth=None, heading="Learned importance w(x)", errors=None):
    """1-D inputs: each estimator's w(x) on a grid, against the true ratio where known (dotted black).

    ``errors`` = (x of the training points, {name: weights of the training points}, true weights there): a panel
    below draws each estimator's squared error against the truth on the mean-1 scale,
    (w_i / mean(w) - t_i / mean(t))^2, averaged in 16 bins of equal count along x (:func:`binned_along`, counts in
    ``customdata``): a curve's count-weighted mean is the estimator's weight error (NMSE, the table's), so the
    lowest curve is the estimator closest to the truth."""
    panel = errors is not None and bool(errors[1])
    layout = subplot_layout(rows=2 if panel else 1, cols=1, shared_xaxes=True, vertical_spacing=0.06,
                            row_heights=[0.6, 0.4] if panel else None)
    data = []
    if truth is not None:
        data.append(dict(type="scatter", x=grid, y=truth, name="true ratio", line=dict(color=TRUTH, width=4, dash="dot"),
                         **cell(1)))
    for name, w in curves.items():
        data.append(dict(type="scatter", x=grid, y=w, name=name, mode="lines+markers", line=line_style(name),
                         legendgroup=name, marker=marker_style(name, 9, maxdisplayed=12), **cell(1)))
    if panel:
        x, weights, true = errors
        true = np.asarray(true, dtype=float) / np.mean(true)
        for name, w in weights.items():
            w = np.asarray(w, dtype=float)
            data += error_panel_traces(x, (w / np.mean(w) - true) ** 2, name, "training points", bins=16)[0]
        layout["yaxis2"] = merged(layout["yaxis2"], {"title": {"text": "sq. error"}, "rangemode": "tozero", "nticks": 3})
    layout["title"] = {"text": heading}
    bottom = "xaxis2" if panel else "xaxis"
    layout[bottom] = merged(layout[bottom], {"title": {"text": "x"}})
    layout["yaxis"] = merged(layout["yaxis"], {"title": {"text": "w(x)" if panel else "w(x) = p_te(x) / p_tr(x)"}})
    return built(data, layout, height=HEIGHT + (110 if panel else 0), legend_rows=1 + len(curves) // 5)


def weights_on_points(x, weights, truth=None):
    """Weights at the training points (for estimators without w(x) off the sample)."""
    data = []
    if truth is not None:
        order = np.argsort(x)
        data.append(dict(type="scatter", x=x[order], y=truth[order], name="true ratio",
                         line=dict(color=TRUTH, width=4, dash="dot")))
    data += [dict(type="scatter", x=x, y=w, mode="markers", name=name, marker=marker_style(name, 7, opacity=0.7))
             for name, w in weights.items()]
    return built(data, _titled("Weights of the training points", "x", "w"), legend_rows=1 + len(weights) // 5)


def weight_histogram(weights):
    data = [dict(type="histogram", x=w, name=name, opacity=0.6, marker=dict(color=color(name)), nbinsx=40)
            for name, w in weights.items()]
    layout = {**_titled("Distribution of the weights (mean 1)", "w", "training points"), "barmode": "overlay"}
    return built(data, layout, legend_rows=1 + len(weights) // 5)


def alpha_stems(alphas):
    """Mixing coefficients alpha per estimator as stem plots (paper Fig. 2e)."""
    names = list(alphas)
    titles = [f"{n}: {int(np.count_nonzero(alphas[n][1]))} non-zero at end" for n in names]
    layout = subplot_layout(rows=max(len(names), 1), cols=1, shared_xaxes=True, subplot_titles=titles,
                            vertical_spacing=0.12)
    data = []
    for row, name in enumerate(names, start=1):
        pos, alpha = alphas[name]
        nz = alpha > 0  # a zero stem draws nothing: only the non-zero ones are sent to the browser
        xs = np.repeat(pos[nz], 3).astype(float)
        ys = np.column_stack([np.zeros(nz.sum()), alpha[nz], np.full(nz.sum(), np.nan)]).ravel()
        xs[2::3] = np.nan
        data.append(dict(type="scatter", x=xs, y=ys, mode="lines", line=dict(color=color(name), width=2),
                         showlegend=False, **cell(row)))
        data.append(dict(type="scatter", x=pos[nz], y=alpha[nz], mode="markers", marker=marker_style(name, 10),
                         name=name, **cell(row)))
    layout.update(title={"text": "Sparsity of alpha (paper Fig. 2e)"}, showlegend=False)
    bottom = "xaxis" if len(names) <= 1 else f"xaxis{len(names)}"
    layout[bottom] = merged(layout[bottom], {"title": {"text": "centre (test point index)"}})
    if names:  # every centre's index stays on the axis, zero or not
        everywhere = np.concatenate([np.asarray(alphas[n][0], float) for n in names])
        for axis in [a for a in layout if a.startswith("xaxis")]:
            layout[axis] = merged(layout[axis], {"range": [everywhere.min() - 1, everywhere.max() + 1]})
    for annotation in layout.get("annotations", ()):  # the panels' titles at the base font
        annotation["font"] = {**annotation.get("font", {}), "size": BASE_FONT}
    return built(data, layout, height=max(320, 170 * len(names) + 80), legend_rows=0)


#: Buckets per decade of a log x axis in which a long convergence curve keeps only its first, last, lowest and
#: highest point (:func:`_log_envelope`): under 2 px each even on a 1280 px stage in presentation mode (~650 px of
#: plot for 3.3 decades of a 2000-step run: ~200 px a decade).
PER_DECADE = 120


def _log_envelope(x, y, per_decade=PER_DECADE):
    """Indices of the points of a curve (x positive and non-decreasing) that draw it on a log x axis as all its
    points do: in each bucket of 1/``per_decade`` decade the first, last, lowest and highest point, in their order.

    Every point's value lies between the lowest and highest point of its bucket, which the drawn line joins, so a
    curve that zig-zags keeps its whole band; an iteration of its own bucket (the first ~50 of a run at 120 a decade)
    is always kept. A 2000-step Frank-Wolfe run keeps ~600 of its points."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 3:
        return np.arange(x.size)
    bucket = np.floor(np.log10(x) * per_decade).astype(np.int64)
    first = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    last = np.r_[first[1:], x.size] - 1
    by_value = np.lexsort((y, bucket))  # buckets are runs (x sorted): each keeps its positions, sorted by value
    return np.unique(np.concatenate([first, last, by_value[first], by_value[last]]))


def _changes(values):
    """Indices of a step curve (plotly's line shape "hv") that draw it: its first and last point and each point
    whose value differs from the one before."""
    values = np.asarray(values)
    keep = np.ones(values.size, dtype=bool)
    keep[1:-1] = values[1:-1] != values[:-2]
    return np.flatnonzero(keep)


@dataclass(frozen=True)
class Convergence:
    """What the convergence figures draw of a Frank-Wolfe run: the rows of its
    :class:`covshift.weights.fw_loop.FrankWolfeHistory` without its iterates (which are ~90 % of its bytes: the
    figure cache hashes a figure's arguments on every rerun). :func:`teaching.readings.relative_gaps` and
    :func:`~teaching.readings.first_at_gap` read it as they read the history."""

    objective: np.ndarray
    gap: np.ndarray
    step_kind: np.ndarray
    active_size: np.ndarray
    inner_iterations: np.ndarray
    elapsed: np.ndarray

    def __len__(self):
        return len(self.objective)


def convergence(history):
    """The :class:`Convergence` of a Frank-Wolfe ``history`` (its arrays, not copied)."""
    return Convergence(*(getattr(history, field.name) for field in dataclasses.fields(Convergence)))


#: Where each ringed iterate's "n atoms" label stands (px right and down from the ring), in the order the solvers
#: reach the gap: the first below and to the right, clear of the levels' labels at the left edge (the KLIEP
#: lesson's "2 atoms" straight below its ring touched "gap 0.0001" on a phone), then above, farther below, farther
#: above, so that neighbours stay apart.
ATOM_LABEL_OFFSETS = ((50, 50), (0, -45), (0, 85), (0, -85))


def duality_gaps(histories, x_axis="iteration", levels=()):
    """Relative duality gap |<g, d_FW>| / |F| on log-log axes, drop and swap steps marked
    (paper Fig. 2f). The log x-axis (iteration + 1) keeps a 12-step run as visible as a
    2000-step one; a long curve is drawn through the points of :func:`_log_envelope` (the same line on screen).

    ``histories``: {name: FrankWolfeHistory or its :class:`Convergence`}. ``levels``: relative gaps drawn as dotted
    horizontal lines; at the first one (equal accuracy) each solver's first iterate that reaches it
    (:func:`teaching.readings.first_at_gap`) is ringed and labelled with its active atoms, so that the solvers'
    sparsity at equal accuracy is read off the picture."""
    label = "iteration + 1 (log scale)" if x_axis == "iteration" else "seconds (log scale)"
    data, shapes, annotations, gaps = [], [], [], []
    for name, hist in histories.items():
        x = np.arange(1, len(hist) + 1) if x_axis == "iteration" else np.maximum(hist.elapsed, 1e-5)
        gap = np.maximum(np.asarray(hist.gap) / np.maximum(np.abs(hist.objective), 1e-300), 1e-16)
        gaps.append(gap)
        drawn = _log_envelope(x, gap)
        data.append(dict(type="scatter", x=x[drawn], y=gap[drawn], name=name, mode="lines", line=line_style(name),
                         legendgroup=name))
        for kind, symbol in STEP_MARKERS.items():
            at = hist.step_kind == kind
            if at.any():
                data.append(dict(type="scatter", x=x[at], y=gap[at], mode="markers", name=f"{name}: {kind} steps",
                                 legendgroup=name, showlegend=False,
                                 marker=dict(symbol=symbol, color=color(name), size=11, line=dict(width=2))))
    for i, level in enumerate(levels):
        shapes.append(dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=level, y1=level,
                           line=dict(color="#555555", width=1.5, dash="dot")))
        annotations.append(dict(x=0, xref="x domain", xanchor="left", y=np.log10(level),
                                yanchor="bottom" if i == 0 else "top", text=f"gap {level:g}", showarrow=False,
                                font=dict(size=BASE_FONT, color="#555555")))
        # (on a log axis an annotation's y is log10 of the value; at the left the curves are still high)
        if i:
            continue
        reached = sorted(((readings.first_at_gap(hist, level), name) for name, hist in histories.items()
                          if readings.first_at_gap(hist, level)[0] is not None), key=lambda r: r[0][0])
        for k, ((t, atoms), name) in enumerate(reached):  # in the order they reach it: ATOM_LABEL_OFFSETS
            ax, ay = ATOM_LABEL_OFFSETS[k % len(ATOM_LABEL_OFFSETS)]
            hist = histories[name]
            x = t + 1 if x_axis == "iteration" else max(float(hist.elapsed[t]), 1e-5)
            gap = max(float(readings.relative_gaps(hist)[t]), 1e-16)
            data.append(dict(type="scatter", x=[x], y=[gap], mode="markers", name=f"{name}: {atoms} atoms at gap {level:g}",
                             legendgroup=name, showlegend=False,
                             marker=dict(symbol="circle-open", color=color(name), size=18, line=dict(width=3))))
            annotations.append(dict(x=np.log10(x), y=np.log10(gap), text=f"{atoms} atoms", ax=ax,
                                    ay=ay, font=dict(size=BASE_FONT, color="#222222"),
                                    bgcolor="rgba(255,255,255,0.9)", bordercolor=color(name), borderwidth=2,
                                    arrowcolor=color(name), arrowwidth=2))
    for kind, symbol in STEP_MARKERS.items():  # one legend entry per step kind, in each solver's colour
        data.append(dict(type="scatter", x=[None], y=[None], mode="markers", name=f"{kind} step",
                         marker=dict(symbol=symbol, color="#444444", size=11, line=dict(width=2))))
    layout = _titled("Frank-Wolfe relative duality gap (paper Fig. 2f)", label, "relative duality gap",
                     yaxis_type="log", xaxis_type="log")
    layout.update(shapes=shapes, annotations=annotations)
    fig = built(data, layout, legend_rows=2)
    clean_log_axis(fig.layout.yaxis, decades(np.concatenate(gaps)) if gaps else None)
    return fig


def active_set_sizes(histories):
    """How many atoms each solver has active after each iteration, a step line through the points where the count
    changes (the same line as through every point)."""
    data = []
    for name, hist in histories.items():
        short = len(hist) < 20  # plotly draws every point of a short line as a marker too: all of them stay
        drawn = np.arange(len(hist)) if short else _changes(hist.active_size)
        data.append(dict(type="scatter", x=np.arange(1, len(hist) + 1)[drawn], y=np.asarray(hist.active_size)[drawn],
                         name=name, line=dict(**line_style(name), shape="hv"), mode="lines+markers" if short else "lines"))
    return built(data, _titled("Active-set size |S_t|", "iteration + 1 (log scale)", "active atoms",
                               xaxis_type="log"))


def inner_iterations(histories):
    """FCFWCS: corrective Newton iterations per outer step."""
    data = [dict(type="bar", x=np.arange(len(hist) - 1), y=hist.inner_iterations[:-1], name=name,
                 marker_color=color(name)) for name, hist in histories.items()]
    return built(data, _titled("Corrective (inner) Newton iterations per Frank-Wolfe step", "outer iteration",
                               "inner iterations"))


def _titled(title, x_title, y_title, xaxis_type=None, yaxis_type=None):
    """The layout of :func:`teaching.figures.base.new_figure` (title, axis titles, log axes) as dicts for ``built``."""
    layout = {"title": {"text": title}, "xaxis": {"title": {"text": x_title}}, "yaxis": {"title": {"text": y_title}}}
    for axis, kind in (("xaxis", xaxis_type), ("yaxis", yaxis_type)):
        if kind:
            layout[axis]["type"] = kind
    return layout


def cv_curve(cv_results):
    """Likelihood cross-validation curve of sigma (held-out log-likelihood), the chosen sigma a dashed line.

    The line's label "chosen" stands at log10(sigma) on the log axis: plotly.js places annotations on a log axis by
    the logarithm of their x (shapes by the value itself), so plotly's ``add_vline`` (value for both) put it at
    10^sigma instead."""
    sigma = np.asarray(cv_results["sigma"])
    mean = np.asarray(cv_results["mean_log_likelihood"], dtype=float)
    std = np.asarray(cv_results["std_log_likelihood"], dtype=float)
    finite = np.isfinite(mean)
    best = float(cv_results["best_sigma"])
    data = [dict(type="scatter", x=sigma[finite], y=mean[finite], mode="lines+markers", name="mean over folds",
                 error_y=dict(type="data", array=np.nan_to_num(std[finite])), line=dict(color=TRAIN, width=3))]
    layout = _titled("Choosing sigma by likelihood cross-validation", "sigma (log scale)", "held-out log-likelihood",
                     xaxis_type="log")
    layout["shapes"] = [dict(type="line", x0=best, x1=best, xref="x", y0=0, y1=1, yref="y domain",
                             line=dict(color=TEST, dash="dash", width=3))]
    layout["annotations"] = [dict(text="chosen", showarrow=False, x=float(np.log10(best)), xanchor="left", xref="x",
                                  y=1, yanchor="top", yref="y domain")]
    return built(data, layout)
