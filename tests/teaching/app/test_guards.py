"""Issue 9, item 7: the page-level computations that used to put exceptions on a page."""

import numpy as np

from tests.teaching.app.helpers import go, no_exception, open_link, table


def test_charts_that_can_repeat_have_their_own_keys():
    # Identical figures without keys collide (StreamlitDuplicateElementId), as two identical
    # "how sigma was chosen" charts did.
    at = no_exception(go(open_link({"sinc.n_tr": "60", "sinc.n_te": "40", "sigma_mode": "auto",
                                    "estimators": "FCFWCS,KLIEP"}), "pages/weights.py"))
    keys = [chart.proto.id for chart in at.get("plotly_chart")]
    assert len(keys) == len(set(keys))
    assert any(key.endswith("-weights.cv.shared") for key in keys)
    at = no_exception(go(open_link({"sinc.n_tr": "60", "sinc.n_te": "40", "models": "KLTGP,SMTGP,IKLTGP"}),
                         "pages/regression.py"))
    keys = [chart.proto.id for chart in at.get("plotly_chart")]
    assert sum("regression.certainty." in key for key in keys) == 3


def test_certainty_correlation_with_two_test_points_is_explained_not_raised():
    rows = [f"{x:.3f},{np.sin(3 * x):.4f},{int(i >= 2)}" for i, x in enumerate(np.linspace(-1, 1, 30))]
    at = open_link({"source": "csv", "csv_inputs": "x", "csv_outputs": "y", "csv_split": "train",
                    "models": "SMTGP,GPR", "estimators": "FCFWCS"})
    at.session_state["csv_bytes"] = ("x,y,train\n" + "\n".join(rows)).encode()
    no_exception(go(at, "pages/regression.py"))
    assert len(table(at)) == 2
    assert any("at least 3 test points" in caption.value for caption in at.caption)


def test_degenerate_circle_link_shows_finite_numbers():
    at = no_exception(go(open_link({"dataset": "circle", "circle.std_tr": "0", "circle.n_tr": "60",
                                    "circle.n_te": "40", "estimators": "FCFWCS,KMM"}), "pages/weights.py"))
    assert at.session_state["settings"]["circle.std_tr"] == 0.1  # clamped into the slider's range
    nmse = table(at)["NMSE"]
    assert nmse.notna().all() and np.isfinite(nmse.to_numpy(dtype=float)).all()
    no_exception(go(at, "pages/data.py"))
    assert len(at.get("plotly_chart")) >= 2


def test_sizes_beyond_the_budget_are_refused_with_the_way_out():
    """Issue 9: the Data page offers sinc up to the fastest method's limit; a slower selected
    method is refused with a message naming its limit, and nothing is computed."""
    at = go(open_link({"sinc.n_tr": "2500", "sinc.n_te": "2500", "models": "SMTGP"}), "pages/regression.py")
    no_exception(at)
    assert any("SMTGP" in e.value and "limited to" in e.value for e in at.error), [e.value for e in at.error]


def test_the_size_sliders_say_at_once_what_will_be_refused():
    """Issue 23: on the Data page, beside the size sliders, the selected methods that the budget
    would refuse at this size are named with their limits, before any page computes."""
    at = open_link({"sinc.n_tr": "2500", "sinc.n_te": "2500", "models": "SMTGP", "estimators": "FCFWCS,KMM"})
    at = no_exception(go(at, "pages/data.py"))
    [warning] = [w.value for w in at.warning if "will refuse" in w.value]
    assert "SMTGP (at most 1000)" in warning and "KMM (at most 1500)" in warning and "FCFWCS" not in warning
    at = no_exception(go(open_link({"sinc.n_tr": "300", "sinc.n_te": "300"}), "pages/data.py"))
    assert not [w.value for w in at.warning if "will refuse" in w.value]
