"""Replay a fitted Frank-Wolfe KLIEP run from its history, every step, without solving again.

A step t -> t + 1 of FWCS / AFWCS / PFWCS / FCFWCS changes the iterate mu in a sparse way:
a towards step shrinks every active weight by the same factor (1 - rho) and raises one atom,
an away step grows them all by (1 + rho) and lowers one, a pairwise step moves weight between
two atoms only (fw-covariate-shift-iw-smtgp, eqs. 22-31). :func:`replay_steps` records each
step as ``mu_{t+1} = scale_t * mu_t`` followed by new weights for the few atoms that changed
otherwise (0: the atom left), so a whole run is replayed from a few numbers per step (the
teaching app draws it in the browser), and :func:`replay_iterates` rebuilds every mu_t from them.
"""

from dataclasses import dataclass

import numpy as np

#: An atom whose weight equals scale * its previous weight within this relative tolerance is
#: not listed as touched (float64 round-off of the solver's own update).
SCALE_RTOL = 1e-12


@dataclass
class ReplaySteps:
    """The iterates of a run as its first iterate and one sparse change per step.

    Attributes
    ----------
    start_atom, start_mu : arrays      mu_0 (its active atoms and their weights)
    scale : float array (T,)           mu_{t+1} = scale[t] * mu_t, then ...
    touched_start : int array (T + 1)  ... the atoms ``touched_atom[s:e]`` get the weights
    touched_atom, touched_mu : arrays  ``touched_mu[s:e]`` (0: the atom left the active set),
                                       with s, e = touched_start[t], touched_start[t + 1]
    """

    start_atom: np.ndarray
    start_mu: np.ndarray
    scale: np.ndarray
    touched_start: np.ndarray
    touched_atom: np.ndarray
    touched_mu: np.ndarray

    def __len__(self):
        return len(self.scale)


def _history(estimator_or_history):
    history = getattr(estimator_or_history, "history_", estimator_or_history)
    if history is None or not hasattr(history, "iterate"):
        raise ValueError("replay needs a fitted Frank-Wolfe estimator (FWCS, AFWCS, PFWCS or FCFWCS) "
                         "or its history_.")
    return history


def _common_scale(before, after):
    """The factor that maps most weights of ``before`` to ``after`` (atoms active in both): their median ratio."""
    both = (before > 0) & (after > 0)
    return float(np.median(after[both] / before[both])) if both.any() else 1.0


def replay_steps(estimator):
    """The sparse changes of a fitted run, one per step (see :class:`ReplaySteps`).

    Parameters
    ----------
    estimator : fitted FWCS, AFWCS, PFWCS or FCFWCS, or its ``history_`` (a FrankWolfeHistory)

    Returns
    -------
    ReplaySteps
        :func:`replay_iterates` rebuilds every iterate of the history from it.
    """
    history = _history(estimator)
    scales, starts, atoms, mus = [], [0], [], []
    before = history.mu_at(0)
    for t in range(len(history) - 1):
        after = history.mu_at(t + 1)
        scale = _common_scale(before, after)
        changed = (before > 0) | (after > 0)
        off = changed & ~np.isclose(after, scale * before, rtol=SCALE_RTOL, atol=0.0)
        touched = np.flatnonzero(off)
        scales.append(scale)
        atoms.append(touched)
        mus.append(after[touched])
        starts.append(starts[-1] + touched.size)
        before = after
    start_atom, start_mu = history.iterate(0)
    empty = np.zeros(0, dtype=int)
    return ReplaySteps(start_atom.copy(), start_mu.copy(), np.asarray(scales, dtype=float),
                       np.asarray(starts, dtype=int),
                       np.concatenate(atoms) if atoms else empty,
                       np.concatenate(mus) if mus else np.zeros(0))


def replay_iterates(steps, n_atoms):
    """Every iterate mu_t (dense, length ``n_atoms``) rebuilt from :func:`replay_steps`, t = 0, 1, ..."""
    mu = np.zeros(n_atoms)
    mu[steps.start_atom] = steps.start_mu
    yield mu.copy()
    for t in range(len(steps)):
        mu *= steps.scale[t]
        rows = slice(steps.touched_start[t], steps.touched_start[t + 1])
        mu[steps.touched_atom[rows]] = steps.touched_mu[rows]
        yield mu.copy()


def step_changes(estimator, t):
    """What step t -> t + 1 did to the active set: (atoms that entered, atoms that left)."""
    history = _history(estimator)
    before, _ = history.iterate(t)
    after, _ = history.iterate(t + 1)
    return np.setdiff1d(after, before), np.setdiff1d(before, after)
