"""The shared Fig. 3 protocol (covshift.classification.protocol): risk reduction, tuning split, tuning choice."""

import numpy as np
import pytest

from covshift.classification.protocol import TUNING_FRACTION, reduction, split_pool, tuned


def test_reduction_is_the_fraction_of_the_iid_risk_removed():
    assert reduction(0.95, 0.90) == pytest.approx(0.5)
    assert reduction(0.90, 0.90) == 0.0
    assert reduction(0.80, 0.90) == pytest.approx(-1.0)
    assert np.isnan(reduction(0.9, 1.0))


def test_split_pool_gives_a_disjoint_tuning_set_with_both_classes():
    y = np.array([0] * 3 + [1] * 37)
    tune, rest = split_pool(y, np.random.default_rng(0))
    assert len(tune) == round(TUNING_FRACTION * len(y)) and not set(tune) & set(rest)
    assert set(y[tune]) == {0, 1} and set(y[rest]) == {0, 1}
    with pytest.raises(ValueError, match="tuning set"):
        split_pool(np.array([0, 1, 1, 1]), np.random.default_rng(0))


class _Scores:
    def __init__(self, scores):
        self.scores = np.asarray(scores, float)

    def decision_function(self, X):
        return self.scores


def test_tuned_picks_the_highest_tuning_auc_and_breaks_ties_towards_one():
    y = np.array([0, 0, 1, 1])
    perfect, poor = _Scores([0, 1, 2, 3]), _Scores([3, 2, 1, 0])
    fits = {(0.1, None): (perfect, 1.0), (1.0, None): (poor, 2.0), (10.0, None): (poor, 3.0)}
    assert tuned(fits, None, y) == ((0.1, None), perfect, 1.0)  # highest AUC, though far from 1
    fits[(3.0, None)] = (perfect, 4.0)
    assert tuned(fits, None, y)[0] == (3.0, None)  # same AUC as 0.1, closer to 1
