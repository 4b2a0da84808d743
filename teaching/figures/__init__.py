"""Figures of the app: pure functions, results in, plotly ``go.Figure`` out.

Every method has one style here, reused by every figure: a colour (Okabe-Ito and Paul
Tol's colour-blind-safe palettes), a marker symbol and a line dash, so methods stay
distinguishable in grey-scale and for colour-blind readers. Figures are sized for a
projector at 1280 x 800 (base font 15 px, legends below the plot so they never cover the
title); :func:`presentation` enlarges fonts, lines and markers further.
"""

import copy
import base64

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots
from scipy.stats import gaussian_kde

from covshift.weights.replay import MAX_FRAMES, replay_frames

TRAIN, TEST, TRUTH = "#0072B2", "#D55E00", "#000000"
#: name -> (colour, marker symbol, line dash).
METHOD_STYLES = {
    "KLIEP": ("#999999", "circle", "solid"), "FWCS": ("#E69F00", "square", "dot"),
    "AFWCS": ("#56B4E9", "triangle-up", "dash"), "PFWCS": ("#009E73", "diamond", "longdash"),
    "FCFWCS": ("#CC79A7", "star", "solid"), "KMM": ("#332288", "circle", "dash"),
    "ENSKMM": ("#88CCEE", "square", "dot"), "ENSTRKMM": ("#44AA99", "triangle-down", "dashdot"),
    "VFKMM": ("#117733", "cross", "longdash"), "EVFKMM": ("#999933", "x", "longdashdot"),
    "LogisticRatio": ("#DDCC77", "hexagon", "dash"), "RuLSIF": ("#CC6677", "pentagon", "dot"),
    "uLSIF": ("#882255", "hourglass", "dashdot"),
    "GPR": ("#999999", "circle", "dash"), "WKNN": ("#E69F00", "square", "dot"),
    "KLTGP": ("#56B4E9", "triangle-up", "dashdot"), "IKLTGP": ("#F0E442", "triangle-down", "longdash"),
    "SMTGP": ("#009E73", "diamond", "solid"), "IW-GPR": ("#332288", "circle-open", "dot"),
    "IW-KLTGP": ("#0072B2", "triangle-up-open", "longdashdot"), "IW-SMTGP": ("#CC79A7", "star", "solid"),
    "no adaptation": ("#999999", "circle", "dash"), "importance weighting": ("#009E73", "diamond", "solid"),
    "delta adaptation": ("#CC79A7", "star", "dot"),
    "no weights": ("#999999", "circle", "dash"), "true weights": ("#000000", "x", "dot"),
    "estimated weights": ("#CC79A7", "star", "solid"),
}
STEP_MARKERS = {"drop": "x-thin-open", "swap": "diamond-open"}
BASE_FONT, TITLE_FONT = 15, 19
_LAYOUT = dict(template="plotly_white", font=dict(size=BASE_FONT),
               margin=dict(l=70, r=30, t=70, b=40),
               title=dict(y=0.97, yanchor="top", x=0.01, font=dict(size=TITLE_FONT)),
               legend=dict(orientation="h", yanchor="top", y=-0.2, x=0, font=dict(size=BASE_FONT)))
_HEIGHT = 430
#: _LAYOUT without its template, which :func:`_white` sets.
_STYLE = {key: value for key, value in _LAYOUT.items() if key != "template"}


def color(name):
    """The colour of a method (grey for unknown names)."""
    return style(name)["color"]


#: name -> colour, for every method with a style and for pages that add their own names.
METHOD_COLORS = {name: colour for name, (colour, _, _) in METHOD_STYLES.items()}


def style(name):
    """{'color', 'symbol', 'dash'} of a method: the same in every figure."""
    colour, symbol, dash = METHOD_STYLES.get(name, (METHOD_COLORS.get(name, "#777777"), "circle", "solid"))
    return {"color": colour, "symbol": symbol, "dash": dash}


def _line(name, width=3):
    s = style(name)
    return dict(color=s["color"], dash=s["dash"], width=width)


def _marker(name, size=8, **extra):
    s = style(name)
    return dict(color=s["color"], symbol=s["symbol"], size=size, **extra)


def _clean_log_axis(axis, decades=None):
    """Major ticks only (one per decade, every second one beyond 6 decades) with 10^k labels,
    no "5 6 7 8 9" minor labels."""
    axis.update(dtick=2 if decades and decades > 6 else 1, exponentformat="power", minor=dict(showgrid=False))


def _decades(values):
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    return float(np.log10(values.max() / values.min())) if values.size else 0.0


def _white(fig):
    """Give ``fig`` the plotly_white template of :data:`_LAYOUT` without validating it again.

    Setting a template by name validates its defaults for every trace type again (~9 ms a
    figure). The registered template is valid already, and plotly assigns its default template
    the same way (``BaseFigure._initialize_layout_template``): the figure is the same, only faster.
    """
    template = pio.templates[_LAYOUT["template"]]
    fig.layout._validate = False
    try:
        fig.layout.template = template
    finally:
        fig.layout._validate = fig._validate
    return fig


def _finish(fig, height=_HEIGHT, legend_rows=1):
    """Common layout; the legend sits below the x-axis title, with room for ``legend_rows``."""
    _white(fig).update_layout(**_STYLE)
    fig.update_layout(height=height + 30 * legend_rows,
                      margin=dict(b=80 + 30 * legend_rows))
    # explicit sizes: Streamlit's chart theme would otherwise shrink tick labels to 12 px
    fig.update_xaxes(title_standoff=8, tickfont_size=BASE_FONT, title_font_size=BASE_FONT + 1)
    fig.update_yaxes(tickfont_size=BASE_FONT, title_font_size=BASE_FONT + 1)
    for axis in [fig.layout[a] for a in fig.layout if a.startswith(("xaxis", "yaxis"))]:
        if axis.type == "log":
            _clean_log_axis(axis)
    return fig


def _figure(title, x_title, y_title, **layout):
    fig = _white(go.Figure())
    fig.update_layout(**_STYLE)
    fig.update_layout(xaxis_title=x_title, yaxis_title=y_title, title_text=title, **layout)
    return fig


def presentation(fig):
    """A copy of ``fig`` for a projector: larger fonts, thicker lines, bigger markers."""
    fig = copy.deepcopy(fig)
    scale = 1.35
    fig.update_layout(font=dict(size=round(BASE_FONT * scale)), title_font=dict(size=round(TITLE_FONT * scale)),
                      legend_font=dict(size=round(BASE_FONT * scale)))
    for update_axes in (fig.update_xaxes, fig.update_yaxes):  # _finish sets the axis fonts explicitly
        update_axes(tickfont_size=round(BASE_FONT * scale), title_font_size=round((BASE_FONT + 1) * scale))
    for trace in [*fig.data, *(trace for frame in fig.frames for trace in frame.data)]:  # frames: animations
        line = getattr(trace, "line", None)
        if line is not None and line.width is not None:
            line.width = line.width * 1.6
        marker = getattr(trace, "marker", None)
        if marker is not None and getattr(marker, "size", None) is not None and np.isscalar(marker.size):
            marker.size = marker.size * 1.4
        textfont = getattr(trace, "textfont", None)
        if textfont is not None and textfont.size is not None and np.isscalar(textfont.size):
            textfont.size = round(textfont.size * scale)
    for annotation in fig.layout.annotations:
        annotation.font.size = round(BASE_FONT * scale)
    return fig


def coinciding(curves, tolerance=1e-3, log=False):
    """Groups of curve names whose curves coincide on screen (max difference below
    ``tolerance`` times the plotted range), so a caption can say so. ``log``: compare the
    curves as drawn on a log axis (log10 of the values)."""
    names = list(curves)
    values = [np.asarray(curves[n], dtype=float).ravel() for n in names]
    if log:
        values = [np.log10(np.maximum(v, 1e-300)) for v in values]
    span = max((np.nanmax(v) - np.nanmin(v) for v in values if v.size), default=0.0) or 1.0
    groups, used = [], set()
    for i, a in enumerate(names):
        if a in used:
            continue
        group = [a] + [b for j, b in enumerate(names[i + 1:], start=i + 1) if b not in used
                       and values[j].shape == values[i].shape
                       and np.nanmax(np.abs(values[j] - values[i])) <= tolerance * span]
        if len(group) > 1:
            groups.append(group)
            used.update(group)
    return groups


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
    fig.add_scatter(x=grid, y=_density(b, grid), name="p_te (test)", line=dict(color=TEST, width=3, dash="dash"))
    if weights is not None and np.sum(weights) > 0:
        fig.add_scatter(x=grid, y=_density(a, grid, weights), name="w-weighted training",
                        line=dict(color=TRAIN, width=3, dash="dot"))
    return _finish(fig)


def data_scatter(X_tr, Y_tr, X_te, Y_te, output=0):
    """The data: one output against the (first component of the) input."""
    a, b, label = first_component(X_tr, X_te)
    fig = _figure("The data", label, f"y{output}")
    fig.add_scatter(x=a, y=Y_tr[:, output], mode="markers", name="training",
                    marker=dict(color=TRAIN, size=7, opacity=0.6))
    fig.add_scatter(x=b, y=Y_te[:, output], mode="markers", name="test",
                    marker=dict(color=TEST, size=7, opacity=0.6, symbol="triangle-up"))
    return _finish(fig)


def output_plane(Y_tr, Y_te, predictions=None, heading="Outputs: y1 against y0"):
    """Two-output data drawn in the output plane (the Circle data as a circle), with
    each model's predictions for the test points."""
    fig = _figure(heading, "y0", "y1")
    fig.add_scatter(x=Y_tr[:, 0], y=Y_tr[:, 1], mode="markers", name="training",
                    marker=dict(color=TRAIN, size=6, opacity=0.5))
    fig.add_scatter(x=Y_te[:, 0], y=Y_te[:, 1], mode="markers", name="test truth",
                    marker=dict(color=TEST, size=7, opacity=0.6, symbol="triangle-up"))
    for name, pred in (predictions or {}).items():
        fig.add_scatter(x=pred[:, 0], y=pred[:, 1], mode="markers", name=name, marker=_marker(name, 8, opacity=0.8))
    fig.update_yaxes(scaleanchor="x", scaleratio=1)
    return _finish(fig, legend_rows=1 + len(predictions or {}) // 4)


def shift_overview(X_tr, Y_tr, X_te, Y_te, grid, fits, heading="Covariate shift: same p(y|x), different p(x)",
                   focus=None):
    """Home picture: densities of x (top) and fits learned on the training data (bottom).

    ``fits`` maps a label ("no weights", "true weights", ...) to predictions on ``grid``;
    ``focus`` = (lo, hi) zooms both panels on that x range (the test region), with the
    y-axis fitted to the points and curves inside it, so differences between fits show.
    """
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.3, 0.7], vertical_spacing=0.05)
    g = grid[:, 0]
    fig.add_scatter(x=g, y=_density(X_tr[:, 0], g), name="p_tr(x)", line=dict(color=TRAIN, width=3), row=1, col=1)
    fig.add_scatter(x=g, y=_density(X_te[:, 0], g), name="p_te(x)", line=dict(color=TEST, width=3, dash="dash"),
                    row=1, col=1)
    fig.add_scatter(x=X_tr[:, 0], y=Y_tr[:, 0], mode="markers", name="training points",
                    marker=dict(color=TRAIN, size=5, opacity=0.45), row=2, col=1)
    fig.add_scatter(x=X_te[:, 0], y=Y_te[:, 0], mode="markers", name="test points",
                    marker=dict(color=TEST, size=7, symbol="triangle-up", opacity=0.7), row=2, col=1)
    for label, values in fits.items():
        fig.add_scatter(x=g, y=np.ravel(values), name=f"fit: {label}", line=_line(label, 4), row=2, col=1)
    fig.update_layout(title_text=heading)
    fig.update_yaxes(title_text="density", row=1, col=1)
    fig.update_yaxes(title_text="y", row=2, col=1)
    fig.update_xaxes(title_text="x", row=2, col=1)
    if focus is not None:
        lo, hi = focus
        inside = [Y_te[(X_te[:, 0] >= lo) & (X_te[:, 0] <= hi), 0], Y_tr[(X_tr[:, 0] >= lo) & (X_tr[:, 0] <= hi), 0]]
        inside += [np.ravel(v)[(g >= lo) & (g <= hi)] for v in fits.values()]
        values = np.concatenate([v for v in inside if v.size])
        pad = 0.08 * (values.max() - values.min() or 1.0)
        fig.update_xaxes(range=[lo, hi])
        fig.update_yaxes(range=[values.min() - pad, values.max() + pad], row=2, col=1)
    return _finish(fig, height=480, legend_rows=2)


def error_by_width(table, chosen=None):
    """Test MAE against the model's input width, with and without weights.

    ``table`` = {width: {label: MAE}} (catalog.weighting_by_width).
    """
    widths = sorted(table)
    fig = _figure("Test error vs model flexibility", "input width rho_x (small = flexible, large = smooth)",
                  "test MAE", xaxis_type="log")
    for label in table[widths[0]]:
        fig.add_scatter(x=widths, y=[table[w][label] for w in widths], mode="lines+markers", name=label,
                        line=_line(label), marker=_marker(label, 10))
    if chosen is not None:
        fig.add_vline(x=chosen, line=dict(color="#555555", width=2, dash="dot"))
    fig = _finish(fig)
    fig.update_xaxes(dtick=None, tickvals=[0.1, 0.2, 0.5, 1, 2, 5], ticktext=["0.1", "0.2", "0.5", "1", "2", "5"])
    return fig


def weights_vs_truth(grid, curves, truth=None, heading="Learned importance w(x)"):
    """1-D inputs: each estimator's w(x) on a grid, against the true ratio where known."""
    fig = _figure(heading, "x", "w(x) = p_te(x) / p_tr(x)")
    if truth is not None:
        fig.add_scatter(x=grid, y=truth, name="true ratio", line=dict(color=TRUTH, width=4, dash="dot"))
    for name, w in curves.items():
        fig.add_scatter(x=grid, y=w, name=name, mode="lines+markers", line=_line(name),
                        marker=_marker(name, 9, maxdisplayed=12))
    return _finish(fig, legend_rows=1 + len(curves) // 5)


def weights_on_points(x, weights, truth=None):
    """Weights at the training points (for estimators without w(x) off the sample)."""
    fig = _figure("Weights of the training points", "x", "w")
    if truth is not None:
        order = np.argsort(x)
        fig.add_scatter(x=x[order], y=truth[order], name="true ratio", line=dict(color=TRUTH, width=4, dash="dot"))
    for name, w in weights.items():
        fig.add_scatter(x=x, y=w, mode="markers", name=name, marker=_marker(name, 7, opacity=0.7))
    return _finish(fig, legend_rows=1 + len(weights) // 5)


def weight_histogram(weights):
    fig = _figure("Distribution of the weights (mean 1)", "w", "training points", barmode="overlay")
    for name, w in weights.items():
        fig.add_histogram(x=w, name=name, opacity=0.6, marker_color=color(name), nbinsx=40)
    return _finish(fig, legend_rows=1 + len(weights) // 5)


def alpha_stems(alphas):
    """Mixing coefficients alpha per estimator as stem plots (paper Fig. 2e)."""
    names = list(alphas)
    titles = [f"{n}: {int(np.count_nonzero(alphas[n][1]))} non-zero" for n in names]
    fig = make_subplots(rows=max(len(names), 1), cols=1, shared_xaxes=True, subplot_titles=titles,
                        vertical_spacing=0.12)
    for row, name in enumerate(names, start=1):
        pos, alpha = alphas[name]
        xs = np.repeat(pos, 3).astype(float)
        ys = np.column_stack([np.zeros_like(alpha), alpha, np.full_like(alpha, np.nan)]).ravel()
        xs[2::3] = np.nan
        fig.add_scatter(x=xs, y=ys, mode="lines", line=dict(color=color(name), width=2), showlegend=False,
                        row=row, col=1)
        nz = alpha > 0
        fig.add_scatter(x=pos[nz], y=alpha[nz], mode="markers", marker=_marker(name, 10),
                        name=name, row=row, col=1)
    fig.update_layout(title_text="Sparsity of alpha (paper Fig. 2e)", showlegend=False)
    fig.update_xaxes(title_text="centre (test point index)", row=len(names), col=1)
    fig = _finish(fig, height=max(320, 170 * len(names) + 80), legend_rows=0)
    fig.update_annotations(font_size=BASE_FONT)
    return fig


def duality_gaps(histories, x_axis="iteration"):
    """Relative duality gap |<g, d_FW>| / |F| on log-log axes, drop and swap steps marked
    (paper Fig. 2f). The log x-axis (iteration + 1) keeps a 12-step run as visible as a
    2000-step one."""
    label = "iteration + 1 (log scale)" if x_axis == "iteration" else "seconds (log scale)"
    fig = _figure("Frank-Wolfe relative duality gap (paper Fig. 2f)", label, "relative duality gap",
                  yaxis_type="log", xaxis_type="log")
    gaps = []
    for name, hist in histories.items():
        x = np.arange(1, len(hist) + 1) if x_axis == "iteration" else np.maximum(hist.elapsed, 1e-5)
        gap = np.maximum(np.asarray(hist.gap) / np.maximum(np.abs(hist.objective), 1e-300), 1e-16)
        gaps.append(gap)
        fig.add_scatter(x=x, y=gap, name=name, mode="lines", line=_line(name), legendgroup=name)
        for kind, symbol in STEP_MARKERS.items():
            at = hist.step_kind == kind
            if at.any():
                fig.add_scatter(x=x[at], y=gap[at], mode="markers", name=f"{name}: {kind} steps",
                                legendgroup=name, showlegend=False,
                                marker=dict(symbol=symbol, color=color(name), size=11, line=dict(width=2)))
    for kind, symbol in STEP_MARKERS.items():  # one legend entry per step kind, in each solver's colour
        fig.add_scatter(x=[None], y=[None], mode="markers", name=f"{kind} step",
                        marker=dict(symbol=symbol, color="#444444", size=11, line=dict(width=2)))
    fig = _finish(fig, legend_rows=2)
    _clean_log_axis(fig.layout.yaxis, _decades(np.concatenate(gaps)) if gaps else None)
    return fig


def active_set_sizes(histories):
    fig = _figure("Active-set size |S_t|", "iteration + 1 (log scale)", "active atoms", xaxis_type="log")
    for name, hist in histories.items():
        fig.add_scatter(x=np.arange(1, len(hist) + 1), y=hist.active_size, name=name,
                        line=dict(**_line(name), shape="hv"))
    return _finish(fig)


def inner_iterations(histories):
    """FCFWCS: corrective Newton iterations per outer step."""
    fig = _figure("Corrective (inner) Newton iterations per Frank-Wolfe step", "outer iteration",
                  "inner iterations")
    for name, hist in histories.items():
        fig.add_bar(x=np.arange(len(hist) - 1), y=hist.inner_iterations[:-1], name=name,
                    marker_color=color(name))
    return _finish(fig)


def _typed(values):
    """A float array as plotly's base64 typed array (float32): compact and validated in O(1)."""
    data = np.ascontiguousarray(values, dtype="<f4")
    return dict(dtype="f4", bdata=base64.b64encode(data.tobytes()).decode("ascii"))


def _stems(x, heights):
    """x, y of vertical segments from 0 to each height, separated by NaN (one trace),
    and marker sizes that draw a dot at the top of each stem only."""
    n = len(x)
    xs = np.column_stack([x, x, np.full(n, np.nan)]).ravel()
    ys = np.column_stack([np.zeros(n), heights, np.full(n, np.nan)]).ravel()
    return xs, ys, np.tile([0.0, 7.0, 0.0], n)


def _replay_caption(name, frame, last):
    reached = f"reached by a {frame.step}" if frame.step else "the starting vertex"
    return (f"<b>{name}, iteration t = {frame.t}</b> of {last}: {len(frame.atoms)} active atoms, "
            f"F = {frame.objective:.6g}, gap = {frame.gap:.2g}<br>mu_t is {reached}: "
            f"{len(frame.entered)} atom(s) entered, {len(frame.left)} left")


def _replay_traces(frame, positions, name, last, corner):
    """The four traces a replay frame updates, as plain dicts: curve, stems, changes, caption."""
    positions = np.asarray(positions, dtype=float)
    x = positions[frame.atoms]
    stem_x, stem_y, stem_size = _stems(x, frame.alpha)
    entered = np.isin(frame.atoms, frame.entered)
    change_x = np.concatenate([x[entered], positions[frame.left]])
    change_y = np.concatenate([frame.alpha[entered], frame.left_alpha])
    is_new = np.arange(len(change_x)) < entered.sum()
    curve = dict(type="scatter", mode="lines", name="w_t(x), the iterate",
                 line=dict(color="#CC79A7", width=3))
    if frame.curve is not None:  # x (the grid) is set once, in the figure's data
        curve["y"] = _typed(frame.curve)
    return [
        curve,
        dict(type="scatter", x=_typed(stem_x), y=_typed(stem_y), mode="lines+markers",
             name="atoms (height alpha_l)", line=dict(color="#777777", width=2),
             marker=dict(color="#777777", size=_typed(stem_size)),
             hovertemplate="centre %{x:.3g}<br>alpha %{y:.3g}<extra></extra>"),
        dict(type="scatter", x=_typed(change_x), y=_typed(change_y), mode="markers",
             name="entered / left",
             marker=dict(symbol=np.where(is_new, "triangle-up", "x").tolist(), size=15,
                         color=np.where(is_new, "#009E73", "#D55E00").tolist(), line=dict(width=1))),
        dict(type="scatter", x=[corner[0]], y=[corner[1]], mode="text", showlegend=False, hoverinfo="skip",
             text=[_replay_caption(name, frame, last)], textposition="bottom right",
             textfont=dict(size=14)),
    ]


def _replay_menus(frames, i, play, jump):
    """Play/Pause, and Back/Step buttons that animate to the neighbours of frame i.

    Every frame's layout carries these menus, so after any frame is shown (played,
    stepped, or picked on the slider) Back and Step point at its neighbours: Step
    moves exactly one frame, in the browser.
    """
    back, ahead = frames[max(i - 1, 0)].t, frames[min(i + 1, len(frames) - 1)].t
    buttons = [dict(label="Play", method="animate", args=[None, play]),
               dict(label="Pause", method="animate", args=[[None], jump]),
               dict(label="Back", method="animate", args=[[str(back)], jump]),
               dict(label="Step", method="animate", args=[[str(ahead)], jump])]
    return [dict(type="buttons", direction="left", x=0, y=-0.12, xanchor="left", yanchor="top",
                 pad=dict(t=10, r=10), showactive=False, buttons=buttons)]


def replay_animation(frames, positions, name, grid=None, truth=None, x_title=None, start=0,
                     frame_ms=400):
    """A Frank-Wolfe run as one animated figure: Play/Pause, Back/Step and a slider, all in the browser.

    Every frame draws the iterate mu_t of ``frames[i]`` (see ``covshift.weights.replay``):
    the atoms as stems at their centres' positions with height alpha_l, the atoms that
    entered (green triangle) and left (red x, at their previous alpha) in the step that
    led to mu_t, w_t(x) on ``grid`` (1-D) with the true ratio for reference, and a
    caption in the plot describing the same iterate.

    The figure is built from plain dicts with base64 float32 arrays: with hundreds of
    frames, plotly's object construction would otherwise take seconds.

    Parameters
    ----------
    frames : list of ReplayFrame
    positions : array (n_atoms,)
        Where to draw each atom: its centre's x (1-D) or an index.
    name : str           solver name, for the caption
    grid, truth : arrays, optional    x grid of the curves and the true ratio on it
    x_title : str, optional           axis title (say what the axis is when it is an index)
    start : int          index of the frame shown first (and the slider's position)
    frame_ms : int       milliseconds per frame when playing
    """
    last = frames[-1].t
    tops = [f.alpha.max(initial=0) for f in frames] + [f.left_alpha.max(initial=0) for f in frames]
    tops += [f.curve.max() for f in frames if f.curve is not None]
    static = []
    if truth is not None and grid is not None:
        tops.append(np.max(truth))
        static.append(dict(type="scatter", x=_typed(grid), y=_typed(truth), mode="lines", name="true ratio",
                           line=dict(color=TRUTH, dash="dash")))
    top = 1.3 * max(max(tops), 1e-12)  # room for the caption above the curves
    x_all = np.asarray(positions, dtype=float) if grid is None else np.asarray(grid, dtype=float)
    corner = (float(x_all.min()), top)
    jump = dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))
    play = dict(frame=dict(duration=frame_ms, redraw=True), transition=dict(duration=0), fromcurrent=True)
    data = _replay_traces(frames[start], positions, name, last, corner)
    if grid is not None:
        data[0]["x"] = _typed(grid)
    layout = dict(_STYLE, title=dict(_LAYOUT["title"], text=f"Replay of {name}: its iterates mu_t, step by step"),
                  height=_HEIGHT + 130, margin=dict(_LAYOUT["margin"], t=125),
                  xaxis=dict(title=dict(text=x_title or "x")),
                  yaxis=dict(title=dict(text="w(x) and alpha_l"), range=[0, top]),
                  legend=dict(orientation="h", x=0, y=1.02, yanchor="bottom"),
                  updatemenus=_replay_menus(frames, start, play, jump),
                  sliders=[dict(active=start, x=0.3, len=0.7, y=-0.05, yanchor="top", pad=dict(t=30),
                                currentvalue=dict(prefix="iteration t = ", xanchor="right"),
                                steps=[dict(label=str(f.t), method="animate", args=[[str(f.t)], jump])
                                       for f in frames])])
    spec = dict(data=data + static, layout=layout,
                frames=[dict(name=str(f.t), traces=[0, 1, 2, 3],
                             data=_replay_traces(f, positions, name, last, corner),
                             layout=dict(updatemenus=_replay_menus(frames, i, play, jump)))
                        for i, f in enumerate(frames)])
    return _trusted_figure(spec)


def _trusted_figure(spec):
    """``go.Figure(spec)`` for a spec this module wrote, without validating it property by property.

    Validating a replay's hundred frames takes 0.1-0.9 s and changes nothing in them (a test
    compares the JSON with the validated figure's); the template is set as :func:`_white` does.
    Later changes to the figure (e.g. :func:`presentation`) are validated as usual.
    """
    fig = go.Figure(spec, _validate=False)
    fig._validate = True
    return _white(fig)


def cv_curve(cv_results):
    """Likelihood cross-validation curve of sigma (held-out log-likelihood)."""
    fig = _figure("Choosing sigma by likelihood cross-validation", "sigma (log scale)", "held-out log-likelihood",
                  xaxis_type="log")
    sigma = np.asarray(cv_results["sigma"])
    mean = np.asarray(cv_results["mean_log_likelihood"], dtype=float)
    std = np.asarray(cv_results["std_log_likelihood"], dtype=float)
    finite = np.isfinite(mean)
    fig.add_scatter(x=sigma[finite], y=mean[finite], mode="lines+markers", name="mean over folds",
                    error_y=dict(type="data", array=np.nan_to_num(std[finite])), line=dict(color=TRAIN, width=3))
    fig.add_vline(x=cv_results["best_sigma"], line=dict(color=TEST, dash="dash", width=3),
                  annotation_text="chosen")
    return _finish(fig)


def regression_fits(x, y_true, fits, output=0, labelled=None, heading="Predictions on the test inputs"):
    """Predictions on the test inputs: GPR with a 2-std band, TGPs coloured by certainty phi
    (colour scale stretched over the observed range of phi). ``labelled`` = (x, y) of the
    revealed target labels, drawn as large black rings."""
    order = np.argsort(x)
    fig = _figure(heading, "x", f"y{output}")
    fig.add_scatter(x=x, y=y_true[:, output], mode="markers", name="test truth",
                    marker=dict(color="#BBBBBB", size=6))
    phis = [f["certainty"] for f in fits.values() if f.get("certainty") is not None]
    lo = min(float(np.min(p)) for p in phis) if phis else 0.0
    hi = max(float(np.max(p)) for p in phis) if phis else 1.0
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
                            marker=dict(color=fit["certainty"], colorscale="Viridis", cmin=lo, cmax=hi if hi > lo else lo + 1e-9,
                                        size=9, symbol=style(name)["symbol"], line=dict(width=1, color=color(name)),
                                        colorbar=dict(title="phi", len=0.7, x=1.02)))
        else:
            fig.add_scatter(x=x[order], y=mean[order], name=name, mode="lines", line=_line(name, 4))
    if labelled is not None:
        fig.add_scatter(x=labelled[0], y=labelled[1][:, output], mode="markers", name="labelled target points",
                        marker=dict(color="#000000", size=14, symbol="circle-open", line=dict(width=3)))
    return _finish(fig, legend_rows=1 + len(fits) // 3)


def error_vs_certainty(errors, certainty, name):
    fig = _figure(f"{name}: error vs certainty", "certainty phi", "Euclidean error")
    fig.add_scatter(x=certainty, y=errors, mode="markers", marker=_marker(name, 8, opacity=0.6), name=name)
    fig = _finish(fig, height=400, legend_rows=0)
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
                            marker=_marker(name, 7, opacity=0.6), row=1, col=k + 1)
    fig.update_layout(title_text="Predicted vs true, per output")
    fig = _finish(fig, height=420, legend_rows=1 + len(predictions) // 4)
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
    _white(fig).update_layout(title="Digits: true and reconstructed centre pixels",
                              font=dict(size=BASE_FONT), height=120 * len(rows) + 60, margin=dict(l=20, r=120, t=50, b=10))
    fig.update_annotations(font_size=BASE_FONT)
    return fig


def scaling(results):
    """Run time vs n on log axes (paper Fig. 2g): results = {name: (sizes, seconds)}."""
    fig = _figure("Run time vs sample size (paper Fig. 2g)", "n_tr = n_te", "seconds",
                  xaxis_type="log", yaxis_type="log")
    for name, (sizes, seconds) in results.items():
        fig.add_scatter(x=sizes, y=seconds, mode="lines+markers", name=name, line=_line(name),
                        marker=_marker(name, 9))
    return _finish(fig)


def format_p(p):
    """A p-value for people: 2 significant digits, or "< 1e-4"."""
    if p is None or not np.isfinite(p):
        return ""
    return "< 1e-4" if p < 1e-4 else f"{p:.2g}"


def format_number(value, spec=".3g"):
    """A table cell: blank for missing values, else ``format(value, spec)``."""
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    return format(value, spec)


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
    fig = _finish(fig)
    # slanted method names need the room below the bars: the short legend goes to the top right
    fig.update_layout(legend=dict(orientation="h", x=1, xanchor="right", y=1.0, yanchor="bottom"),
                      margin=dict(t=90, b=40))
    fig.update_xaxes(tickangle=-30, automargin=True)
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
    return _finish(fig, legend_rows=2)


def reproduction_gaps(trace, title="Relative duality gap per iteration (seed 0)"):
    """Relative duality gap against the iteration, log-log, one line per solver (FW paper Fig. 2f)."""
    fig = _figure(title, "iteration", "gap / |F|")
    dashes = ["solid", "dash", "dot", "dashdot"]
    for i, (name, curve) in enumerate(trace.items()):
        fig.add_scatter(x=np.asarray(curve["iteration"]) + 1, y=curve["value"], mode="lines", name=name,
                        line=dict(color=color(name), dash=dashes[i % len(dashes)]))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return _finish(fig, legend_rows=2)


# ------------------------------------------- classification under covariate shift (issue 14)
CLASS_COLORS = ("#0072B2", "#E69F00")  # class 0, class 1 (Okabe-Ito blue, orange)
METHOD_COLORS.update({"iid": "#999999", "integrated": "#CC79A7", "two-stage LogisticRatio": "#DDCC77",
                      "two-stage FCFWCS": "#009E73", "two-stage KMM": "#332288"})
_CLASSIFIER_DASH = {"iid": "dot", "two-stage": "dash", "integrated": "solid"}


def _classifier_style(name):
    """Colour and dash of a classifier; "two-stage (KMM)" is drawn like "two-stage KMM"."""
    key = name.replace(" (", " ").replace(")", "")
    dash = next((d for prefix, d in _CLASSIFIER_DASH.items() if name.startswith(prefix)), "solid")
    return color(key), dash


def classification_map(X_tr, y_tr, X_te, y_te, xs, ys, scores, p_test=None, weights=None,
                       weights_name="", true_boundary=None, title="Decision boundaries under covariate shift"):
    """Training and test points, each classifier's boundary f(x) = 0, the selector's p(test | x) behind.

    Parameters
    ----------
    X_tr, X_te : (n, 2) inputs; y_tr, y_te : labels in {0, 1}
    xs, ys : grid axes; scores : {name: (len(ys), len(xs)) decision values}
    p_test : grid of p(test | x) or None
    weights : training-point weights (marker area proportional to weight), or None
    true_boundary : (x1, x2) arrays of the true class boundary, or None
    """
    fig = _figure(title, "x1", "x2", height=620)
    if p_test is not None:
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=p_test, zmin=0, zmax=1, colorscale="Greens", opacity=0.55,
                                 name="p(test | x)", colorbar=dict(title="p(test|x)", thickness=12, len=0.6),
                                 hovertemplate="p(test | x) = %{z:.2f}<extra></extra>"))
    sizes = np.full(len(X_tr), 7.0)
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        sizes = 4.0 + 14.0 * np.sqrt(w / max(w.max(), 1e-12))
    y_tr, y_te = np.asarray(y_tr).ravel(), np.asarray(y_te).ravel()
    for label in (0, 1):
        on = y_te == label
        fig.add_trace(go.Scatter(x=X_te[on, 0], y=X_te[on, 1], mode="markers", name=f"test, class {label}",
                                 marker=dict(symbol="x-thin", size=7, line=dict(width=1.5, color=CLASS_COLORS[label]))))
    for label in (0, 1):
        on = y_tr == label
        fig.add_trace(go.Scatter(x=X_tr[on, 0], y=X_tr[on, 1], mode="markers", name=f"training, class {label}",
                                 marker=dict(size=sizes[on], color=CLASS_COLORS[label], opacity=0.8,
                                             line=dict(width=0.5, color="white")),
                                 hovertemplate=(f"weight ({weights_name}) %{{customdata:.2f}}<extra></extra>"
                                                if weights is not None else None),
                                 customdata=None if weights is None else np.asarray(weights)[on]))
    for name, grid in scores.items():
        line_color, dash = _classifier_style(name)
        fig.add_trace(go.Contour(x=xs, y=ys, z=grid, contours=dict(start=0, end=0, size=1, coloring="none"),
                                 line=dict(color=line_color, dash=dash, width=3), showscale=False,
                                 showlegend=False, legendgroup=name, hoverinfo="skip", name=name))
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=f"boundary: {name}", legendgroup=name,
                                 line=dict(color=line_color, dash=dash, width=3)))
    if true_boundary is not None:
        x_true, y_true = (np.asarray(a, dtype=float) for a in true_boundary)
        y_true = np.where((y_true >= ys[0]) & (y_true <= ys[-1]), y_true, np.nan)  # stay inside the map
        fig.add_trace(go.Scatter(x=x_true, y=y_true, mode="lines", name="true boundary",
                                 line=dict(color=TRUTH, width=1.5)))
    fig.update_xaxes(range=[xs[0], xs[-1]])
    fig.update_yaxes(range=[ys[0], ys[-1]])
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.12, x=0), margin=dict(t=50))
    return fig


def fig3_curves(results, methods=None, title="Reduction of 1-AUC risk relative to iid (Fig. 3 protocol)"):
    """One panel per task: mean reduction 1 - (1 - AUC) / (1 - AUC_iid) against the number of
    unlabelled test inputs, with +- one standard deviation over the seeds as error bars."""
    tasks = results["tasks"]
    methods = methods or [m for m in results["methods"] if m != "iid"]
    fig = make_subplots(rows=1, cols=len(tasks), subplot_titles=[
        f"{t['label']} ({t['kernel']})" for t in tasks.values()], horizontal_spacing=0.07)
    for col, task in enumerate(tasks.values(), start=1):
        fig.add_hline(y=0, line=dict(color="#999999", dash="dot"), row=1, col=col)
        for method in methods:
            entry = task["methods"][method]
            line_color = color(method)
            fig.add_trace(go.Scatter(
                x=task["sizes"], y=entry["mean"], error_y=dict(type="data", array=entry["sd"], thickness=1),
                mode="lines+markers", name=method, legendgroup=method, showlegend=col == 1,
                line=dict(color=line_color, dash="solid" if method == "integrated" else "dash")), row=1, col=col)
        fig.update_xaxes(type="log", title_text="unlabelled test inputs", tickvals=task["sizes"],
                         ticktext=[str(s) for s in task["sizes"]], row=1, col=col)
    fig.update_yaxes(title_text="risk reduction", row=1, col=1)
    fig.update_layout(title_text=title, height=460, **_LAYOUT)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.2, x=0), margin=dict(t=80))
    return fig


# ----------------------------------------------------------------- domain transfer (issue 15)
METHOD_COLORS.update({"source only": "#999999", "target only": "#E69F00", "pooled": "#56B4E9",
                      "domain transfer": "#CC79A7"})


def transfer_curves(curves):
    """Target accuracy or Hamming loss vs the number l of labelled target examples (mean ± sd).

    ``curves`` is one task of bench/transfer.py's output: {"metric", "l", "n_seeds",
    "methods": {name: {"mean": [...], "sd": [...]}}}.
    """
    metric = curves["metric"]
    better = "higher" if metric == "accuracy" else "lower"
    fig = _figure(f"Target {metric} vs l ({curves['n_seeds']} seeds)", "l (labelled target examples, log scale)",
                  f"target {metric} ({better} is better)", xaxis_type="log")
    for name, values in curves["methods"].items():
        fig.add_scatter(x=curves["l"], y=values["mean"], mode="lines+markers", name=name,
                        error_y=dict(type="data", array=values["sd"], visible=True, thickness=1),
                        line=dict(color=color(name)))
    fig.update_xaxes(tickvals=curves["l"])
    return fig


def _mark(label, truth):
    ok = label == truth
    return f"<span style='color:{'#009E73' if ok else '#D55E00'}'>{label}{'' if ok else ' ✗'}</span>"


def transfer_digit_grid(images, truth, predictions, n_cols=8, n_rows=2):
    """Target digits with each model's prediction; wrong ones in orange with ✗.

    images: (n, 8, 8) in [0, 1]; truth: labels (strings); predictions: {model: labels}.
    """
    n = min(len(images), n_cols * n_rows)
    rows = (n + n_cols - 1) // n_cols
    titles = []
    for i in range(n):
        parts = [f"{name[0].upper()}: {_mark(str(p[i]), str(truth[i]))}" for name, p in predictions.items()]
        titles.append(f"true {truth[i]}<br>" + "<br>".join(parts))
    fig = make_subplots(rows=rows, cols=n_cols, subplot_titles=titles, horizontal_spacing=0.02,
                        vertical_spacing=0.2 if rows > 1 else 0.05)
    for i in range(n):
        fig.add_heatmap(z=images[i][::-1], colorscale="gray_r", zmin=0, zmax=1, showscale=False,
                        hovertemplate="pixel %{z:.2f}<extra></extra>", row=i // n_cols + 1, col=i % n_cols + 1)
    fig.update_annotations(font_size=11)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    for i in range(1, n + 1):  # square pixels
        fig.update_yaxes(scaleanchor=f"x{'' if i == 1 else i}", constrain="domain", row=(i - 1) // n_cols + 1,
                         col=(i - 1) % n_cols + 1)
    legend = ", ".join(f"{name[0].upper()} = {name}" for name in predictions)
    _white(fig).update_layout(title=f"Target digits ({legend}; ✗ = mistake)",
                              height=170 * rows + 80, margin=dict(l=10, r=10, t=110, b=10))
    return fig


def cutting_plane_progress(history, epsilon):
    """Violation of the most violated constraint and working-set size per cutting-plane iteration."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("most violated constraint (dashed: epsilon)", "working-set size"))
    it = np.arange(1, len(history.violation) + 1)
    fig.add_scatter(x=it, y=np.maximum(history.violation, 1e-12), mode="lines+markers", name="violation",
                    line=dict(color=color("domain transfer")), row=1, col=1)
    fig.add_hline(y=epsilon, line_dash="dash", line_color=TRUTH, row=1, col=1)
    fig.add_scatter(x=it, y=history.working_set_size, mode="lines+markers", name="constraints in W",
                    line=dict(color=color("pooled")), row=1, col=2)
    fig.update_yaxes(type="log", title_text="violation", row=1, col=1)
    fig.update_yaxes(title_text="constraints", row=1, col=2)
    fig.update_xaxes(title_text="iteration")
    _white(fig).update_layout(height=300, showlegend=False, title="Cutting-plane progress",
                              margin=dict(l=50, r=20, t=80, b=45))
    return fig


def replay_figure(estimator, X_tr, X_te, density_ratio=None, max_frames=MAX_FRAMES, n_grid=150):
    """The animated replay figure of a fitted run (:func:`replay_animation`).

    1-D inputs: atoms at their centres' x, w_t(x) on a grid over the data and, if
    ``density_ratio`` is given, the true ratio. More dimensions: atoms at the index of
    their centre among the test points, and the axis says so.

    Returns
    -------
    figure : plotly Figure
    n_frames : int     frames drawn (<= max_frames)
    one_d : bool       whether the input-space view was drawn
    """
    one_d = np.shape(X_tr)[1] == 1
    grid = truth = None
    if one_d:
        x = np.concatenate([np.ravel(X_tr), np.ravel(X_te)])
        grid = np.linspace(x.min(), x.max(), n_grid)
        truth = None if density_ratio is None else density_ratio(grid[:, None])
    frames = replay_frames(estimator, None if grid is None else grid[:, None], max_frames)
    if one_d:
        positions, x_title = estimator.centers_[:, 0], "x"
    else:
        positions, x_title = estimator.center_index_, "centre: index j of the test point x_te_j"
    figure = replay_animation(frames, positions, type(estimator).__name__, grid, truth, x_title)
    return figure, len(frames), one_d
