import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from covshift.data import sinc_shift


@pytest.fixture(scope="session")
def paper_data():
    """The paper's synthetic problem (section III-D): 500 training, 300 test points."""
    return sinc_shift(random_state=0)


@pytest.fixture
def small_2d():
    rng = np.random.default_rng(1)
    return rng.normal(0.3, 1.0, (60, 2)), rng.normal(0.0, 0.6, (50, 2))


# A test run of the app (AppTest) starts the server's fit workers (teaching.serve.start) but does not warm
# every lesson in the background: that would compete with the tests for the machine's cores.
os.environ.setdefault("COVSHIFT_WARM", "0")

# Tests hold on a busy machine (issue 30, item 7): no property test has a wall-clock deadline, and slow data
# generation on a loaded machine is no failure. A test's own @settings may ask for more, never for a deadline.
settings.register_profile("any-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("any-machine")
