"""Issue 31 items 4 and 6 on scikit-learn's bundled data: KMM at its defaults does not invent a shift,
FCFWCS(sigma="auto") warns only through covshift's own warnings, KLIEP refuses max_iter=0."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine

from covshift.metrics import effective_sample_size
from covshift.weights import FCFWCS, KLIEP, KMM


def standardised(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


REAL = {"wine": standardised(load_wine().data), "diabetes": standardised(load_diabetes().data),
        "breast_cancer": standardised(load_breast_cancer().data)}


def random_halves(X, seed):
    order = np.random.default_rng(seed).permutation(len(X))
    return X[order[: len(X) // 2]], X[order[len(X) // 2:]]


def ess_fractions(estimator, seeds=range(5)):
    fractions = []
    for X in REAL.values():
        for seed in seeds:
            w = estimator.fit(*random_halves(X, seed)).weights_
            fractions.append(effective_sample_size(w) / len(w))
    return np.array(fractions)


def test_kmm_defaults_keep_the_weights_near_uniform_without_shift():
    # measured over 20 halves per set: median ESS/n 0.85 / 0.88 / 0.89 (wine, diabetes, breast cancer);
    # 0.37 / 0.32 / 0.32 with the papers' unregularised QP (ridge=0)
    after = ess_fractions(KMM())
    before = ess_fractions(KMM(ridge=0.0))
    assert np.median(after) >= 0.7, after
    assert np.median(before) < 0.5, before  # what the default fixes


def test_kmm_ridge_is_checked_by_name():
    X_tr, X_te = random_halves(REAL["wine"], 0)
    with pytest.raises(ValueError, match="ridge"):
        KMM(ridge=-0.1).fit(X_tr, X_te)


def test_fcfwcs_auto_leaks_no_raw_numpy_warning_on_standardised_real_sets():
    X = standardised(load_iris().data)  # the set whose selection-bias split made largest_ascent_step overflow
    d = np.linalg.norm(X, axis=1)
    train = np.random.default_rng(0).random(len(X)) < np.exp(-d / d.std())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = FCFWCS(sigma="auto").fit(X[train], X[~train])
    assert np.all(np.isfinite(model.weights_))
    assert not [w for w in caught if w.category is RuntimeWarning], [str(w.message) for w in caught]


def test_kliep_refuses_max_iter_zero_by_name():
    X_tr, X_te = random_halves(REAL["wine"], 0)
    with pytest.raises(ValueError, match="max_iter"):
        KLIEP(max_iter=0).fit(X_tr, X_te)
