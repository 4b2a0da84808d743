"""Output structures for the structural SVM: joint feature map, loss and loss-augmented argmax.

A :class:`StructuredProblem` tells the cutting-plane solver everything it needs about the
output space Y of domain-transfer-structured-output (Wang), eqs. (1)-(6):

* ``joint_features(Z, Y)``: the joint feature map Psi(x_i, y_i), one row per example;
* ``loss(Y_true, Y_pred)``: the structured loss L(y_i, y'_i), one value per example;
* ``potentials(Z, w)``: the score table of f(x, y) = w' Psi(x, y) in the problem's factored
  form, so that scores of *any* model of this problem (a source model f_S, the delta
  w' Psi, their sum) can be added table to table;
* ``loss_augmented_argmax(potentials, Y_true)``: argmax_y L(y_i, y) + f(x_i, y), the most
  violated output of eq. (6);
* ``predict(potentials)``: argmax_y f(x_i, y).

The input x enters through an embedding ``phi(x)`` (the raw features with a constant 1, or
explicit random Fourier / Nystroem features that approximate a Gaussian kernel), fitted on the
inputs passed to :meth:`StructuredProblem.fit`.
"""

import numpy as np
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from sklearn.utils._param_validation import StrOptions

from .._constraints import KERNEL_WIDTH, RANDOM_STATE, count
from .._validation import AUTO, FINITE_GAMMA_WIDTHS, as_2d_float, check_width, seed_of
from ..kernels import median_heuristic

EMBEDDINGS = ("linear", "random_fourier", "nystroem")
#: The default kernel width of the explicit features: sqrt(10), scikit-learn's gamma = 1 / (2 sigma^2) = 0.05.
DEFAULT_SIGMA = float(np.sqrt(10.0))


class StructuredProblem(BaseEstimator):
    """Base class: the input embedding phi(x) shared by every output structure.

    Parameters
    ----------
    features : {"linear", "random_fourier", "nystroem"}, default "linear"
        phi(x) = [x, 1] ("linear"), or ``n_components`` explicit features approximating the
        Gaussian kernel exp(-||a - b||^2 / (2 sigma^2)) (scikit-learn's RBFSampler / Nystroem with
        gamma = 1 / (2 sigma^2)), plus 1.
    n_components : int, default 200
        Number of explicit kernel features (Nystroem uses at most the number of fit inputs).
    sigma : float or "auto", default sqrt(10)
        Kernel width of the explicit features (sqrt(10): scikit-learn's gamma = 0.05); "auto" is the
        median heuristic on the fit inputs. Unused with ``features="linear"``.
    random_state : None, int, RandomState or Generator, default 0
        Seed of the explicit features (and of the median heuristic's subsample).

    Attributes
    ----------
    sigma_ : float or None
        The kernel width of the explicit features (None with ``features="linear"``).
    embedding_ : RBFSampler, Nystroem or None
        The fitted feature map (None with ``features="linear"``).
    """

    _parameter_constraints = {
        "features": [StrOptions(set(EMBEDDINGS))],
        "n_components": [count(1)],
        "sigma": KERNEL_WIDTH,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, features="linear", n_components=200, sigma=DEFAULT_SIGMA, random_state=0):
        self.features = features
        self.n_components = n_components
        self.sigma = sigma
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X):
        """Fit the input embedding phi on the inputs X.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs.

        Returns
        -------
        self : StructuredProblem
            The fitted problem.
        """
        X = as_2d_float(X, "X")
        self.n_features_in_ = X.shape[1]
        self.embedding_ = self.sigma_ = None
        if self.features != "linear":
            seed = seed_of(self.random_state)
            self.sigma_ = median_heuristic(X, random_state=seed) if self.sigma == AUTO else float(self.sigma)
            width_name = "sigma" if self.sigma != AUTO else "sigma (the median heuristic: data scale)"
            n_components, gamma = int(self.n_components), check_width(self.sigma_, width_name, FINITE_GAMMA_WIDTHS)
            if self.features == "random_fourier":
                self.embedding_ = RBFSampler(gamma=gamma, n_components=n_components,
                                             random_state=seed).fit(X)
            else:
                self.embedding_ = Nystroem(gamma=gamma, n_components=min(n_components, len(X)),
                                           random_state=seed).fit(X)
        return self

    def embed(self, X):
        """phi(X): the embedded inputs with a constant 1 appended (a bias per output factor).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs.

        Returns
        -------
        ndarray of shape (n, e)
            The embedded inputs Z.
        """
        check_is_fitted(self, "n_features_in_")
        X = as_2d_float(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the problem was fitted with "
                             f"{self.n_features_in_}.")
        Z = X if self.embedding_ is None else self.embedding_.transform(X)
        return np.hstack([Z, np.ones((len(Z), 1))])

    # -- what an output structure must define ------------------------------------------
    def check_outputs(self, Y, name="y"):
        """Y as an array of valid outputs, or a ValueError naming ``name``.

        Parameters
        ----------
        Y : array-like
            Outputs of this structure.
        name : str, default "y"
            The parameter's name in the error message.

        Returns
        -------
        ndarray
            The validated outputs.
        """
        raise NotImplementedError

    def n_joint_features(self, n_embedded):
        """Length m of Psi(x, y) for an embedding of length ``n_embedded``.

        Parameters
        ----------
        n_embedded : int
            Length e of phi(x).

        Returns
        -------
        int
            m.
        """
        raise NotImplementedError

    def joint_features(self, Z, Y):
        """Psi(x_i, y_i) for every row of the embedded inputs Z.

        Parameters
        ----------
        Z : ndarray of shape (n, e)
            Embedded inputs (:meth:`embed`).
        Y : ndarray
            One output per row.

        Returns
        -------
        ndarray of shape (n, m)
            The joint features.
        """
        raise NotImplementedError

    def weights_as_table(self, w, n_embedded):
        """Reshape w so that ``Z @ table`` gives the potentials of w' Psi.

        Parameters
        ----------
        w : ndarray of shape (m,)
            Weights of the joint features.
        n_embedded : int
            Length e of phi(x).

        Returns
        -------
        ndarray
            The table, e rows.
        """
        raise NotImplementedError

    def potentials(self, Z, w):
        """Score table of f(x, y) = w' Psi(x, y) for every embedded input (see module doc).

        Parameters
        ----------
        Z : ndarray of shape (n, e)
            Embedded inputs.
        w : ndarray of shape (m,)
            Weights of the joint features.

        Returns
        -------
        ndarray
            The potentials, one row per input.
        """
        return Z @ self.weights_as_table(w, Z.shape[1])

    def scores(self, potentials, Y):
        """f(x_i, y_i) read from a score table, one value per example.

        Parameters
        ----------
        potentials : ndarray
            A score table (:meth:`potentials`).
        Y : ndarray
            One output per row.

        Returns
        -------
        ndarray of shape (n,)
            The scores.
        """
        raise NotImplementedError

    def loss(self, Y_true, Y_pred):
        """Structured loss L(y_i, y'_i), one value per example.

        Parameters
        ----------
        Y_true : ndarray
            True outputs.
        Y_pred : ndarray
            Predicted outputs.

        Returns
        -------
        ndarray of shape (n,)
            The losses.
        """
        raise NotImplementedError

    def loss_augmented_argmax(self, potentials, Y_true):
        """argmax_y L(y_i, y) + f(x_i, y) for every example (eq. 6 of the paper).

        Parameters
        ----------
        potentials : ndarray
            A score table.
        Y_true : ndarray
            True outputs.

        Returns
        -------
        ndarray
            The most violated output of each example.
        """
        raise NotImplementedError

    def predict(self, potentials):
        """argmax_y f(x_i, y) for every example.

        Parameters
        ----------
        potentials : ndarray
            A score table.

        Returns
        -------
        ndarray
            The best-scoring output of each example.
        """
        raise NotImplementedError

    def random_outputs(self, n, rng):
        """n outputs drawn uniformly from Y (Algorithm 1's random initial y-bar).

        Parameters
        ----------
        n : int
            How many.
        rng : numpy.random.Generator
            The random source.

        Returns
        -------
        ndarray
            n outputs.
        """
        raise NotImplementedError


class MulticlassProblem(StructuredProblem):
    """Multiclass classification: y in {0, ..., K-1}, Psi(x, y) = phi(x) ⊗ e_y, 0/1 loss.

    Potentials are an (n, K) table: f(x_i, k) = table[i, k]. Loss-augmented inference adds 1
    to every wrong class and takes the argmax.

    Parameters
    ----------
    n_classes : int
        K, the number of classes.
    features : {"linear", "random_fourier", "nystroem"}, default "linear"
        The input embedding, see :class:`StructuredProblem`.
    n_components : int, default 200
        Number of explicit kernel features.
    sigma : float or "auto", default sqrt(10)
        Kernel width of the explicit features, see :class:`StructuredProblem`.
    random_state : None, int, RandomState or Generator, default 0
        Seed of the explicit features.
    """

    _parameter_constraints = {**StructuredProblem._parameter_constraints, "n_classes": [count(2)]}

    def __init__(self, n_classes, features="linear", n_components=200, sigma=DEFAULT_SIGMA, random_state=0):
        super().__init__(features, n_components, sigma, random_state)
        self.n_classes = n_classes

    def check_outputs(self, Y, name="y"):
        self._validate_params()  # also unfitted: n_classes by the constraints
        K = int(self.n_classes)
        Y = np.asarray(Y)
        if Y.dtype.kind == "O":
            type_of_target(Y, input_name=name, raise_unknown=True)  # scikit-learn's "Unknown label type"
        if Y.ndim != 1:
            raise ValueError(f"{name} must be a 1-D array of class labels; got shape {Y.shape}.")
        if Y.dtype.kind == "f" and not np.all(np.isfinite(Y)):
            raise ValueError(f"{name} contains NaN or infinite values; class labels must be integers.")
        if Y.dtype.kind not in "iuf" or not np.all(Y == np.round(Y)):
            raise ValueError(f"{name} must contain integer class labels 0..{K - 1}.")
        outside = (Y < 0) | (Y >= K)
        if outside.any():
            raise ValueError(f"{name} has labels outside the output set {{0, ..., {K - 1}}}: "
                             f"{sorted(set(Y[outside].tolist()))[:5]}.")
        return Y.astype(int)

    def n_joint_features(self, n_embedded):
        return n_embedded * self.n_classes

    def joint_features(self, Z, Y):
        Psi = np.zeros((len(Z), Z.shape[1], self.n_classes))
        Psi[np.arange(len(Z)), :, Y] = Z
        return Psi.reshape(len(Z), -1)

    def weights_as_table(self, w, n_embedded):
        return np.asarray(w).reshape(n_embedded, self.n_classes)

    def scores(self, potentials, Y):
        return potentials[np.arange(len(Y)), Y]

    def loss(self, Y_true, Y_pred):
        return (np.asarray(Y_true) != np.asarray(Y_pred)).astype(float)

    def loss_augmented_argmax(self, potentials, Y_true):
        augmented = potentials + 1.0
        augmented[np.arange(len(Y_true)), Y_true] -= 1.0
        return np.argmax(augmented, axis=1)

    def predict(self, potentials):
        return np.argmax(potentials, axis=1)

    def random_outputs(self, n, rng):
        return rng.integers(0, self.n_classes, size=n)


class MultilabelProblem(StructuredProblem):
    """Multi-label classification: y in {0, 1}^L, Psi(x, y) = phi(x) ⊗ y, Hamming loss.

    The score f(x, y) = sum_j y_j u_j(x) decomposes over labels, with potentials an (n, L)
    table u. The Hamming loss L(y, y') = (1/L) sum_j [y_j != y'_j] decomposes too, so the
    loss-augmented argmax sets every label on its own: y_j = 1 iff [y_j != 1]/L + u_j >
    [y_j != 0]/L.

    Parameters
    ----------
    n_labels : int
        L, the number of binary labels.
    features : {"linear", "random_fourier", "nystroem"}, default "linear"
        The input embedding, see :class:`StructuredProblem`.
    n_components : int, default 200
        Number of explicit kernel features.
    sigma : float or "auto", default sqrt(10)
        Kernel width of the explicit features, see :class:`StructuredProblem`.
    random_state : None, int, RandomState or Generator, default 0
        Seed of the explicit features.
    """

    _parameter_constraints = {**StructuredProblem._parameter_constraints, "n_labels": [count(1)]}

    def __init__(self, n_labels, features="linear", n_components=200, sigma=DEFAULT_SIGMA, random_state=0):
        super().__init__(features, n_components, sigma, random_state)
        self.n_labels = n_labels

    def check_outputs(self, Y, name="Y"):
        self._validate_params()  # also unfitted: n_labels by the constraints
        L = int(self.n_labels)
        Y = np.asarray(Y)
        if Y.ndim != 2 or Y.shape[1] != L:
            raise ValueError(f"{name} must be a 0/1 matrix with {L} columns (one per label); "
                             f"got shape {Y.shape}.")
        if Y.dtype.kind == "f" and not np.all(np.isfinite(Y)):
            raise ValueError(f"{name} contains NaN or infinite values; labels must be 0 or 1.")
        if not np.all(np.isin(Y, [0, 1])):
            raise ValueError(f"{name} has values outside the output set {{0, 1}}; labels must be 0 or 1.")
        return Y.astype(int)

    def n_joint_features(self, n_embedded):
        return n_embedded * self.n_labels

    def joint_features(self, Z, Y):
        return (Z[:, :, None] * Y[:, None, :]).reshape(len(Z), -1)

    def weights_as_table(self, w, n_embedded):
        return np.asarray(w).reshape(n_embedded, self.n_labels)

    def scores(self, potentials, Y):
        return np.sum(potentials * Y, axis=1)

    def loss(self, Y_true, Y_pred):
        return np.mean(np.asarray(Y_true) != np.asarray(Y_pred), axis=1)

    def loss_augmented_argmax(self, potentials, Y_true):
        gain_on = (Y_true != 1) / self.n_labels + potentials
        gain_off = (Y_true != 0) / self.n_labels
        return (gain_on > gain_off).astype(int)

    def predict(self, potentials):
        return (potentials > 0).astype(int)

    def random_outputs(self, n, rng):
        return rng.integers(0, 2, size=(n, self.n_labels))


def fitted_problem(problem, X):
    """A fitted copy of ``problem`` (the caller's object is left untouched; the estimators' constraints
    have checked that it is a StructuredProblem)."""
    return clone(problem).fit(X)
