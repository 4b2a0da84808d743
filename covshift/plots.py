"""Figures of the app: pure functions, results in, plotly ``go.Figure`` out.

Colours are defined once here (colour-blind-safe: Okabe-Ito and Paul Tol's "muted"
palettes) so every page draws a method in the same colour.
"""

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from scipy.stats import gaussian_kde

TRAIN, TEST, TRUTH = "#0072B2", "#D55E00", "#000000"
METHOD_COLORS = {
    "KLIEP": "#999999", "FWCS": "#E69F00", "AFWCS": "#56B4E9", "PFWCS": "#009E73",
    "FCFWCS": "#CC79A7", "KMM": "#332288", "ENSKMM": "#88CCEE", "ENSTRKMM": "#44AA99",
    "VFKMM": "#117733", "EVFKMM": "#999933", "LogisticRatio": "#DDCC77", "RuLSIF": "#CC6677",
    "uLSIF": "#882255", "GPR": "#999999", "WKNN": "#E69F00", "KLTGP": "#56B4E9",
    "IKLTGP": "#F0E442", "SMTGP": "#009E73", "IW-GPR": "#332288", "IW-KLTGP": "#0072B2",
    "IW-SMTGP": "#CC79A7", "no adaptation": "#999999", "importance weighting": "#009E73",
    "delta adaptation": "#CC79A7",
}
STEP_MARKERS = {"drop": ("x", "#D55E00"), "swap": ("diamond", "#0072B2")}
_LAYOUT = dict(template="plotly_white", margin=dict(l=50, r=20, t=100, b=45),
               title=dict(y=0.98, yanchor="top"),
               legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))


def color(name):
    """The colour of a method (grey for unknown names)."""
    return METHOD_COLORS.get(name, "#777777")


def _figure(title, x_title, y_title, **layout):
    fig = go.Figure()
    fig.update_layout(xaxis_title=x_title, yaxis_title=y_title, **_LAYOUT)
    fig.update_layout(title_text=title, **layout)
    return fig


def first_component(X_tr, X_te):
    """1-D view of the inputs: the input itself, or the first principal component of both sets."""
    X = np.vstack([X_tr, X_te])
    if X.shape[1] == 1:
        return X_tr[:, 0], X_te[:, 0], "x"
    centre = X.mean(axis=0)
    _, _, vt = np.linalg.svd(X - centre, full_matrices=False)
    return (X_tr - centre) @ vt[0], (X_te - centre) @ vt[0], "first principal component of x"


def _density(values, grid, weights=None):
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
    fig = _figure("Input densities: training vs test", label, "density")
    fig.add_scatter(x=grid, y=_density(a, grid), name="p_tr (training)", line=dict(color=TRAIN, width=3))
    fig.add_scatter(x=grid, y=_density(b, grid), name="p_te (test)", line=dict(color=TEST, width=3))
    if weights is not None and np.sum(weights) > 0:
        fig.add_scatter(x=grid, y=_density(a, grid, weights), name="w-weighted training",
                        line=dict(color=TRAIN, width=2, dash="dash"))
    return fig


def data_scatter(X_tr, Y_tr, X_te, Y_te, output=0):
    """The data: one output against the (first component of the) input."""
    a, b, label = first_component(X_tr, X_te)
    fig = _figure("The data", label, f"y[{output}]")
    fig.add_scatter(x=a, y=Y_tr[:, output], mode="markers", name="training",
                    marker=dict(color=TRAIN, size=5, opacity=0.6))
    fig.add_scatter(x=b, y=Y_te[:, output], mode="markers", name="test",
                    marker=dict(color=TEST, size=5, opacity=0.6, symbol="triangle-up"))
    return fig


def shift_overview(X_tr, Y_tr, X_te, Y_te, grid, fit, fit_name="straight line fitted on training"):
    """Home picture: densities of x (top) and a fit learned on training data failing on test."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.35, 0.65], vertical_spacing=0.06)
    g = grid[:, 0]
    fig.add_scatter(x=g, y=_density(X_tr[:, 0], g), name="p_tr(x)", line=dict(color=TRAIN, width=3), row=1, col=1)
    fig.add_scatter(x=g, y=_density(X_te[:, 0], g), name="p_te(x)", line=dict(color=TEST, width=3), row=1, col=1)
    fig.add_scatter(x=X_tr[:, 0], y=Y_tr[:, 0], mode="markers", name="training points",
                    marker=dict(color=TRAIN, size=4, opacity=0.5), row=2, col=1)
    fig.add_scatter(x=X_te[:, 0], y=Y_te[:, 0], mode="markers", name="test points",
                    marker=dict(color=TEST, size=5, symbol="triangle-up", opacity=0.7), row=2, col=1)
    fig.add_scatter(x=g, y=fit, name=fit_name, line=dict(color=TRUTH, width=2, dash="dash"), row=2, col=1)
    fig.update_layout(**_LAYOUT, height=560)
    fig.update_layout(title_text="Covariate shift: same p(y|x), different p(x)")
    fig.update_yaxes(title_text="density", row=1, col=1)
    fig.update_yaxes(title_text="y", row=2, col=1)
    fig.update_xaxes(title_text="x", row=2, col=1)
    return fig


def weights_vs_truth(grid, curves, truth=None, title="Learned importance w(x)"):
    """1-D inputs: each estimator's w(x) on a grid, against the true ratio where known."""
    fig = _figure(title, "x", "w(x) = p_te(x) / p_tr(x)")
    if truth is not None:
        fig.add_scatter(x=grid, y=truth, name="true ratio", line=dict(color=TRUTH, width=3, dash="dot"))
    for name, w in curves.items():
        fig.add_scatter(x=grid, y=w, name=name, line=dict(color=color(name), width=2))
    return fig


def weights_on_points(x, weights, truth=None):
    """Weights at the training points (for estimators without w(x) off the sample)."""
    fig = _figure("Weights of the training points", "x", "w")
    if truth is not None:
        order = np.argsort(x)
        fig.add_scatter(x=x[order], y=truth[order], name="true ratio", line=dict(color=TRUTH, dash="dot"))
    for name, w in weights.items():
        fig.add_scatter(x=x, y=w, mode="markers", name=name, marker=dict(color=color(name), size=5))
    return fig


def weight_histogram(weights):
    fig = _figure("Distribution of the weights (mean 1)", "w", "training points", barmode="overlay")
    for name, w in weights.items():
        fig.add_histogram(x=w, name=name, opacity=0.6, marker_color=color(name), nbinsx=40)
    return fig


def alpha_stems(alphas):
    """Mixing coefficients alpha per estimator as stem plots (paper Fig. 2e)."""
    names = list(alphas)
    titles = [f"{n}: {int(np.count_nonzero(alphas[n][1]))} non-zero" for n in names]
    fig = make_subplots(rows=max(len(names), 1), cols=1, shared_xaxes=True, subplot_titles=titles,
                        vertical_spacing=0.08)
    for row, name in enumerate(names, start=1):
        pos, alpha = alphas[name]
        xs = np.repeat(pos, 3).astype(float)
        ys = np.column_stack([np.zeros_like(alpha), alpha, np.full_like(alpha, np.nan)]).ravel()
        xs[2::3] = np.nan
        fig.add_scatter(x=xs, y=ys, mode="lines", line=dict(color=color(name), width=1), showlegend=False,
                        row=row, col=1)
        nz = alpha > 0
        fig.add_scatter(x=pos[nz], y=alpha[nz], mode="markers", marker=dict(color=color(name), size=6),
                        name=name, row=row, col=1)
    fig.update_layout(**_LAYOUT)
    fig.update_layout(title_text="Sparsity of alpha (paper Fig. 2e)", height=max(300, 190 * len(names)),
                      showlegend=False)
    fig.update_xaxes(title_text="centre (test point index)", row=len(names), col=1)
    return fig


def duality_gaps(histories, x_axis="iteration"):
    """Duality gap <g, d_FW> on a log axis, drop and swap steps marked (paper Fig. 2f)."""
    label = "iteration" if x_axis == "iteration" else "seconds"
    fig = _figure("Frank-Wolfe duality gap (paper Fig. 2f)", label, "duality gap", yaxis_type="log")
    for name, hist in histories.items():
        x = np.arange(len(hist)) if x_axis == "iteration" else hist.elapsed
        gap = np.maximum(hist.gap, 1e-16)
        fig.add_scatter(x=x, y=gap, name=name, line=dict(color=color(name), width=2))
        for kind, (symbol, mark_color) in STEP_MARKERS.items():
            at = hist.step_kind == kind
            if at.any():
                fig.add_scatter(x=x[at], y=gap[at], mode="markers", name=f"{name}: {kind} steps",
                                marker=dict(symbol=symbol, color=mark_color, size=7))
    return fig


def active_set_sizes(histories):
    fig = _figure("Active-set size |S_t|", "iteration", "active atoms")
    for name, hist in histories.items():
        fig.add_scatter(x=np.arange(len(hist)), y=hist.active_size, name=name,
                        line=dict(color=color(name), width=2, shape="hv"))
    return fig


def inner_iterations(histories):
    """FCFWCS: corrective Newton iterations per outer step."""
    fig = _figure("Corrective (inner) Newton iterations per Frank-Wolfe step", "outer iteration",
                  "inner iterations")
    for name, hist in histories.items():
        fig.add_bar(x=np.arange(len(hist) - 1), y=hist.inner_iterations[:-1], name=name,
                    marker_color=color(name))
    return fig


def replay_step(positions, alpha, entering=None, leaving=None, title=""):
    """alpha at one iteration: the atom that enters (green) and the one that leaves (red)."""
    fig = _figure(title, "centre (test point index)", "alpha", showlegend=True)
    nz = alpha > 0
    fig.add_bar(x=positions[nz], y=alpha[nz], name="active atoms", marker_color="#777777", width=1.5)
    for atom, name, mark in [(entering, "enters / grows (towards)", "#009E73"),
                             (leaving, "leaves / shrinks (away)", "#D55E00")]:
        if atom is not None and atom >= 0:
            fig.add_vline(x=positions[atom], line=dict(color=mark, width=3), annotation_text=name,
                          annotation_position="top")
    return fig


def cv_curve(cv_results):
    """Likelihood cross-validation curve of sigma (held-out log-likelihood)."""
    fig = _figure("Choosing sigma by likelihood cross-validation", "sigma", "held-out log-likelihood",
                  xaxis_type="log")
    sigma = np.asarray(cv_results["sigma"])
    mean = np.asarray(cv_results["mean_log_likelihood"], dtype=float)
    std = np.asarray(cv_results["std_log_likelihood"], dtype=float)
    finite = np.isfinite(mean)
    fig.add_scatter(x=sigma[finite], y=mean[finite], mode="lines+markers", name="mean over folds",
                    error_y=dict(type="data", array=np.nan_to_num(std[finite])), line=dict(color=TRAIN))
    fig.add_vline(x=cv_results["best_sigma"], line=dict(color=TEST, dash="dash"),
                  annotation_text="chosen")
    return fig


def regression_fits(x, y_true, fits, output=0):
    """Predictions on the test inputs: GPR with a 2-std band, TGPs coloured by certainty phi."""
    order = np.argsort(x)
    fig = _figure("Predictions on the test inputs", "x", f"y[{output}]")
    fig.add_scatter(x=x, y=y_true[:, output], mode="markers", name="test truth",
                    marker=dict(color="#BBBBBB", size=5))
    for name, fit in fits.items():
        mean = fit["mean"][:, output]
        if fit.get("std") is not None:
            std = fit["std"][:, output]
            band = np.concatenate([(mean + 2 * std)[order], (mean - 2 * std)[order][::-1]])
            fig.add_scatter(x=np.concatenate([x[order], x[order][::-1]]), y=band, fill="toself",
                            line=dict(width=0), fillcolor="rgba(120,120,120,0.2)", name=f"{name} +-2 std",
                            hoverinfo="skip")
        if fit.get("certainty") is not None:
            fig.add_scatter(x=x, y=mean, mode="markers", name=f"{name} (colour: certainty phi)",
                            marker=dict(color=fit["certainty"], colorscale="Viridis", cmin=0, cmax=1,
                                        size=6, symbol="circle-open", line=dict(width=2),
                                        colorbar=dict(title="phi", len=0.6)))
        else:
            fig.add_scatter(x=x[order], y=mean[order], name=name, line=dict(color=color(name), width=2))
    return fig


def error_vs_certainty(errors, certainty, name):
    fig = _figure(f"{name}: error vs certainty phi", "certainty phi", "Euclidean error")
    fig.add_scatter(x=certainty, y=errors, mode="markers", marker=dict(color=color(name), size=5, opacity=0.6),
                    name=name)
    return fig


def predicted_vs_true(y_true, predictions, max_outputs=4):
    """Per output: predicted against true values (the diagonal is perfect)."""
    d = min(y_true.shape[1], max_outputs)
    fig = make_subplots(rows=1, cols=d, subplot_titles=[f"output {k}" for k in range(d)])
    lo, hi = float(np.min(y_true)), float(np.max(y_true))
    for k in range(d):
        fig.add_scatter(x=[lo, hi], y=[lo, hi], mode="lines", line=dict(color="#BBBBBB", dash="dot"),
                        showlegend=False, row=1, col=k + 1)
        for name, pred in predictions.items():
            fig.add_scatter(x=y_true[:, k], y=pred[:, k], mode="markers", name=name, showlegend=k == 0,
                            marker=dict(color=color(name), size=4, opacity=0.6), row=1, col=k + 1)
    fig.update_layout(**_LAYOUT)
    fig.update_layout(title_text="Predicted vs true, per output", height=400)
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
    fig.update_layout(title="Digits: true and reconstructed centre pixels", template="plotly_white",
                      height=120 * len(rows) + 60, margin=dict(l=20, r=90, t=50, b=10))
    return fig


def scaling(results):
    """Run time vs n on log axes (paper Fig. 2g): results = {name: (sizes, seconds)}."""
    fig = _figure("Run time vs sample size (paper Fig. 2g)", "n_tr = n_te", "seconds",
                  xaxis_type="log", yaxis_type="log")
    for name, (sizes, seconds) in results.items():
        fig.add_scatter(x=sizes, y=seconds, mode="lines+markers", name=name, line=dict(color=color(name)))
    return fig


# ---------------------------------------------------------------- Reproduction page (issue 13)
#: Verdict -> (icon, word): shapes that differ without colour (colour-blind safe).
VERDICT_MARKS = {"reproduced": ("✔", "reproduced"), "not reproduced": ("✘", "not reproduced"),
                 "not comparable": ("≈", "not comparable")}


_SERIES_COLORS = ["#E69F00", "#56B4E9", "#CC79A7", "#0072B2"]


def _is_seconds(name):
    return name.endswith(" s") or name.endswith("(s)")


def reproduction_bars(metrics, paper_values=None, title=""):
    """Ours (mean +- sd over seeds, bars) beside the paper's numbers (open diamonds) per metric.

    ``metrics``: {name: {"mean", "sd", ...}} as in assets/reproduction.json; timing metrics
    (names ending in " s") are left out, they have their own units. A log axis is used when
    the values span more than two decades.
    """
    paper_values = paper_values or {}
    names = [n for n, m in metrics.items() if not _is_seconds(n) and m.get("mean") is not None]
    means = [metrics[n]["mean"] for n in names]
    fig = _figure(title, "", "value (mean ± sd over seeds)")
    fig.add_bar(x=names, y=means, error_y=dict(type="data", array=[metrics[n]["sd"] for n in names]),
                name="ours", marker_color=TRAIN)
    shown = [n for n in names if n in paper_values and paper_values[n] is not None]
    if shown:
        fig.add_scatter(x=shown, y=[paper_values[n] for n in shown], mode="markers", name="paper",
                        marker=dict(symbol="diamond-open", size=13, color=TEST, line=dict(width=2)))
    positive = [m for m in means if m > 0] + [paper_values[n] for n in shown]
    if len(positive) == len(means) + len(shown) and positive and max(positive) / min(positive) > 100:
        fig.update_yaxes(type="log")
    return fig


def reproduction_curve(metrics, title="", y_title="error"):
    """Error against the training-set size with +- sd bands, from metrics named
    "<model> @ n_tr=<n>" (FW paper Fig. 3 style)."""
    series = {}
    for name, m in metrics.items():
        if " @ n_tr=" not in name or m.get("mean") is None:
            continue
        model, n = name.split(" @ n_tr=")
        series.setdefault(model, []).append((int(n), m["mean"], m["sd"]))
    fig = _figure(title, "training points n_tr", y_title)
    dashes = ["solid", "dash", "dot", "dashdot"]
    for i, (model, points) in enumerate(series.items()):
        n, mean, sd = (np.asarray(v, float) for v in zip(*sorted(points)))
        c = METHOD_COLORS.get(model, _SERIES_COLORS[i % len(_SERIES_COLORS)])
        fig.add_scatter(x=np.r_[n, n[::-1]], y=np.r_[mean + sd, (mean - sd)[::-1]], fill="toself",
                        fillcolor=c, opacity=0.15, line=dict(width=0), showlegend=False, hoverinfo="skip")
        fig.add_scatter(x=n, y=mean, mode="lines+markers", name=model,
                        line=dict(color=c, dash=dashes[i % len(dashes)]))
    return fig


def reproduction_gaps(trace, title="Relative duality gap per iteration (seed 0)"):
    """Relative duality gap against the iteration, log-log, one line per solver (FW paper Fig. 2f)."""
    fig = _figure(title, "iteration", "gap / |F|")
    dashes = ["solid", "dash", "dot", "dashdot"]
    for i, (name, curve) in enumerate(trace.items()):
        fig.add_scatter(x=np.asarray(curve["iteration"]) + 1, y=curve["value"], mode="lines", name=name,
                        line=dict(color=color(name), dash=dashes[i % len(dashes)]))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig
