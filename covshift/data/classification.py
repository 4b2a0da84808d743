"""Binary classification data under sample-selection bias: the 2-D toy and scikit-learn's bundled tasks."""

from dataclasses import dataclass

import numpy as np

from .._validation import as_generator, check_int, check_positive
from .shift import ShiftData, input_selection, selection_bias

@dataclass(frozen=True)
class _SideSelection:
    """P(train | x) = 1 / (1 + exp(steepness * x_1)): training drawn mostly from the left (x_1 < 0)."""

    steepness: float

    def __call__(self, X):
        x1 = np.asarray(X, dtype=float).reshape(len(X), -1)[:, 0]
        return 1.0 / (1.0 + np.exp(np.clip(self.steepness * x1, -700, 700)))


def classification_boundary(x1):
    """The 2-D toy's true class boundary x_2 = 0.6 - 0.35 x_1^2 (rises on the left, falls on the right).

    Parameters
    ----------
    x1 : float or array-like
        First input.

    Returns
    -------
    float or ndarray
        x_2 on the boundary.
    """
    return 0.6 - 0.35 * np.asarray(x1, dtype=float) ** 2


def shift_classification_2d(n=400, steepness=1.5, label_noise=0.3, random_state=0):
    """A 2-D binary task whose training sample is selected from the left half (discriminative-covariate-shift).

    The pool is x ~ N(0, diag(1.5^2, 1)); class 1 lies above the curved boundary
    x_2 = 0.6 - 0.35 x_1^2, with P(y = 1 | x) = sigmoid((x_2 - boundary) / label_noise). Each point
    is a training point with probability q(x) = 1 / (1 + exp(steepness x_1)) (the selection
    sampler of :func:`selection_bias` with a one-sided selector), the rest is the test set. The
    boundary rises where the training points are and falls where the test points are, so a
    linear classifier fitted to the training sample is visibly wrong in the test region.
    p(y | x) is the same in both sets (a covariate shift); ``density_ratio`` is the exact ratio.

    Parameters
    ----------
    n : int, default 400
        Size of the pool.
    steepness : float, default 1.5
        Of the selection (0: a random split).
    label_noise : float, default 0.3
        Width of the sigmoid of P(y = 1 | x).
    random_state : None, int, RandomState or Generator, default 0
        The seed.

    Returns
    -------
    ShiftData
        Labels 0.0 and 1.0 (floats) in Y_tr, Y_te (shape (n, 1)).

    Examples
    --------
    >>> from covshift import data
    >>> toy = data.shift_classification_2d(random_state=0)
    >>> len(toy.X_tr) + len(toy.X_te), sorted(set(toy.Y_tr[:, 0].tolist()))
    (400, [0.0, 1.0])
    """
    n = check_int(n, "n", minimum=20)
    check_positive(steepness, "steepness", allow_zero=True)
    label_noise = check_positive(label_noise, "label_noise")
    rng = as_generator(random_state)
    X = rng.normal(size=(n, 2)) * [1.5, 1.0]
    margin = (X[:, 1] - classification_boundary(X[:, 0])) / label_noise
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-np.clip(margin, -700, 700)))).astype(float)[:, None]
    train, test, ratio = input_selection(X, _SideSelection(float(steepness)), rng)
    if train.sum() < 4 or test.sum() < 4 or len(np.unique(y[train])) < 2:
        raise ValueError("The selection left too few training or test points (or one class only); "
                         "raise n or lower steepness.")
    return ShiftData(X[train], y[train], X[test], y[test], ratio, "2-D classification under shift")


#: Bundled real binary tasks (scikit-learn data, no download): name -> (label, default n_tr).
CLASSIFICATION_TASKS = {"breast_cancer": ("Breast cancer (malignant vs benign)", 60),
                        "digits_3_8": ("Digits 3 vs 8", 40),
                        "wine": ("Wine (class 1 vs rest)", 60)}


def _binary_task(name):
    from sklearn import datasets as sk

    if name == "breast_cancer":
        bunch = sk.load_breast_cancer()
        return bunch.data, bunch.target
    if name == "digits_3_8":
        bunch = sk.load_digits()
        keep = np.isin(bunch.target, [3, 8])
        return bunch.data[keep], (bunch.target[keep] == 8).astype(int)
    if name == "wine":
        bunch = sk.load_wine()
        return bunch.data, (bunch.target == 1).astype(int)
    raise ValueError(f"Unknown classification task {name!r}; choose one of {sorted(CLASSIFICATION_TASKS)}.")


def classification_task(name, n_tr=None, random_state=0):
    """A bundled binary task split by sample-selection bias (:func:`selection_bias`).

    Inputs are standardised over the whole pool; about ``n_tr`` points near the pool mean
    (default: the task's entry in ``CLASSIFICATION_TASKS``) become the training set, the rest
    the test set. Labels are {0, 1} in Y (shape (n, 1)).

    Parameters
    ----------
    name : {"breast_cancer", "digits_3_8", "wine"}
        The task.
    n_tr : int or None, default None
        Expected training size.
    random_state : None, int, RandomState or Generator, default 0
        The seed.

    Returns
    -------
    ShiftData
        Standardised inputs, labels in {0, 1}.
    """
    X, y = _binary_task(name)
    X = (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
    n_tr = CLASSIFICATION_TASKS[name][1] if n_tr is None else check_int(n_tr, "n_tr", minimum=10)
    data = selection_bias(X, y[:, None].astype(float), n_tr=n_tr, random_state=random_state,
                          name=CLASSIFICATION_TASKS[name][0])
    if len(np.unique(data.Y_tr)) < 2 or len(np.unique(data.Y_te)) < 2:
        raise ValueError(f"The selection of seed {random_state} left one class only; try another seed.")
    return data
