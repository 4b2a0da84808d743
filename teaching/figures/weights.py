"""Figures of the Importance weights page: learned w(x), Frank-Wolfe duality gaps, active-set sizes, CV curves."""

import numpy as np

from teaching import readings
from teaching.figures.base import (BASE_FONT, HEIGHT, STEP_MARKERS, TEST, TRAIN, TRUTH, add_error_panel_curve,
                                   clean_log_axis, color, decades, finish, line_style, marker_style, new_figure,
                                   subplots)


def weights_vs_truth(grid, curves, truth=None, heading="Learned importance w(x)", errors=None):
    """1-D inputs: each estimator's w(x) on a grid, against the true ratio where known (dotted black).

    ``errors`` = (x of the training points, {name: weights of the training points}, true weights there): a panel
    below draws each estimator's squared error against the truth on the mean-1 scale,
    (w_i / mean(w) - t_i / mean(t))^2, averaged in 16 bins of equal count along x (:func:`binned_along`, counts in
    ``customdata``): a curve's count-weighted mean is the estimator's weight error (NMSE, the table's), so the
    lowest curve is the estimator closest to the truth."""
    panel = errors is not None and bool(errors[1])
    fig = subplots(rows=2 if panel else 1, cols=1, shared_xaxes=True, vertical_spacing=0.06,
                        row_heights=[0.6, 0.4] if panel else None)
    if truth is not None:
        fig.add_scatter(x=grid, y=truth, name="true ratio", line=dict(color=TRUTH, width=4, dash="dot"), row=1, col=1)
    for name, w in curves.items():
        fig.add_scatter(x=grid, y=w, name=name, mode="lines+markers", line=line_style(name), legendgroup=name,
                        marker=marker_style(name, 9, maxdisplayed=12), row=1, col=1)
    if panel:
        x, weights, true = errors
        true = np.asarray(true, dtype=float) / np.mean(true)
        for name, w in weights.items():
            w = np.asarray(w, dtype=float)
            add_error_panel_curve(fig, x, (w / np.mean(w) - true) ** 2, name, "training points", bins=16)
        fig.update_yaxes(title_text="sq. error", rangemode="tozero", nticks=3, row=2, col=1)
    fig.update_layout(title_text=heading)
    fig.update_xaxes(title_text="x", row=2 if panel else 1, col=1)
    fig.update_yaxes(title_text="w(x) = p_te(x) / p_tr(x)" if not panel else "w(x)", row=1, col=1)
    return finish(fig, height=HEIGHT + (110 if panel else 0), legend_rows=1 + len(curves) // 5)


def weights_on_points(x, weights, truth=None):
    """Weights at the training points (for estimators without w(x) off the sample)."""
    fig = new_figure("Weights of the training points", "x", "w")
    if truth is not None:
        order = np.argsort(x)
        fig.add_scatter(x=x[order], y=truth[order], name="true ratio", line=dict(color=TRUTH, width=4, dash="dot"))
    for name, w in weights.items():
        fig.add_scatter(x=x, y=w, mode="markers", name=name, marker=marker_style(name, 7, opacity=0.7))
    return finish(fig, legend_rows=1 + len(weights) // 5)


def weight_histogram(weights):
    fig = new_figure("Distribution of the weights (mean 1)", "w", "training points", barmode="overlay")
    for name, w in weights.items():
        fig.add_histogram(x=w, name=name, opacity=0.6, marker_color=color(name), nbinsx=40)
    return finish(fig, legend_rows=1 + len(weights) // 5)


def alpha_stems(alphas):
    """Mixing coefficients alpha per estimator as stem plots (paper Fig. 2e)."""
    names = list(alphas)
    titles = [f"{n}: {int(np.count_nonzero(alphas[n][1]))} non-zero at end" for n in names]
    fig = subplots(rows=max(len(names), 1), cols=1, shared_xaxes=True, subplot_titles=titles,
                        vertical_spacing=0.12)
    for row, name in enumerate(names, start=1):
        pos, alpha = alphas[name]
        nz = alpha > 0  # a zero stem draws nothing: only the non-zero ones are sent to the browser
        xs = np.repeat(pos[nz], 3).astype(float)
        ys = np.column_stack([np.zeros(nz.sum()), alpha[nz], np.full(nz.sum(), np.nan)]).ravel()
        xs[2::3] = np.nan
        fig.add_scatter(x=xs, y=ys, mode="lines", line=dict(color=color(name), width=2), showlegend=False,
                        row=row, col=1)
        fig.add_scatter(x=pos[nz], y=alpha[nz], mode="markers", marker=marker_style(name, 10),
                        name=name, row=row, col=1)
    fig.update_layout(title_text="Sparsity of alpha (paper Fig. 2e)", showlegend=False)
    fig.update_xaxes(title_text="centre (test point index)", row=len(names), col=1)
    if names:  # every centre's index stays on the axis, zero or not
        everywhere = np.concatenate([np.asarray(alphas[n][0], float) for n in names])
        fig.update_xaxes(range=[everywhere.min() - 1, everywhere.max() + 1])
    fig = finish(fig, height=max(320, 170 * len(names) + 80), legend_rows=0)
    fig.update_annotations(font_size=BASE_FONT)
    return fig


def duality_gaps(histories, x_axis="iteration", levels=()):
    """Relative duality gap |<g, d_FW>| / |F| on log-log axes, drop and swap steps marked
    (paper Fig. 2f). The log x-axis (iteration + 1) keeps a 12-step run as visible as a
    2000-step one.

    ``levels``: relative gaps drawn as dotted horizontal lines; at the first one (equal accuracy) each solver's
    first iterate that reaches it (:func:`teaching.readings.first_at_gap`) is ringed and labelled with its
    active atoms, so that the solvers' sparsity at equal accuracy is read off the picture."""
    label = "iteration + 1 (log scale)" if x_axis == "iteration" else "seconds (log scale)"
    fig = new_figure("Frank-Wolfe relative duality gap (paper Fig. 2f)", label, "relative duality gap",
                  yaxis_type="log", xaxis_type="log")
    gaps = []
    for name, hist in histories.items():
        x = np.arange(1, len(hist) + 1) if x_axis == "iteration" else np.maximum(hist.elapsed, 1e-5)
        gap = np.maximum(np.asarray(hist.gap) / np.maximum(np.abs(hist.objective), 1e-300), 1e-16)
        gaps.append(gap)
        fig.add_scatter(x=x, y=gap, name=name, mode="lines", line=line_style(name), legendgroup=name)
        for kind, symbol in STEP_MARKERS.items():
            at = hist.step_kind == kind
            if at.any():
                fig.add_scatter(x=x[at], y=gap[at], mode="markers", name=f"{name}: {kind} steps",
                                legendgroup=name, showlegend=False,
                                marker=dict(symbol=symbol, color=color(name), size=11, line=dict(width=2)))
    for i, level in enumerate(levels):
        fig.add_hline(y=level, line=dict(color="#555555", width=1.5, dash="dot"))
        fig.add_annotation(x=0, xref="x domain", xanchor="left", y=np.log10(level), yanchor="bottom" if i == 0 else "top",
                           text=f"gap {level:g}", showarrow=False, font=dict(size=BASE_FONT, color="#555555"))
        # (on a log axis an annotation's y is log10 of the value; at the left the curves are still high)
        if i:
            continue
        reached = sorted(((readings.first_at_gap(hist, level), name) for name, hist in histories.items()
                          if readings.first_at_gap(hist, level)[0] is not None), key=lambda r: r[0][0])
        for k, ((t, atoms), name) in enumerate(reached):  # labels below and above, then farther: neighbours apart
            hist = histories[name]
            x = t + 1 if x_axis == "iteration" else max(float(hist.elapsed[t]), 1e-5)
            gap = max(float(readings.relative_gaps(hist)[t]), 1e-16)
            fig.add_scatter(x=[x], y=[gap], mode="markers", name=f"{name}: {atoms} atoms at gap {level:g}",
                            legendgroup=name, showlegend=False,
                            marker=dict(symbol="circle-open", color=color(name), size=18, line=dict(width=3)))
            fig.add_annotation(x=np.log10(x), y=np.log10(gap), text=f"{atoms} atoms", ax=0, ay=(45, -45, 80, -80)[k % 4],
                               font=dict(size=BASE_FONT, color="#222222"), bgcolor="rgba(255,255,255,0.9)",
                               bordercolor=color(name), borderwidth=2, arrowcolor=color(name), arrowwidth=2)
    for kind, symbol in STEP_MARKERS.items():  # one legend entry per step kind, in each solver's colour
        fig.add_scatter(x=[None], y=[None], mode="markers", name=f"{kind} step",
                        marker=dict(symbol=symbol, color="#444444", size=11, line=dict(width=2)))
    fig = finish(fig, legend_rows=2)
    clean_log_axis(fig.layout.yaxis, decades(np.concatenate(gaps)) if gaps else None)
    return fig


def active_set_sizes(histories):
    fig = new_figure("Active-set size |S_t|", "iteration + 1 (log scale)", "active atoms", xaxis_type="log")
    for name, hist in histories.items():
        fig.add_scatter(x=np.arange(1, len(hist) + 1), y=hist.active_size, name=name,
                        line=dict(**line_style(name), shape="hv"))
    return finish(fig)


def inner_iterations(histories):
    """FCFWCS: corrective Newton iterations per outer step."""
    fig = new_figure("Corrective (inner) Newton iterations per Frank-Wolfe step", "outer iteration",
                  "inner iterations")
    for name, hist in histories.items():
        fig.add_bar(x=np.arange(len(hist) - 1), y=hist.inner_iterations[:-1], name=name,
                    marker_color=color(name))
    return finish(fig)


def cv_curve(cv_results):
    """Likelihood cross-validation curve of sigma (held-out log-likelihood)."""
    fig = new_figure("Choosing sigma by likelihood cross-validation", "sigma (log scale)", "held-out log-likelihood",
                  xaxis_type="log")
    sigma = np.asarray(cv_results["sigma"])
    mean = np.asarray(cv_results["mean_log_likelihood"], dtype=float)
    std = np.asarray(cv_results["std_log_likelihood"], dtype=float)
    finite = np.isfinite(mean)
    fig.add_scatter(x=sigma[finite], y=mean[finite], mode="lines+markers", name="mean over folds",
                    error_y=dict(type="data", array=np.nan_to_num(std[finite])), line=dict(color=TRAIN, width=3))
    fig.add_vline(x=cv_results["best_sigma"], line=dict(color=TEST, dash="dash", width=3),
                  annotation_text="chosen")
    return finish(fig)
