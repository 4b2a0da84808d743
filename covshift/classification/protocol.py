"""The Fig. 3 protocol of discriminative-covariate-shift (Bickel, Brueckner and Scheffer, ICML 2007) on
one bundled task and seed, shared by ``bench/classification.py`` and the reproduction rows.

The selection of :func:`covshift.data.classification_task` gives a training set and a test pool; a
random ``TUNING_FRACTION`` of the pool is a labelled tuning set (the paper's "separate tuning
set"), the rest the evaluation pool. ``size`` unlabelled test inputs drawn from the evaluation pool
are given to every method; AUC is measured on the whole evaluation pool. Every method's
regularisation is tuned alike on the tuning set: the classifier's prior variance (C; C_w of the
integrated model) over ``C_GRID`` and, for the two methods with a logistic selector, its prior
variance (C_v; LogisticRatio's C) over ``C_SELECTOR_GRID``, by the highest tuning-set AUC (ties:
the values closest to 1).
"""

import time
import warnings
from functools import partial

import numpy as np
from sklearn.metrics import roc_auc_score

from ..data import classification_task
from ..weights import FCFWCS, KMM, LogisticRatio
from .integrated import IntegratedShiftClassifier
from .logistic import KernelLogisticRegression

#: Linear kernels on the higher-dimensional tasks (as the paper on text), RBF on wine (as on landmines).
KERNELS = {"breast_cancer": "linear", "digits_3_8": "linear", "wine": "rbf"}
METHODS = ["iid", "two-stage LogisticRatio", "two-stage FCFWCS", "two-stage KMM", "integrated"]
TWO_STAGE = METHODS[1:4]
C_GRID = [0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]
C_SELECTOR_GRID = [0.01, 0.1, 1.0]
TUNING_FRACTION = 0.3
#: KMM as the papers solve it (Huang et al. 2007; Bickel et al.'s two-stage baseline): without the ridge that
#: KMM's default adds; the stored reproduction results (Fig. 3) were measured with it.
WEIGHT_ESTIMATORS = {"two-stage LogisticRatio": LogisticRatio, "two-stage FCFWCS": FCFWCS,
                     "two-stage KMM": partial(KMM, ridge=0.0)}


def fit_quietly(model, *args, **kwargs):
    """``model.fit(*args, **kwargs)`` with warnings silenced (convergence is recorded in ``converged_``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(*args, **kwargs)


def fit_for_each_C(name, kernel, X_tr, y_tr, X_unlabelled, grid, selector_grid):
    """{(C, C_selector): (fitted model, seconds)} for one method over the grids. C is the classifier's
    prior variance; C_selector that of the logistic selector (integrated: C_v; two-stage LogisticRatio:
    its C), None for the other methods. Weights do not depend on C, so each weight estimate is made
    once; a model's seconds are those of one complete fit at its parameters."""
    fits = {}
    if name == "integrated":
        for C_v in selector_grid:
            for C in grid:
                start = time.perf_counter()
                model = fit_quietly(IntegratedShiftClassifier(kernel=kernel, C_w=C, C_v=C_v), X_tr, y_tr, X_unlabelled)
                fits[C, C_v] = (model, time.perf_counter() - start)
        return fits
    for C_selector in (selector_grid if name == "two-stage LogisticRatio" else [None]):
        weights, weight_seconds = None, 0.0
        if name in WEIGHT_ESTIMATORS:
            estimator = WEIGHT_ESTIMATORS[name]() if C_selector is None else LogisticRatio(C=C_selector)
            start = time.perf_counter()
            weights = fit_quietly(estimator, X_tr, X_unlabelled).weights_
            weight_seconds = time.perf_counter() - start
        for C in grid:
            start = time.perf_counter()
            model = fit_quietly(KernelLogisticRegression(kernel=kernel, C=C), X_tr, y_tr, sample_weight=weights)
            fits[C, C_selector] = (model, weight_seconds + time.perf_counter() - start)
    return fits


def tuned(fits, X_tune, y_tune):
    """((C, C_selector), model, seconds) with the highest tuning-set AUC; ties go to the parameters
    closest to 1 (on a log scale)."""
    def key(params):
        distance = sum(abs(np.log(c)) for c in params if c is not None)
        return (roc_auc_score(y_tune, fits[params][0].decision_function(X_tune)), -distance)
    best = max(fits, key=key)
    return (best,) + fits[best]


def split_pool(y_pool, rng):
    """Indices of the tuning set (TUNING_FRACTION of the pool, both classes present) and of the rest."""
    for _ in range(100):
        order = rng.permutation(len(y_pool))
        n_tune = int(round(TUNING_FRACTION * len(y_pool)))
        if len(np.unique(y_pool[order[:n_tune]])) == 2 and len(np.unique(y_pool[order[n_tune:]])) == 2:
            return order[:n_tune], order[n_tune:]
    raise ValueError("the test pool is too small or too unbalanced for a tuning set with both classes")


def reduction(auc, auc_iid):
    """1 - (1 - AUC) / (1 - AUC_iid): the fraction of the iid classifier's 1-AUC risk removed
    (the y-axis of the paper's Fig. 3); NaN when the iid classifier is perfect."""
    return np.nan if auc_iid >= 1.0 else 1.0 - (1.0 - auc) / (1.0 - auc_iid)


def run_one(task, seed, sizes, grid=C_GRID, selector_grid=C_SELECTOR_GRID, methods=METHODS):
    """AUC, seconds, converged and chosen (C, C_selector) of every method for every test size of one
    seed: ({size: {method: (auc, s, converged, (C, C_selector))}}, n training, n evaluation pool)."""
    data = classification_task(task, random_state=seed)
    y_tr, y_pool = data.Y_tr[:, 0], data.Y_te[:, 0]
    rng = np.random.default_rng(1000 + seed)
    tune, evaluate = split_pool(y_pool, rng)
    X_tune, y_tune, X_eval, y_eval = data.X_te[tune], y_pool[tune], data.X_te[evaluate], y_pool[evaluate]
    order = rng.permutation(len(X_eval))
    out, iid = {}, None
    for size in sizes:
        X_unlabelled = X_eval[order[:size]]
        out[size] = {}
        for name in methods:
            if name == "iid" and iid is not None:  # does not see the test inputs
                out[size][name] = iid
                continue
            fits = fit_for_each_C(name, KERNELS[task], data.X_tr, y_tr, X_unlabelled, grid, selector_grid)
            C, model, seconds = tuned(fits, X_tune, y_tune)
            out[size][name] = (roc_auc_score(y_eval, model.decision_function(X_eval)), seconds,
                               bool(getattr(model, "converged_", True)), C)
            if name == "iid":
                iid = out[size][name]
    return out, len(data.X_tr), len(X_eval)
