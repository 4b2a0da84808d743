"""ui.of_view (issue 40): what a page derives from its View is computed once per equal View and arguments, shared
read-only, and never kept when it fails."""

import numpy as np
import pytest
import streamlit as st

from teaching import readings, ui
from teaching.lessons import LESSONS
from teaching.lessons.core import LessonRun

CALLS = []


def _counted(view, names):
    """A teaching-like derived function: counts its calls."""
    CALLS.append((view, names))
    return {"seed": view.seed, "values": np.arange(3.0), "names": list(names)}


_counted.__module__ = "teaching.derived_for_test"  # of_view takes module-level functions of teaching only


def _failing(view):
    CALLS.append(view)
    raise ValueError("refused")


_failing.__module__ = "teaching.derived_for_test"


@pytest.fixture(autouse=True)
def _empty():
    st.cache_resource.clear()
    CALLS.clear()


def _view(seed):
    return LessonRun(LESSONS["Estimators disagree"], seed).view


def test_equal_views_share_one_result_and_other_views_or_arguments_get_their_own():
    first = ui.of_view(_counted, _view(0), ("KMM",))
    again = ui.of_view(_counted, _view(0), ("KMM",))  # an equal View built anew: another session, a rerun
    assert again is first and len(CALLS) == 1
    assert ui.of_view(_counted, _view(1), ("KMM",))["seed"] == 1
    assert ui.of_view(_counted, _view(0), ("RuLSIF",))["names"] == ["RuLSIF"]
    assert len(CALLS) == 3


def test_the_shared_arrays_are_read_only():
    values = ui.of_view(_counted, _view(0), ("KMM",))["values"]
    with pytest.raises(ValueError, match="read-only"):
        values[0] = 1.0


def test_a_failure_is_raised_each_time_and_not_kept():
    for _ in range(2):
        with pytest.raises(ValueError, match="refused"):
            ui.of_view(_failing, _view(0))
    assert len(CALLS) == 2


def test_only_functions_of_the_package_are_kept():
    with pytest.raises(TypeError, match="not a function of the covshift or teaching package"):
        ui.of_view(lambda view: 1, _view(0))


def test_the_weights_page_curves_are_those_of_the_views_fits():
    view = _view(0)
    names = ("FCFWCS", "KMM", "RuLSIF")
    grid, curves, on_points, true_curve = ui.of_view(readings.weight_curves, view, names)
    assert set(curves) == {"FCFWCS", "RuLSIF"} and set(on_points) == {"KMM"}  # KMM weights the training points only
    np.testing.assert_array_equal(curves["RuLSIF"], view.weights("RuLSIF").model.predict_weights(grid[:, None]))
    np.testing.assert_array_equal(on_points["KMM"], view.weights("KMM").model.weights_)
    np.testing.assert_array_equal(true_curve, view.data().density_ratio(grid[:, None]))
