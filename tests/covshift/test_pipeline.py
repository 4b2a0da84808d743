"""Importance weights inside scikit-learn's and skada's workflows (covshift/pipeline.py, issue 32)."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.preprocessing import StandardScaler

from covshift import FCFWCS, GPR, KMM, data
from covshift.pipeline import (ImportanceReweighter, ReweightAdapter, importance_weighted_scorer,
                               make_reweighting_pipeline)

SIGMA = 0.3


def _stacked(seed=0, n_tr=60, n_te=60):
    """Source rows (labelled) over target rows (labels masked with NaN), and sample_domain."""
    shift = data.sinc_shift(n_tr=n_tr, n_te=n_te, random_state=seed)
    X = np.vstack([shift.X_tr, shift.X_te])
    y = np.r_[shift.Y_tr.ravel(), np.full(n_te, np.nan)]
    domain = np.r_[np.ones(n_tr, dtype=int), -np.ones(n_te, dtype=int)]
    return X, y, domain, shift


class RecordingFCFWCS(FCFWCS):
    """FCFWCS that records the rows of every fit (class attribute: clones share it)."""

    fits = []

    def fit(self, X_tr, X_te):
        RecordingFCFWCS.fits.append((np.array(X_tr), np.array(X_te)))
        return super().fit(X_tr, X_te)


def test_fit_equals_weights_then_weighted_model():
    X, y, domain, shift = _stacked()
    model = ImportanceReweighter(FCFWCS(sigma=SIGMA), GPR()).fit(X, y, sample_domain=domain)
    weights = FCFWCS(sigma=SIGMA).fit(shift.X_tr, shift.X_te).weights_
    np.testing.assert_allclose(model.weights_, weights, rtol=1e-10)
    direct = GPR().fit(shift.X_tr, shift.Y_tr.ravel(), sample_weight=weights)
    np.testing.assert_allclose(model.predict(shift.X_te), direct.predict(shift.X_te), rtol=1e-10)
    assert (model.n_source_, model.n_target_) == (60, 60)
    # masked labels alone give the same domains (skada's convention)
    masked = ImportanceReweighter(FCFWCS(sigma=SIGMA), GPR()).fit(X, y)
    np.testing.assert_array_equal(masked.weights_, model.weights_)


def test_grid_search_re_estimates_the_weights_in_every_fold_from_its_own_rows():
    X, y, domain, _ = _stacked()
    RecordingFCFWCS.fits = []
    cv = KFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(ImportanceReweighter(RecordingFCFWCS(sigma=SIGMA), GPR()),
                          {"estimator__rho_x": [0.3, 1.0]}, cv=cv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X, y, sample_domain=domain)
    fold_fits = RecordingFCFWCS.fits[:-1]  # the last one is the refit on all rows
    assert len(fold_fits) == 3 * 2
    folds = [(X[train[domain[train] >= 0]], X[train[domain[train] < 0]]) for train, _ in cv.split(X)]
    hits = [0, 0, 0]
    for X_tr, X_te in fold_fits:  # every fit saw exactly one fold's source and target rows
        matches = [k for k, (tr, te) in enumerate(folds)
                   if tr.shape == X_tr.shape and te.shape == X_te.shape and np.array_equal(tr, X_tr)
                   and np.array_equal(te, X_te)]
        assert len(matches) == 1
        hits[matches[0]] += 1
    assert hits == [2, 2, 2]  # each fold once per grid point
    assert all(len(te) > 30 for _, te in folds)  # the folds kept their share of the 60 target rows
    refit_tr, refit_te = RecordingFCFWCS.fits[-1]
    assert len(refit_tr) == 60 and len(refit_te) == 60
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_importance_weighted_scoring_with_the_folds_weights():
    X, y, domain, _ = _stacked()
    model = ImportanceReweighter(FCFWCS(sigma=SIGMA), GPR()).fit(X[::2], y[::2], sample_domain=domain[::2])
    held_X, held_y = X[1::2], y[1::2]
    source = ~np.isnan(held_y)
    weights = model.weight_estimator_.predict_weights(held_X[source])
    expected = -mean_absolute_error(held_y[source], model.predict(held_X[source]), sample_weight=weights)
    scorer = importance_weighted_scorer("neg_mean_absolute_error")
    assert scorer(model, held_X, held_y) == pytest.approx(expected, rel=1e-12)
    # the default score is IWCV with the estimator's own score (R^2), target rows left out
    r2 = model.estimator_.score(held_X[source], held_y[source], sample_weight=weights)
    assert model.score(held_X, held_y) == pytest.approx(r2, rel=1e-12)


def test_metadata_routing_passes_sample_domain_and_score_weights():
    X, y, domain, _ = _stacked()
    y_unmasked = np.where(np.isnan(y), 0.0, y)  # domains from sample_domain only
    given = np.random.default_rng(0).uniform(0.5, 2.0, len(X))
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = ImportanceReweighter(FCFWCS(sigma=SIGMA), GPR()).set_score_request(sample_weight=True)
        cv = KFold(3, shuffle=True, random_state=1)
        search = GridSearchCV(estimator, {"estimator__rho_x": [0.5]}, cv=cv, refit=False)
        search.fit(X, y_unmasked, sample_domain=domain, sample_weight=given)
        for k, (train, test) in enumerate(cv.split(X)):
            fold = clone(estimator).set_params(estimator__rho_x=0.5).fit(X[train], y_unmasked[train], sample_domain=domain[train])
            assert fold.n_target_ == np.sum(domain[train] < 0)
            source = test[domain[test] >= 0]
            expected = fold.estimator_.score(X[source], y_unmasked[source], sample_weight=given[source])
            assert search.cv_results_[f"split{k}_test_score"][0] == pytest.approx(expected, rel=1e-10)


def test_target_rows_cannot_be_sliced_away_unnoticed():
    X, y, domain, _ = _stacked()
    with pytest.raises(ValueError, match="No target .*rows"):
        ImportanceReweighter(FCFWCS(sigma=SIGMA), GPR()).fit(X[domain >= 0], y[domain >= 0])
    with pytest.raises(ValueError, match="sample_domain"):
        ImportanceReweighter(FCFWCS(sigma=SIGMA), GPR()).fit(X, y, sample_domain=domain[:-1])
    model = ImportanceReweighter(KMM(sigma=SIGMA), GPR()).fit(X, y, sample_domain=domain)
    with pytest.raises(ValueError, match="held-out rows.*sample_weight"):
        model.score(X, y)


def test_reweighting_pipeline_estimates_the_weights_after_preprocessing():
    X, y, domain, shift = _stacked()
    pipe = make_reweighting_pipeline(FCFWCS(sigma=SIGMA), GPR(), StandardScaler())
    pipe.fit(X, y, importancereweighter__sample_domain=domain)
    scaled = StandardScaler().fit(X)
    weights = FCFWCS(sigma=SIGMA).fit(scaled.transform(shift.X_tr), scaled.transform(shift.X_te)).weights_
    np.testing.assert_allclose(pipe[-1].weights_, weights, rtol=1e-10)


def test_importing_skada_leaves_scikit_learns_configuration_alone():
    """skada's import calls sklearn.set_config(enable_metadata_routing=True); the test below
    imports it inside config_context so that the other tests keep scikit-learn's defaults."""
    before = sklearn.get_config()["enable_metadata_routing"]
    with sklearn.config_context():
        pytest.importorskip("skada")
    assert sklearn.get_config()["enable_metadata_routing"] == before


def test_inside_skadas_pipeline_with_its_splitter_and_scorer():
    with sklearn.config_context():  # importing skada turns metadata routing on for the whole process
        skada = pytest.importorskip("skada")
        from skada.metrics import ImportanceWeightedScorer
        from skada.model_selection import SourceTargetShuffleSplit

    X, y, domain, shift = _stacked()
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        final = GPR().set_fit_request(sample_weight=True).set_score_request(sample_weight=True)
        pipe = skada.make_da_pipeline(ReweightAdapter(FCFWCS(sigma=SIGMA)), final)
        pipe.fit(X, y, sample_domain=domain)
        adapter = pipe[0].get_estimator()
        weights = FCFWCS(sigma=SIGMA).fit(shift.X_tr, shift.X_te).weights_
        np.testing.assert_allclose(adapter.weights_[domain >= 0], weights, rtol=1e-10)
        assert np.all(adapter.weights_[domain < 0] == 0)
        direct = GPR().fit(shift.X_tr, shift.Y_tr.ravel(), sample_weight=weights)
        np.testing.assert_allclose(pipe.predict(shift.X_te), direct.predict(shift.X_te), rtol=1e-10)
        search = GridSearchCV(pipe, {"gpr__rho_x": [0.3, 1.0]},
                              cv=SourceTargetShuffleSplit(n_splits=2, random_state=0),
                              scoring=ImportanceWeightedScorer())
        search.fit(X, y, sample_domain=domain)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


@pytest.mark.parametrize("solver", ["FWCS", "FCFWCS"])
def test_keep_history_false_gives_the_same_weights_without_the_history(solver):
    import pickle

    import covshift

    shift = data.sinc_shift(n_tr=120, n_te=120, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FWCS's ConvergenceWarning at max_iter
        kept = getattr(covshift, solver)(sigma=SIGMA, max_iter=300).fit(shift.X_tr, shift.X_te)
        lean = getattr(covshift, solver)(sigma=SIGMA, max_iter=300, keep_history=False).fit(shift.X_tr, shift.X_te)
    np.testing.assert_array_equal(lean.weights_, kept.weights_)
    assert lean.history_ is None and kept.history_ is not None
    # FWCS runs all 300 iterations (1.2 MB of history, measured); FCFWCS stops after about a dozen
    assert len(pickle.dumps(lean)) < len(pickle.dumps(kept)) / (10 if solver == "FWCS" else 1)


def test_two_stage_classifier_is_an_importance_reweighter_with_masked_class_labels():
    """TwoStageShiftClassifier(weights, classifier).fit(X_tr, y_tr, X_te) is the reweighter on the
    stacked rows with the target labels masked as -1 (skada's convention for classes)."""
    from covshift import KernelLogisticRegression, LogisticRatio, TwoStageShiftClassifier

    toy = data.shift_classification_2d(random_state=0)
    X = np.vstack([toy.X_tr, toy.X_te])
    y = np.r_[toy.Y_tr[:, 0], np.full(len(toy.X_te), -1)].astype(int)
    weights, classifier = LogisticRatio(sigma=0.5), KernelLogisticRegression(sigma=0.5)
    two_stage = TwoStageShiftClassifier(weights, classifier).fit(toy.X_tr, toy.Y_tr[:, 0], toy.X_te)
    reweighter = ImportanceReweighter(weights, classifier).fit(X, y)
    np.testing.assert_allclose(reweighter.weights_, two_stage.weights_, rtol=1e-12)
    np.testing.assert_array_equal(reweighter.classes_, two_stage.classes_)
    np.testing.assert_allclose(reweighter.decision_function(toy.X_te), two_stage.decision_function(toy.X_te),
                               rtol=1e-10)
