"""Replay a fitted Frank-Wolfe KLIEP run from its history, without solving again.

Each frame describes one iterate mu_t (row t of ``FrankWolfeHistory``): its atoms and
alpha_t = beta * mu_t, the objective and duality gap at mu_t, the step that led to it
(from row t - 1) with the atoms that entered and left, and, for 1-D inputs, the weight
function w_t(x) = sum_l alpha_l k(x, c_l) (eq. 1 of fw-covariate-shift-iw-smtgp) on a grid.
"""

from dataclasses import dataclass

import numpy as np

from .._validation import check_int
from ..kernels import gaussian_kernel

#: At most this many frames; longer runs are subsampled (first and last rows always kept).
MAX_FRAMES = 100


@dataclass
class ReplayFrame:
    """One iterate of a Frank-Wolfe run, as drawn by :func:`covshift.plots.replay_animation`.

    Attributes
    ----------
    t : int                  iteration (row of the history)
    atoms : int array        active atoms of mu_t (indices into ``centers_``)
    alpha : float array      their alpha_t
    entered, left : int arrays   atoms active in mu_t but not mu_{t-1}, and the reverse
    left_alpha : float array     alpha_{t-1} of the atoms that left
    objective, gap : float   F(mu_t) and the duality gap <g_t, d_t^FW>
    step : str               the step from t - 1 to t, e.g. "pairwise swap" ("" at t = 0)
    curve : float array or None   w_t on the grid (1-D inputs only)
    """

    t: int
    atoms: np.ndarray
    alpha: np.ndarray
    entered: np.ndarray
    left: np.ndarray
    left_alpha: np.ndarray
    objective: float
    gap: float
    step: str
    curve: np.ndarray = None


def frame_rows(n_rows, max_frames=MAX_FRAMES):
    """Rows to show: all of them, or ``max_frames`` evenly spaced ones including the first and last."""
    max_frames = check_int(max_frames, "max_frames", minimum=2)
    if n_rows <= max_frames:
        return np.arange(n_rows)
    return np.unique(np.linspace(0, n_rows - 1, max_frames).round().astype(int))


def replay_frames(estimator, grid=None, max_frames=MAX_FRAMES):
    """Frames of a fitted FWCS / AFWCS / PFWCS / FCFWCS run, rebuilt from ``history_``.

    Parameters
    ----------
    estimator : fitted Frank-Wolfe KLIEP estimator (``history_`` is a FrankWolfeHistory)
    grid : array of shape (m, d), optional
        Points at which to evaluate w_t(x) in every frame (e.g. a 1-D grid).
    max_frames : int
        Longer runs are subsampled to this many frames (see :func:`frame_rows`).

    Returns
    -------
    list of :class:`ReplayFrame`
    """
    history = getattr(estimator, "history_", None)
    if history is None or not hasattr(history, "iterate"):
        raise ValueError("replay needs a fitted Frank-Wolfe estimator (FWCS, AFWCS, PFWCS or FCFWCS).")
    frames = []
    for t in frame_rows(len(history), max_frames):
        atoms, mu = history.iterate(t)
        alpha = history.beta[atoms] * mu
        if t > 0:
            before, mu_before = history.iterate(t - 1)
            entered = np.setdiff1d(atoms, before)
            is_left = ~np.isin(before, atoms)
            left, left_alpha = before[is_left], history.beta[before[is_left]] * mu_before[is_left]
            step = f"{history.direction[t - 1]} step ({history.step_kind[t - 1]})"
        else:
            entered, left, left_alpha, step = atoms, atoms[:0], alpha[:0], ""
        curve = None
        if grid is not None:
            curve = gaussian_kernel(grid, estimator.centers_[atoms], estimator.sigma_) @ alpha
        frames.append(ReplayFrame(int(t), atoms, alpha, entered, left, left_alpha,
                                  float(history.objective[t]), float(history.gap[t]), step, curve))
    return frames
