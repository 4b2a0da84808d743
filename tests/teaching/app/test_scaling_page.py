"""The Scaling page through streamlit.testing.v1.AppTest: after Run, a chart, a table of medians with the
runs and iterations, slopes in the caption, and no progress bar left standing."""

import numpy as np

from teaching import steps
from tests.teaching.app.helpers import go, no_exception, open_link


def test_run_draws_chart_table_and_slopes_and_clears_the_progress_bar():
    at = go(open_link(), "pages/scaling.py")
    at.multiselect(key="w.scaling_estimators").set_value(["FCFWCS", "KLIEP"]).run()
    at.multiselect(key="w.scaling_sizes").set_value([100, 200]).run()
    at.button(key="scaling_run").click().run()
    no_exception(at)
    assert not at.get("progress"), "the progress bar stays after the run"
    table = at.dataframe[0].value
    assert list(table["method"]) == ["FCFWCS", "FCFWCS", "KLIEP", "KLIEP"] and list(table["n"]) == [100, 200, 100, 200]
    assert (table["runs"] >= 1).all() and (table["median s"] > 0).all() and (table["iter."] >= 1).all()
    slopes = [c.value for c in at.caption if c.value.startswith("Slopes")]
    assert slopes and "FCFWCS" in slopes[0] and "KLIEP" in slopes[0]


def test_timing_is_repeated_and_the_slope_is_fitted_on_the_medians():
    runs, iterations, limited = steps.timing("FCFWCS", 100, 0.3)
    assert 2 <= len(runs) <= steps.TIMING_RUNS and iterations >= 1 and not limited
    rows, slopes = steps.timing_summary({"A": {100: ((1.0, 3.0, 2.0), 10, False), 1000: ((200.0,), 10, True)}})
    assert rows[0]["median s"] == 2.0 and rows[0]["runs"] == 3 and rows[0]["ms / iteration"] == 200.0
    assert np.isclose(slopes["A"], 2.0)
