import pytest

from covshift import catalog
from covshift.model_selection import kliep_sigma


def test_shared_kliep_sigma_is_the_model_selection_choice_and_names_its_rule(paper_data):
    shared = catalog.shared_kliep_sigma(paper_data)
    assert shared.sigma == kliep_sigma(paper_data.X_tr, paper_data.X_te)["best_sigma"]
    assert shared.rule == "lcv" and shared.rule_label == "likelihood cross-validation"
    assert shared.seconds > 0 and "mean_log_likelihood" in shared.cv_results
    manual = catalog.shared_kliep_sigma(paper_data, sigma=0.4)
    assert (manual.sigma, manual.rule, manual.cv_results) == (0.4, "manual", None)
    iwcv = catalog.shared_kliep_sigma(paper_data, rule="iwcv")
    assert iwcv.rule_label == "importance-weighted cross-validation"
    assert iwcv.sigma in iwcv.cv_results["sigma"]


@pytest.mark.parametrize("name", sorted(catalog.KLIEP_FAMILY))
def test_kliep_family_fitted_with_the_shared_sigma_uses_it(name, paper_data):
    shared = catalog.shared_kliep_sigma(paper_data)
    outcome = catalog.fit_weights(paper_data, name, shared.sigma)
    assert outcome.model.sigma_ == shared.sigma
