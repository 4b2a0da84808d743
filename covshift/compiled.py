"""Loads every numba-compiled loop of the library (compiling it into numba's on-disk cache the first time), so a fresh worker process pays that before its first fit.

The compiled loops: the one Frank-Wolfe loop of KLIEP and its line searches (``covshift.weights._compiled``,
with the rules of FWCS, AFWCS, PFWCS and FCFWCS),
the replay of a run (``covshift.weights.replay``), the trial steps of the likelihood cross-validation's fold
solves (``covshift.weights.fully_corrective``), the Twin GP's row-wise products and cost terms
(``covshift.regression._tgp_local``, ``covshift.regression._row_products``) and its BFGS bookkeeping
(``covshift.regression._tgp_bfgs``). Compiling them all takes about 18 CPU-s once per installation
(the cache lives in ``__pycache__`` beside the modules); loading them from the cache about 0.3 CPU-s
per process, paid by its first fit unless :func:`warm_up` ran.
"""

import warnings

import numpy as np


def warm_up():
    """Run each compiled loop once on a tiny problem (every signature the library calls). Returns None."""
    from .regression import TwinGP
    from .weights import AFWCS, FCFWCS, FWCS, PFWCS
    from .weights.replay import replay_steps
    from .weights.sigma import kliep_sigma

    rng = np.random.default_rng(0)
    X_tr, X_te = rng.normal(0.3, 1.0, (30, 1)), rng.normal(0.0, 0.7, (20, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = PFWCS(sigma=0.5, max_iter=5).fit(X_tr, X_te)
        AFWCS(sigma=0.5, max_iter=5, line_search="armijo").fit(X_tr, X_te)
        FWCS(sigma=0.5, max_iter=5).fit(X_tr, X_te)
        FCFWCS(sigma=0.5, max_iter=5).fit(X_tr, X_te)
        replay_steps(fitted)
        kliep_sigma(X_tr, X_te, sigma_grid=[0.5, 1.0], n_folds=2)  # the folds' trial steps
        # an SMTGP starts from KLTGP's minimisation: the KL and SM cost terms, the products and the BFGS bookkeeping
        TwinGP(divergence="sm", max_iter=2).fit(X_tr, np.hstack([X_tr, X_tr ** 2])).predict(X_te[:3])
