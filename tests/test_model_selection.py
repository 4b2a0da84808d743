import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, cross_val_score

from covshift.model_selection import iwcv_score, kliep_likelihood_cv
from covshift.weights import FCFWCS


def test_lcv_scores_on_held_out_test_folds_only(paper_data):
    grid = [0.1, 0.3, 1.0]
    cv = kliep_likelihood_cv(FCFWCS(), paper_data.X_tr, paper_data.X_te, sigma_grid=grid,
                             n_folds=3, random_state=0)
    # recompute one grid point by hand: fit on two folds, score on the third only
    manual = []
    folds = KFold(3, shuffle=True, random_state=0)
    for (fit_tr, held_tr), (fit_te, held_te) in zip(folds.split(paper_data.X_tr),
                                                    folds.split(paper_data.X_te)):
        est = FCFWCS(sigma=0.3).fit(paper_data.X_tr[fit_tr], paper_data.X_te[fit_te])
        w_te = est.predict_weights(paper_data.X_te[held_te])
        w_tr = est.predict_weights(paper_data.X_tr[held_tr])
        manual.append(np.mean(np.log(w_te)) - np.log(np.mean(w_tr)))
    assert cv["mean_log_likelihood"][1] == pytest.approx(np.mean(manual), rel=1e-10)
    assert cv["best_sigma"] == grid[int(np.argmax(cv["mean_log_likelihood"]))]


def test_sigma_auto_exposes_cv_curve_and_avoids_overfitting(paper_data):
    est = FCFWCS(sigma="auto").fit(paper_data.X_tr, paper_data.X_te)
    curve = est.cv_results_
    assert len(curve["sigma"]) == len(curve["mean_log_likelihood"]) == 9
    assert est.sigma_ == curve["best_sigma"]
    # the smallest widths overfit and are penalised; the chosen one is interior
    assert curve["mean_log_likelihood"][0] < curve["mean_log_likelihood"].max()
    assert curve["sigma"][0] < est.sigma_
    # and the held-out score estimates KL(p_te || p_tr) of the paper's Gaussians (0.69)
    assert 0.5 < curve["mean_log_likelihood"].max() < 0.9
    assert est.get_params()["sigma"] == "auto"  # the parameter is not overwritten


def test_lcv_rejects_bad_grid(paper_data):
    with pytest.raises(ValueError, match="sigma_grid"):
        kliep_likelihood_cv(FCFWCS(), paper_data.X_tr, paper_data.X_te, sigma_grid=[0.1, -1.0])


def test_iwcv_with_unit_weights_is_ordinary_cross_validation():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = X @ [1.0, -2.0] + rng.normal(0, 0.3, 60)
    folds = KFold(5, shuffle=True, random_state=0)
    ordinary = -cross_val_score(Ridge(1.0), X, y, cv=folds, scoring="neg_mean_squared_error").mean()
    assert iwcv_score(Ridge(1.0), X, y, np.ones(60), n_folds=5) == pytest.approx(ordinary)


def test_iwcv_weights_the_held_out_losses():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(80, 1))
    y = np.where(X[:, 0] > 0, 1.0, 0.0) + rng.normal(0, 0.1, 80)
    w_right = (X[:, 0] > 0) * 2.0
    # with all weight on the right half, the score only counts errors there
    assert iwcv_score(Ridge(1e-6), X, y, w_right) != pytest.approx(iwcv_score(Ridge(1e-6), X, y, np.ones(80)))
    with pytest.raises(ValueError, match="non-negative"):
        iwcv_score(Ridge(), X, y, -np.ones(80))
    with pytest.raises(ValueError, match="same number"):
        iwcv_score(Ridge(), X, y[:10], np.ones(80))
