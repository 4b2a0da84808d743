"""The Reproduction page renders the stored results (AppTest, through app.py as the server does)."""

import json

from tests.teaching.app.helpers import ROOT, go, no_exception, open_link


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
