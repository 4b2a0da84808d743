import numpy as np
import pytest

from covshift.data import sinc_shift


@pytest.fixture(scope="session")
def paper_data():
    """The paper's synthetic problem (section III-D): 500 training, 300 test points."""
    return sinc_shift(random_state=0)


@pytest.fixture
def small_2d():
    rng = np.random.default_rng(1)
    return rng.normal(0.3, 1.0, (60, 2)), rng.normal(0.0, 0.6, (50, 2))
