import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, cross_val_score

from covshift.data import sinc_shift
from covshift.model_selection import held_out_log_likelihood, iwcv_score, kliep_sigma
from covshift.weights import FCFWCS, KLIEP, PFWCS


def test_lcv_scores_match_refits_on_the_folds(paper_data):
    grid = [0.1, 0.3, 1.0]
    # all test points as centres, as FCFWCS uses below (the default is a 100-centre subset)
    cv = kliep_sigma(paper_data.X_tr, paper_data.X_te, sigma_grid=grid, n_folds=3,
                     ranking_tol=1e-10, max_centers=len(paper_data.X_te), random_state=0)
    # recompute each grid point by hand: FCFWCS fitted on two folds, scored on the third only
    folds = KFold(3, shuffle=True, random_state=0)
    for i, sigma in enumerate(grid):
        manual = []
        for (fit_tr, held_tr), (fit_te, held_te) in zip(folds.split(paper_data.X_tr),
                                                        folds.split(paper_data.X_te)):
            est = FCFWCS(sigma=sigma, tol=1e-10).fit(paper_data.X_tr[fit_tr], paper_data.X_te[fit_te])
            manual.append(held_out_log_likelihood(est, paper_data.X_tr[held_tr], paper_data.X_te[held_te]))
        assert cv["mean_log_likelihood"][i] == pytest.approx(np.mean(manual), rel=1e-6)
        assert cv["std_log_likelihood"][i] == pytest.approx(np.std(manual, ddof=1), rel=1e-4)
    assert cv["best_mean_sigma"] == grid[int(np.argmax(cv["mean_log_likelihood"]))]
    assert cv["rule"] == "lcv" and cv["seconds"] > 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_standard_error_rule_and_loose_ranking_agree_with_tight_solves(seed):
    data = sinc_shift(random_state=seed)
    loose = kliep_sigma(data.X_tr, data.X_te, random_state=seed)
    tight = kliep_sigma(data.X_tr, data.X_te, ranking_tol=1e-7, random_state=seed)
    assert loose["best_sigma"] == tight["best_sigma"]
    mean, se = tight["mean_log_likelihood"], tight["std_log_likelihood"] / np.sqrt(5)
    best = int(np.nanargmax(mean))
    within = tight["sigma"][mean >= mean[best] - se[best]]
    assert tight["best_sigma"] == within.max() >= tight["best_mean_sigma"]


def test_every_kliep_family_solver_gets_the_same_sigma(paper_data):
    shared = kliep_sigma(paper_data.X_tr, paper_data.X_te)["best_sigma"]
    for cls in [FCFWCS, PFWCS, KLIEP]:
        est = cls(sigma="auto", max_iter=50).fit(paper_data.X_tr, paper_data.X_te)
        assert est.sigma_ == shared == est.cv_results_["best_sigma"]


def test_sigma_auto_exposes_cv_curve_and_chooses_an_interior_width(paper_data):
    est = FCFWCS(sigma="auto").fit(paper_data.X_tr, paper_data.X_te)
    curve = est.cv_results_
    assert len(curve["sigma"]) == len(curve["mean_log_likelihood"]) == 9
    assert est.sigma_ == curve["best_sigma"]
    # on this sample the smallest width ties with the best within fold noise; the
    # one-standard-error rule takes the widest of the tied widths, an interior one
    assert curve["sigma"][0] < est.sigma_ < curve["sigma"][-1]
    # and the held-out score estimates KL(p_te || p_tr) of the paper's Gaussians (0.69)
    assert 0.5 < curve["mean_log_likelihood"].max() < 0.9
    assert est.get_params()["sigma"] == "auto"  # the parameter is not overwritten


def test_iwcv_rule_scores_the_regressor_with_each_widths_weights(paper_data):
    grid = [0.15, 0.3, 0.6]
    model = Ridge(1e-3)
    cv = kliep_sigma(paper_data.X_tr, paper_data.X_te, rule="iwcv", sigma_grid=grid,
                     y_tr=paper_data.Y_tr, regressor=model, ranking_tol=1e-9)
    for i, sigma in enumerate(grid):
        w = FCFWCS(sigma=sigma, tol=1e-10).fit(paper_data.X_tr, paper_data.X_te).weights_
        expected = iwcv_score(model, paper_data.X_tr, paper_data.Y_tr[:, 0], w)
        assert cv["iwcv_error"][i] == pytest.approx(expected, rel=1e-4)
    assert cv["best_sigma"] == grid[int(np.argmin(cv["iwcv_error"]))] and cv["rule"] == "iwcv"


def test_kliep_sigma_rejects_bad_input(paper_data):
    X_tr, X_te = paper_data.X_tr, paper_data.X_te
    with pytest.raises(ValueError, match="sigma_grid"):
        kliep_sigma(X_tr, X_te, sigma_grid=[0.1, -1.0])
    with pytest.raises(ValueError, match="rule"):
        kliep_sigma(X_tr, X_te, rule="aic")
    with pytest.raises(ValueError, match="y_tr"):
        kliep_sigma(X_tr, X_te, rule="iwcv")
    with pytest.raises(ValueError, match="y_tr"):
        kliep_sigma(X_tr, X_te, rule="iwcv", y_tr=paper_data.Y_tr[:10])


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


@pytest.mark.parametrize("grid", ["abc", "0.5", ["a", "b"], ["0.1", "0.3"], [0.1, "a"], [[0.1], [0.2, 0.3]],
                                  [], [0.1, -1.0], [0.0, 1.0], [0.1, np.nan], [np.inf], [True, 2.0], [1j]])
def test_a_sigma_grid_that_is_not_positive_numbers_is_refused_by_name(paper_data, grid):
    with pytest.raises(ValueError, match="sigma_grid"):
        kliep_sigma(paper_data.X_tr, paper_data.X_te, sigma_grid=grid)
    with pytest.raises(ValueError, match="sigma_grid"):
        FCFWCS(sigma="auto", sigma_grid=grid).fit(paper_data.X_tr, paper_data.X_te)
