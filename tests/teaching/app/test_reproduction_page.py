"""The Reproduction page renders the stored results and re-runs a row through the pipeline: on the executor,
within the budget, a refusal where the table would be (AppTest, through app.py as the server does)."""

import concurrent.futures
import json
import multiprocessing

from teaching import budget, steps
from tests.teaching.app.helpers import ROOT, go, no_exception, open_link
from tests.teaching.test_one_door import Recording


def test_reproduction_page_renders_every_row_with_a_verdict_in_words():
    rows = json.loads((ROOT / "assets" / "reproduction.json").read_text())["rows"]
    at = no_exception(go(open_link(), "pages/reproduction.py"))
    assert at.title[0].value.startswith("Reproduction")
    assert len(at.main.header) == len({r["paper"] for r in rows})
    assert len(at.get("plotly_chart")) == len(rows)
    assert len([b for b in at.button if b.label == "Re-run this row"]) == len(rows)
    shown = " ".join(m.value for m in at.markdown)
    for word in {r["verdict"] for r in rows}:
        assert word in shown


def test_re_run_button_recomputes_the_row_on_the_small_size():
    at = no_exception(go(open_link(), "pages/reproduction.py"))
    button = next(b for b in at.button if b.key == "rerun.button.smtgp.certainty.toy1")
    no_exception(button.click().run())
    table = next(d.value for d in at.dataframe if "re-run now" in d.value.columns)
    assert (table["reproduces"] == "✔ yes").all(), table


def _clear(step):
    cached = steps._CACHED[step]
    (getattr(cached, "clear", None) or cached.cache_clear)()


def test_re_run_is_computed_on_the_executor_never_in_the_script_thread():
    at = no_exception(go(open_link(), "pages/reproduction.py"))
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as worker:
        executor = Recording(worker)  # a worker process, as the server's
        previous = steps.use_executor(executor)
        try:
            _clear("reproduction_row")
            button = next(b for b in at.button if b.key == "rerun.button.dtso.digits.l10")
            no_exception(button.click().run(timeout=300))
        finally:
            steps.use_executor(previous)
    assert executor.sent == [("reproduction_row", ("dtso.digits.l10", seed, "small")) for seed in (0, 1)]
    table = next(d.value for d in at.dataframe if "re-run now" in d.value.columns)
    assert (table["reproduces"] == "✔ yes").all(), table


def test_a_re_run_beyond_the_budget_is_refused_where_its_table_would_be(monkeypatch):
    at = no_exception(go(open_link(), "pages/reproduction.py"))
    monkeypatch.setattr(budget, "BUDGET_SECONDS", 0.001)  # every stored row took longer per seed
    executor = Recording()
    previous = steps.use_executor(executor)
    try:
        button = next(b for b in at.button if b.key == "rerun.button.fw.fig2.gap")
        no_exception(button.click().run())
    finally:
        steps.use_executor(previous)
    assert executor.sent == []
    refusal = [e.value for e in at.error if "Re-run this row" in e.value]
    assert len(refusal) == 1 and "fw.fig2.gap" in refusal[0] and "bench/reproduce.py --rows fw.fig2.gap" in refusal[0]
    assert not [d for d in at.dataframe if "re-run now" in d.value.columns]
    monkeypatch.undo()
    no_exception(at.run())  # the refusal stays where the table would be until the row is re-run
    assert [e.value for e in at.error if "Re-run this row" in e.value] == refusal
