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
from numba import njit

#: An atom whose weight equals scale * its previous weight within this relative tolerance is
#: not listed as touched (float64 round-off of the solver's own update).
SCALE_RTOL = 1e-12


@dataclass
class ReplaySteps:
    """The iterates of a run as its first iterate and one sparse change per step.

    Parameters
    ----------
    start_atom, start_mu : ndarray
        mu_0: its active atoms and their weights.
    scale : ndarray of shape (T,)
        mu_{t+1} = scale[t] * mu_t, then ...
    touched_start : ndarray of int, length T + 1
        ... the atoms ``touched_atom[s:e]`` get the weights ``touched_mu[s:e]`` (0: the atom
        left the active set), with s, e = touched_start[t], touched_start[t + 1].
    touched_atom, touched_mu : ndarray
        The changed atoms and their new weights, concatenated over the steps.
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


@njit(cache=True, nogil=True)
def _sparse_changes(iterate_start, iterate_atom, iterate_mu, n_atoms, rtol):
    """Per step t -> t + 1 of a history's sparse iterates: the common scale (the factor that maps most
    weights to their next ones: the median ratio over the atoms active in both; 1 if none) and the
    atoms whose new weight is not scale * old weight within ``rtol``, with their new weights.
    One compiled pass (a numpy loop over 2000 steps cost ~0.1 s, a third of a lesson view)."""
    n_steps = len(iterate_start) - 2
    before, after = np.zeros(n_atoms), np.zeros(n_atoms)
    first = slice(iterate_start[0], iterate_start[1])
    before[iterate_atom[first]] = iterate_mu[first]
    scales = np.ones(max(n_steps, 0))
    starts = np.zeros(max(n_steps, 0) + 1, np.int64)
    atoms, mus = np.empty(16, np.int64), np.empty(16)
    ratios = np.empty(n_atoms)
    for t in range(n_steps):
        after[:] = 0.0
        rows = slice(iterate_start[t + 1], iterate_start[t + 2])
        after[iterate_atom[rows]] = iterate_mu[rows]
        n_both = 0
        for l in range(n_atoms):
            if before[l] > 0 and after[l] > 0:
                ratios[n_both] = after[l] / before[l]
                n_both += 1
        scale = np.median(ratios[:n_both]) if n_both else 1.0
        scales[t] = scale
        count = starts[t]
        for l in range(n_atoms):
            if before[l] > 0 or after[l] > 0:
                expected = scale * before[l]
                if not abs(after[l] - expected) <= rtol * abs(expected):
                    if count == atoms.size:
                        atoms = np.concatenate((atoms, np.empty(atoms.size, np.int64)))
                        mus = np.concatenate((mus, np.empty(mus.size)))
                    atoms[count] = l
                    mus[count] = after[l]
                    count += 1
        starts[t + 1] = count
        before[:] = after
    return scales, starts, atoms[:starts[-1]].copy(), mus[:starts[-1]].copy()


def replay_steps(estimator):
    """The sparse changes of a fitted run, one per step (see :class:`ReplaySteps`).

    Parameters
    ----------
    estimator : FWCS, AFWCS, PFWCS, FCFWCS or FrankWolfeHistory
        A fitted Frank-Wolfe estimator, or its ``history_``.

    Returns
    -------
    ReplaySteps
        :func:`replay_iterates` rebuilds every iterate of the history from it.

    Examples
    --------
    >>> import numpy as np
    >>> from covshift import FCFWCS, data
    >>> from covshift.weights.replay import replay_iterates, replay_steps
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> fcfwcs = FCFWCS(sigma=0.3).fit(shift.X_tr, shift.X_te)
    >>> steps = replay_steps(fcfwcs)
    >>> iterates = list(replay_iterates(steps, len(fcfwcs.history_.beta)))
    >>> len(iterates) == len(fcfwcs.history_), bool(np.allclose(iterates[-1], fcfwcs.mu_))
    (True, True)
    """
    history = _history(estimator)
    scales, starts, atoms, mus = _sparse_changes(
        np.ascontiguousarray(history.iterate_start, dtype=np.int64),
        np.ascontiguousarray(history.iterate_atom, dtype=np.int64),
        np.ascontiguousarray(history.iterate_mu, dtype=np.float64), len(history.beta), SCALE_RTOL)
    start_atom, start_mu = history.iterate(0)
    return ReplaySteps(start_atom.copy(), start_mu.copy(), scales, starts.astype(int), atoms.astype(int), mus)


def replay_iterates(steps, n_atoms):
    """Every iterate mu_t (dense, length ``n_atoms``) rebuilt from :func:`replay_steps`, t = 0, 1, ...

    Parameters
    ----------
    steps : ReplaySteps
        From :func:`replay_steps`.
    n_atoms : int
        Number of atoms (``len(history_.beta)``).

    Yields
    ------
    ndarray of shape (n_atoms,)
        mu_t, a new array each time.
    """
    mu = np.zeros(n_atoms)
    mu[steps.start_atom] = steps.start_mu
    yield mu.copy()
    for t in range(len(steps)):
        mu *= steps.scale[t]
        rows = slice(steps.touched_start[t], steps.touched_start[t + 1])
        mu[steps.touched_atom[rows]] = steps.touched_mu[rows]
        yield mu.copy()


def step_changes(estimator, t):
    """What step t -> t + 1 did to the active set.

    Parameters
    ----------
    estimator : FWCS, AFWCS, PFWCS, FCFWCS or FrankWolfeHistory
        A fitted Frank-Wolfe estimator, or its ``history_``.
    t : int
        The step.

    Returns
    -------
    entered : ndarray of int
        Atoms that entered.
    left : ndarray of int
        Atoms that left.
    """
    history = _history(estimator)
    before, _ = history.iterate(t)
    after, _ = history.iterate(t + 1)
    return np.setdiff1d(after, before), np.setdiff1d(before, after)
