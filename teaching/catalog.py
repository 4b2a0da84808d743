"""What the app offers, by name: the data sets, weight estimators and regression models behind the menus.

Names -> objects of :mod:`covshift` with the app's settings (this module never imports streamlit);
the fits that use them are in :mod:`teaching.fits`.
"""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone

from covshift import data as datasets
from teaching import budget
from covshift._validation import check_positive
from covshift.regression import GPR, WKNN, TwinGP, rho_from_paper
from covshift.weights import AFWCS, FCFWCS, FWCS, KLIEP, KMM, PFWCS, EnsembleKMM, LogisticRatio, RuLSIF


def _sizes(name, n_tr, n_te):
    """Slider specs (default, min, max, step) of n_tr and n_te; the maxima follow the time
    budget (:func:`teaching.budget.dataset_size_max`), the defaults never exceed them."""
    top = budget.dataset_size_max(name)
    return {"n_tr": (min(n_tr, top), budget.MIN_POINTS[0], top, 10),
            "n_te": (min(n_te, top), budget.MIN_POINTS[1], top, 10)}


#: Data sets and their adjustable parameters: name -> (label, {param: (default, min, max, step)}).
DATASETS = {
    "sinc": ("Sinc shift (paper Fig. 2)", {
        **_sizes("sinc", 500, 300), "mean_tr": (0.5, -2.0, 2.0, 0.1),
        "std_tr": (0.5, 0.1, 2.0, 0.05), "mean_te": (0.0, -2.0, 2.0, 0.1), "std_te": (0.3, 0.1, 2.0, 0.05),
        "noise": (0.1, 0.0, 1.0, 0.01)}),
    "s_shape": ("S-shape (Toy 1)", {**_sizes("s_shape", 250, 250),
                                    "noise": (0.005, 0.0, 0.1, 0.005), "shift": (2.0, 0.0, 6.0, 0.5)}),
    "double_s": ("Double S (Toy 2)", {**_sizes("double_s", 250, 500),
                                      "noise": (0.005, 0.0, 0.1, 0.005), "shift": (2.0, 0.0, 6.0, 0.5)}),
    "circle": ("Circle (2 correlated outputs)", {
        **_sizes("circle", 300, 200), "mean_tr": (0.0, -2.0, 2.0, 0.1),
        "std_tr": (0.6, 0.1, 2.0, 0.05), "mean_te": (0.5, -2.0, 2.0, 0.1), "std_te": (0.3, 0.1, 2.0, 0.05),
        "noise": (0.03, 0.0, 0.5, 0.01)}),
    "digits": ("Digits centre pixels (selection bias)",
               {"n_tr": (300, 50, budget.dataset_size_max("digits"), 10)}),
}
_GENERATORS = {"sinc": datasets.sinc_shift, "s_shape": datasets.s_shape, "double_s": datasets.double_s,
               "circle": datasets.circle_outputs, "digits": datasets.digits_center}


def make_dataset(name, seed=0, **params):
    """Build a built-in data set by name with the given parameters."""
    if name not in _GENERATORS:
        raise ValueError(f"Unknown data set {name!r}; choose one of {sorted(_GENERATORS)}.")
    unknown = set(params) - set(DATASETS[name][1])
    if unknown:
        raise ValueError(f"Unknown parameter(s) {sorted(unknown)} of data set {name!r}; "
                         f"it has {sorted(DATASETS[name][1])}.")
    ints = {k: whole_number(v, k) for k, v in params.items() if k in ("n_tr", "n_te")}
    return _GENERATORS[name](**{**params, **ints}, random_state=whole_number(seed, "seed"))


def whole_number(value, name):
    """An integer from an int or an integer-valued float (as read from a URL); ValueError
    naming ``name`` for NaN, infinity, fractions, text or booleans."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real) or not np.isfinite(value) \
            or float(value) != int(value):
        raise ValueError(f"{name} must be a whole number; got {value!r}.")
    return int(value)


WEIGHT_ESTIMATORS = ["FCFWCS", "PFWCS", "AFWCS", "FWCS", "KLIEP", "KMM", "ENSKMM", "ENSTRKMM",
                     "VFKMM", "EVFKMM", "LogisticRatio", "RuLSIF"]
FRANK_WOLFE = {"FCFWCS", "PFWCS", "AFWCS", "FWCS"}
KLIEP_FAMILY = FRANK_WOLFE | {"KLIEP"}
#: The estimators whose "auto" width is the median heuristic on all the inputs (training and test stacked,
#: seed 0: :func:`covshift.kernels.median_heuristic`, as each computes it itself): the app computes it once per
#: data set (:func:`teaching.steps.median_sigma`) and passes it on as a number.
MEDIAN_RULE = {"KMM", "ENSKMM", "ENSTRKMM", "VFKMM", "EVFKMM", "LogisticRatio"}


def make_weight_estimator(name, sigma="auto", max_iter=2000, tol=1e-5):
    """An estimator by name. sigma: a number, or "auto": each estimator's own rule (the KLIEP family:
    :func:`covshift.model_selection.kliep_sigma`; the KMM family and LogisticRatio: the median
    heuristic; RuLSIF: its cross-validation). The app passes the KLIEP family the width the view
    chose once (:func:`teaching.fits.regression.shared_kliep_sigma`)."""
    sigma = sigma if sigma == "auto" else check_positive(sigma, "sigma (kernel width)")  # passed on unchanged
    fw = dict(sigma=sigma, tol=tol, max_iter=max_iter)
    factories = {
        "FCFWCS": lambda: FCFWCS(**fw), "PFWCS": lambda: PFWCS(**fw), "AFWCS": lambda: AFWCS(**fw),
        "FWCS": lambda: FWCS(**fw), "KLIEP": lambda: KLIEP(sigma=sigma),
        "KMM": lambda: KMM(sigma=sigma), "ENSKMM": lambda: EnsembleKMM("ens", sigma=sigma),
        "ENSTRKMM": lambda: EnsembleKMM("enstr", sigma=sigma), "VFKMM": lambda: EnsembleKMM("vf", sigma=sigma),
        "EVFKMM": lambda: EnsembleKMM("evf", sigma=sigma), "LogisticRatio": lambda: LogisticRatio(sigma=sigma),
        "RuLSIF": lambda: RuLSIF(sigma=sigma),
    }
    if name not in factories:
        raise ValueError(f"Unknown estimator {name!r}.")
    return factories[name]()


#: Regression models: name -> needs importance weights.
#: Display names where the short name claims more than the model is.
MODEL_LABELS = {"IKLTGP": "IKLTGP (SMTGP paper eq. 7)", "IW-IKLTGP": "IW-IKLTGP (SMTGP paper eq. 7)"}


def model_label(name):
    """The name a page shows for a regression model (see MODEL_LABELS)."""
    return MODEL_LABELS.get(name, name)


REGRESSORS = {"GPR": False, "WKNN": False, "KLTGP": False, "IKLTGP": False, "SMTGP": False,
              "IW-GPR": True, "IW-KLTGP": True, "IW-SMTGP": True}


#: Models whose cross-validation error the Check your data page estimates (5 fits each: the fast ones).
CHECK_MODELS = ("GPR", "IW-GPR", "WKNN")


class Unweighted(RegressorMixin, BaseEstimator):
    """A regressor that is fitted without importance weights (its ``fit`` takes no ``sample_weight``),
    so that :func:`covshift.diagnostics.iw_cv_error` fits a non-IW model as it is used."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y):
        self.estimator_ = clone(self.estimator).fit(X, y)
        return self

    def predict(self, X):
        return self.estimator_.predict(X)


def cv_model(name, standardise_outputs=False, **hyper):
    """The model ``name`` (:data:`CHECK_MODELS`) as cross-validation refits it: IW- models with the
    weights, the others without; ``standardise_outputs`` as in :func:`fit_predict` (GPR's
    ``normalize_y``; W-KNN averages training outputs, so their scale changes nothing)."""
    if name not in CHECK_MODELS:
        raise ValueError(f"The cross-validation check offers {list(CHECK_MODELS)}; got {name!r}.")
    model = make_regressor(name, **hyper)
    if standardise_outputs and isinstance(model, GPR):
        model.set_params(normalize_y=True)
    return model if REGRESSORS[name] else Unweighted(model)


def paper_tgp_defaults(data_name):
    """The papers' TGP hyper-parameters where they exist (sharma-mittal-tgp Table 1)."""
    if data_name == "s_shape":
        return dict(theta=0.9, gamma=1.5, rho_x=rho_from_paper(5.0), rho_y=rho_from_paper(0.05),
                    lambda_x=1e-4, lambda_y=1e-4, tgp_start="linear")
    if data_name == "double_s":
        return dict(theta=0.6, gamma=0.99, rho_x=rho_from_paper(5.0), rho_y=rho_from_paper(0.05),
                    lambda_x=1e-4, lambda_y=1e-4, tgp_start="linear")
    return None


#: Starts of the Twin GPs offered by the app: the original one, and kernel ridge.
TGP_STARTS = {"linear": "auto", "ridge": "ridge"}
#: Threads of a Twin-GP prediction (TwinGP n_jobs): a fixed number, so that every machine
#: splits the test points alike and gives the same numbers; two for the 2-core reference.
TGP_THREADS = 2


def make_regressor(name, theta=0.9, gamma=1.5, rho_x=1.0, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3,
                   tgp_start="linear"):
    """A regression model by name (REGRESSORS) with the app's hyper-parameters.

    ``tgp_start`` "linear" is the original start of the Twin GPs (affine least squares, and
    the chain linear -> KLTGP -> SMTGP for SMTGP); "ridge" starts every Twin GP from kernel ridge.
    """
    if name not in REGRESSORS:
        raise ValueError(f"Unknown regression model {name!r}; choose one of {list(REGRESSORS)}.")
    base = name.replace("IW-", "")
    if base == "GPR":
        return GPR(rho_x=rho_x, lambda_x=max(check_positive(lambda_x, "lambda_x"), 1e-6))
    if base == "WKNN":
        return WKNN(5)
    divergence = {"KLTGP": "kl", "IKLTGP": "ikl", "SMTGP": "sm"}[base]
    if tgp_start not in TGP_STARTS:
        raise ValueError(f"tgp_start must be one of {list(TGP_STARTS)}; got {tgp_start!r}.")
    return TwinGP(divergence, theta=theta, gamma=gamma, rho_x=rho_x, rho_y=rho_y,
                  lambda_x=lambda_x, lambda_y=lambda_y, init=TGP_STARTS[tgp_start], n_jobs=TGP_THREADS)


def chain_start(name, tgp_start="linear"):
    """The model whose prediction starts ``name``'s minimisation, or None.

    With the original start the SMTGPs start from the KLTGP prediction with the same
    weights (linear -> KLTGP -> SMTGP): "SMTGP" -> "KLTGP", "IW-SMTGP" -> "IW-KLTGP".
    """
    if tgp_start == "linear" and name.replace("IW-", "") == "SMTGP":
        return name.replace("SMTGP", "KLTGP")
    return None
