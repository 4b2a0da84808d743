"""The step-by-step replay of a Frank-Wolfe run, drawn from its history."""

import base64

import numpy as np
import plotly.graph_objects as go

from covshift.weights.replay import MAX_FRAMES, replay_frames
from teaching.figures.base import HEIGHT, LAYOUT, STYLE, TRUTH, color, presentation


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
    layout = dict(STYLE, title=dict(LAYOUT["title"], text=f"Replay of {name}: its iterates mu_t, step by step"),
                  height=HEIGHT + 130, margin=dict(LAYOUT["margin"], t=125),
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
    compares the JSON with the validated figure's); the template is plotly's default (set once in :mod:`.base`).
    Later changes to the figure (e.g. :func:`presentation`) are validated as usual.
    """
    fig = go.Figure(spec, _validate=False)
    fig._validate = True
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
