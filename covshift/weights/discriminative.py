"""Importance weights from a probabilistic classifier of training vs test inputs."""

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn.utils._param_validation import StrOptions

from .._constraints import KERNEL_WIDTH, POSITIVE, RANDOM_STATE, count
from .._validation import AUTO, FINITE_GAMMA_WIDTHS, check_width
from ..kernels import median_heuristic
from ..limits import check_feature_memory
from ._base import WeightEstimator, warn_no_kernel_mass


class LogisticRatio(WeightEstimator):
    """Discriminative density ratio (eq. 7 of discriminative-covariate-shift).

    Standardise the inputs first (centre each column and divide it by its standard deviation over
    training and test inputs together): the RBF features and the penalty treat every column alike.

    A logistic regression separates training (sigma = 1) from test (sigma = 0) inputs;
    then w(x) = (n_tr / n_te) p(sigma=0 | x) / p(sigma=1 | x).

    Parameters
    ----------
    features : {"rbf", "raw"}, default "rbf"
        Gaussian-kernel features (scikit-learn's Nystroem map with gamma = 1 / (2 sigma^2))
        or the standardised raw inputs (a linear log-ratio).
    sigma : float or "auto", default "auto"
        Kernel width of the RBF features; "auto" is the median heuristic.
    n_components : int, default 100
        Nystroem features (capped at the number of points).
    C : float, default 1.0
        Inverse regularisation strength of the logistic regression.
    calibrate : bool, default True
        Calibrate the probabilities (sigmoid, 3-fold CalibratedClassifierCV).
    clip : float, default 100
        Ratios are clipped to [0, clip] before normalising, so a few points deep in
        the test-only region cannot take all the weight.
    random_state : None, int, RandomState or Generator, default 0
        Seeds the Nystroem features and the calibration folds (scikit-learn's convention; an
        instance gives one seed per fit, drawn from it).

    Attributes
    ----------
    weights_ : ndarray of shape (n_tr,)
        Importance weights of the training points, mean 1.
    classifier_ : sklearn.pipeline.Pipeline
        The fitted classifier of training vs test inputs.
    sigma_ : float or None
        The width of the RBF features (None with ``features="raw"``).

    See Also
    --------
    covshift.TwoStageShiftClassifier : These weights, then a weighted classifier (the paper's
        two-stage baseline).
    covshift.IntegratedShiftClassifier : Classifier and selector learned together.
    RuLSIF : A direct least-squares fit of the ratio.

    References
    ----------
    S. Bickel, M. Brueckner and T. Scheffer (2007). Discriminative learning for differing training
    and test distributions. *ICML* (eq. 7).

    Examples
    --------
    >>> from covshift import LogisticRatio, data
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> ratio = LogisticRatio().fit(shift.X_tr, shift.X_te)
    >>> w = ratio.predict_weights(shift.X_tr)
    >>> w.shape, bool(abs(w.mean() - 1) < 1e-9)
    ((100,), True)
    """

    def __init__(self, features="rbf", sigma="auto", n_components=100, C=1.0, calibrate=True,
                 clip=100.0, random_state=0):
        self.features = features
        self.sigma = sigma
        self.n_components = n_components
        self.C = C
        self.calibrate = calibrate
        self.clip = clip
        self.random_state = random_state

    _parameter_constraints = {
        "features": [StrOptions({"rbf", "raw"})],
        "sigma": KERNEL_WIDTH,
        "n_components": [count(1)],
        "C": [POSITIVE],
        "calibrate": ["boolean"],
        "clip": [POSITIVE],
        "random_state": RANDOM_STATE,
    }

    def _fit(self, X_tr, X_te):
        if self.features == "rbf" and self.sigma != AUTO:
            check_width(self.sigma, "sigma", FINITE_GAMMA_WIDTHS)  # gamma = 1 / (2 sigma^2) representable
        if len(X_te) < 2 or len(X_tr) < 2:
            raise ValueError(f"LogisticRatio needs at least 2 training and 2 test points; got "
                             f"n_samples = {len(X_tr)} and {len(X_te)}.")
        X = np.vstack([X_tr, X_te])
        label = np.concatenate([np.ones(len(X_tr)), np.zeros(len(X_te))])
        steps = [StandardScaler()]
        if self.features == "rbf":
            self.sigma_ = (median_heuristic(X, random_state=self.random_state) if self.sigma == AUTO
                           else float(self.sigma))
            n_comp = min(int(self.n_components), len(X))
            check_feature_memory("LogisticRatio", len(X), n_comp, 4, "n_components")
            width_name = "sigma" if self.sigma != AUTO else "sigma (the median heuristic: data scale)"
            gamma = check_width(self.sigma_, width_name, FINITE_GAMMA_WIDTHS)
            warn_no_kernel_mass(self, X_tr, X_te, self.sigma_)
            steps = [Nystroem(gamma=gamma, n_components=n_comp, random_state=self.random_state),
                     StandardScaler()]
        else:
            self.sigma_ = None
        logistic = LogisticRegression(C=self.C, max_iter=1000)
        n_folds = int(min(3, len(X_tr), len(X_te)))
        classifier = (CalibratedClassifierCV(logistic, method="sigmoid", cv=n_folds)
                      if self.calibrate and n_folds >= 2 else logistic)
        self.classifier_ = make_pipeline(*steps, classifier).fit(X, label)
        self._prior = len(X_tr) / len(X_te)
        return self._predict_raw(X_tr)

    def _predict_raw(self, X):
        p_train = self.classifier_.predict_proba(X)[:, 1]
        p_train = np.clip(p_train, 1e-12, 1.0)
        return np.clip(self._prior * (1.0 - p_train) / p_train, 0.0, self.clip)
