"""A page builds its View once per run (issue 38): ``ui.view()`` is called once by each page, builds the View
only when the settings (or the uploaded file) have changed since the last build, and the View a page computed
with is the View of the settings the run ended with (no widget drawn after it changed it)."""

import pathlib
import re

import pytest

from teaching import uploaded_files
from teaching.ui import session
from teaching.view import View
from tests.teaching.app.helpers import SMALL, no_exception, open_link

ROOT = pathlib.Path(__file__).resolve().parents[3]
#: Pages that compute through a View (the others, Reproduction, About & theory and Join, have none).
VIEW_PAGES = ["pages/home.py", "pages/data.py", "pages/check.py", "pages/weights.py", "pages/regression.py",
              "pages/classification.py", "pages/transfer.py", "pages/scaling.py"]


class _CountedView(View):
    """View whose builds by ``ui.view()`` are counted."""

    builds = 0

    @classmethod
    def from_settings(cls, *args, **kwargs):
        _CountedView.builds += 1
        return View.from_settings(*args, **kwargs)


def _builds(at):
    """Views ``ui.view()`` built during one run of ``at``."""
    _CountedView.builds = 0
    no_exception(at.run())
    return _CountedView.builds


def _the_page_view_is_current(at, dataset):
    """The View kept by the run is the View of the settings the run ended with."""
    kept = at.session_state["views"][dataset][1]
    raw = at.session_state["csv_bytes"] if "csv_bytes" in at.session_state else None
    digest = None if raw is None else uploaded_files.add_file(raw)
    assert kept == View.from_settings(at.session_state["settings"], digest, dataset)


def test_every_page_calls_ui_view_at_most_once():
    calls = {path.name: len(re.findall(r"\bui\.view\(", path.read_text())) for path in (ROOT / "pages").glob("*.py")}
    assert all(count <= 1 for count in calls.values()), calls
    assert {name for name, count in calls.items() if count} == {pathlib.Path(p).name for p in VIEW_PAGES}


@pytest.mark.parametrize("page", VIEW_PAGES)
def test_a_page_builds_its_view_once_per_run(monkeypatch, page):
    monkeypatch.setattr(session, "View", _CountedView)
    at = open_link(SMALL)
    at.query_params.clear()
    at.switch_page(page)
    dataset = "sinc" if page == "pages/home.py" else None
    assert _builds(at) <= 1  # the first run on the page (Home's View was built by the opening run)
    _the_page_view_is_current(at, dataset)
    assert _builds(at) == 0  # a run with the same settings: the kept View, not built again
    at.sidebar.number_input(key="w.seed").set_value(5)
    assert _builds(at) == 1  # a new seed: one new View for the whole run, however often the page computes
    _the_page_view_is_current(at, dataset)
    assert at.session_state["views"][dataset][1].seed == 5
