"""A planar two-link arm (the HumanEva stand-in of the Frank-Wolfe paper): joint angles to positions, with a shift in pose."""

from dataclasses import dataclass

import numpy as np

from .._validation import as_generator, check_int, check_positive
from .shift import SelectionRatio, ShiftData, check_scale

#: Link lengths of the planar arm (upper arm, forearm).
ARM_LINKS = (1.0, 0.8)


def arm_forward(angles, links=ARM_LINKS):
    """Hand position of a planar two-link arm.

    Parameters
    ----------
    angles : ndarray of shape (n, 2)
        Joint angles (shoulder, elbow) in radians.
    links : tuple of float, default ARM_LINKS
        Lengths of the upper arm and the forearm.

    Returns
    -------
    ndarray of shape (n, 2)
        The hand positions.
    """
    q1, q2 = angles[:, 0], angles[:, 1]
    l1, l2 = links
    return np.column_stack([l1 * np.cos(q1) + l2 * np.cos(q1 + q2),
                            l1 * np.sin(q1) + l2 * np.sin(q1 + q2)])


def _arm_poses(n, rng):
    """Poses of the pool: shoulder q1 ~ U(0, pi), elbow ``|q2|`` ~ U(0.2, 2.6) with a random sign
    (elbow up or down, the two inverse-kinematics solutions of one hand position)."""
    q1 = rng.uniform(0.0, np.pi, n)
    q2 = rng.uniform(0.2, 2.6, n) * rng.choice([-1.0, 1.0], n)
    return np.column_stack([q1, q2])


@dataclass(frozen=True)
class _ArmSelection:
    """P(train | x) = floor + (1 - 2 floor) / (1 + exp(shift * x_1)) on the hand's first coordinate:
    training favours the left of the workspace, test the right (picklable)."""

    shift: float
    floor: float = 0.05

    def __call__(self, X):
        x1 = np.asarray(X, dtype=float).reshape(len(X), -1)[:, 0]
        return self.floor + (1.0 - 2.0 * self.floor) * 0.5 * (1.0 - np.tanh(0.5 * self.shift * x1))


def _arm_selection_mass(selection, noise, n_nodes=96, n_noise=24):
    """Z = E_pool[q(x)] by Gauss-Legendre quadrature over the two angles and Gauss-Hermite
    quadrature over the hand noise (exact to round-off for these smooth integrands)."""
    u, wu = np.polynomial.legendre.leggauss(n_nodes)
    h, wh = np.polynomial.hermite_e.hermegauss(n_noise)
    q1 = 0.5 * np.pi * (u + 1.0)
    total = 0.0
    for sign in (-1.0, 1.0):
        q2 = sign * (1.4 + 1.2 * u)
        A1, A2 = np.meshgrid(q1, q2, indexing="ij")
        x1 = arm_forward(np.column_stack([A1.ravel(), A2.ravel()]))[:, 0]
        inner = selection((x1[:, None] + noise * h[None, :]).reshape(-1, 1)).reshape(len(x1), -1) @ wh
        inner /= np.sqrt(2.0 * np.pi)
        total += 0.5 * np.sum(np.outer(wu, wu).ravel() * inner) / 4.0
    return float(total)


def _arm_inputs(angles, noise, n_distractors, rng):
    hand = arm_forward(angles) + rng.normal(0.0, noise, (len(angles), 2))
    return np.hstack([hand, rng.normal(0.0, 0.5, (len(angles), n_distractors))])


def _select_poses(n, accept, noise, n_distractors, rng):
    """Draw n pool poses accepted with probability accept(x) (exact rejection sampling)."""
    X_parts, Y_parts, count = [], [], 0
    while count < n:
        angles = _arm_poses(max(2 * n, 64), rng)
        X = _arm_inputs(angles, noise, n_distractors, rng)
        keep = rng.random(len(X)) < accept(X)
        X_parts.append(X[keep])
        Y_parts.append(angles[keep])
        count += int(keep.sum())
    return np.vstack(X_parts)[:n], np.vstack(Y_parts)[:n]


def arm_pose(n_tr=300, n_te=300, noise=0.02, n_distractors=3, shift=2.0, random_state=0):
    """A small pose-estimation stand-in for HumanEva: a planar two-link arm.

    The pool of poses has shoulder angle q1 ~ U(0, pi) and elbow angle ``|q2|`` ~ U(0.2, 2.6)
    with elbow up or down at random; links 1.0 and 0.8. Inputs: the hand position plus
    N(0, noise^2) per coordinate, then ``n_distractors`` N(0, 0.5^2) features unrelated to
    the pose. Outputs: the joint angles (q1, q2) in radians. Elbow up and elbow down reach
    the same hand position, so the outputs are multi-valued given the inputs, as a pose is
    from image features.

    Covariate shift (the paper's subject/motion transfer in small): a pool pose is a
    training pose with probability q(x) = 0.05 + 0.9 / (1 + exp(shift * x_1)) of its noisy
    hand abscissa x_1 (training on the left of the workspace) and a test pose with
    probability 1 - q(x), so p(y | x) is the same in both. ``shift = 0`` is no shift. The
    true ratio is Z (1 - q) / ((1 - Z) q) with Z = E_pool[q] by quadrature.

    Parameters
    ----------
    n_tr : int, default 300
        Training poses.
    n_te : int, default 300
        Test poses.
    noise : float, default 0.02
        Standard deviation of the noise on the hand position.
    n_distractors : int, default 3
        Unrelated input features.
    shift : float, default 2.0
        Steepness of the selection (0: no shift).
    random_state : None, int, RandomState or Generator, default 0
        The seed.

    Returns
    -------
    ShiftData
        X of shape (n, 2 + n_distractors) and Y of shape (n, 2).
    """
    n_tr, n_te = check_int(n_tr, "n_tr", minimum=2), check_int(n_te, "n_te")
    n_distractors = check_int(n_distractors, "n_distractors", minimum=0)
    check_scale(noise, "noise", allow_zero=True)
    check_positive(shift, "shift", allow_zero=True)
    rng = as_generator(random_state)
    selection = _ArmSelection(float(shift))
    X_tr, Y_tr = _select_poses(n_tr, selection, noise, n_distractors, rng)
    X_te, Y_te = _select_poses(n_te, lambda X: 1.0 - selection(X), noise, n_distractors, rng)
    ratio = SelectionRatio(selection, _arm_selection_mass(selection, noise))
    return ShiftData(X_tr, Y_tr, X_te, Y_te, ratio, "Arm pose (2-link)")
