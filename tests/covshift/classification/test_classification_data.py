"""The classification data: the 2-D toy and the bundled real tasks under selection bias."""

import numpy as np
import pytest


# ------------------------------------------------------ classification under covariate shift
def test_shift_classification_2d_selects_training_from_the_left():
    from covshift.data import shift_classification_2d

    data = shift_classification_2d(n=400, random_state=1)
    assert data.X_tr[:, 0].mean() < -0.3 < 0.3 < data.X_te[:, 0].mean()
    assert set(np.unique(data.Y_tr)) == {0.0, 1.0} and len(data.X_tr) + len(data.X_te) == 400
    # the exact ratio of the split is larger on the right, where the test points are
    assert data.density_ratio(np.array([[2.0, 0.0]]))[0] > 1 > data.density_ratio(np.array([[-2.0, 0.0]]))[0]


@pytest.mark.parametrize("name", ["breast_cancer", "digits_3_8", "wine"])
def test_classification_tasks_are_binary_and_biased(name):
    from covshift.data import CLASSIFICATION_TASKS, classification_task

    data = classification_task(name, random_state=0)
    assert set(np.unique(data.Y_tr)) == {0.0, 1.0} == set(np.unique(data.Y_te))
    assert abs(len(data.X_tr) - CLASSIFICATION_TASKS[name][1]) < 0.3 * CLASSIFICATION_TASKS[name][1]
    # selection bias: training points are closer to the pool mean than test points
    pool_mean = np.vstack([data.X_tr, data.X_te]).mean(axis=0)
    assert (np.linalg.norm(data.X_tr - pool_mean, axis=1).mean()
            < np.linalg.norm(data.X_te - pool_mean, axis=1).mean())
    with pytest.raises(ValueError, match="Unknown classification task"):
        classification_task("iris")
