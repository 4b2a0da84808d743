"""Reproduction: every claim the app teaches, measured over seeds beside the papers' numbers."""

import pathlib

import pandas as pd
import streamlit as st

from teaching import ui
from teaching import figures, reproduction
from teaching.numbers import format_number

RESULTS = pathlib.Path(__file__).resolve().parents[1] / "assets" / "reproduction.json"

ui.through_app()
st.title("Reproduction: the papers, checked")
st.markdown(
    "Each row is one claim of one paper: the paper's number, ours as mean ± sd over seeds, and a "
    "verdict. **✔ reproduced** and **✘ not reproduced** are measured on the paper's own (synthetic) "
    "data; **≈ not comparable** means our data are a stand-in (8x8 digits for USPS, a planar arm for "
    "HumanEva), and the reason says whether the *direction* of the claim holds there. The numbers "
    "come from `python bench/reproduce.py`; press **Re-run this row** to recompute a row on small "
    "sizes and compare with the stored small-size numbers.")


def fmt(x):
    return format_number(x, "auto", missing="not reached")


def verdict_text(verdict):
    icon, word = figures.VERDICT_MARKS[verdict]
    return f"{icon} {word}"


def ours(metrics):
    return "; ".join(f"{k}: {fmt(m['mean'])} ± {fmt(m['sd'])}" for k, m in metrics.items())


def figure(row):
    make_figure, args = figures.row_figure(row)
    return ui.figure(make_figure, *args, **ui.device())


def rerun(row):
    """Recompute a row on the small size for the stored small seeds, with a progress bar: each seed a step
    of the pipeline (reproduction.rerun_row: within the budget, on the fit workers); a refusal is kept
    where the table would be."""
    seeds = row["small"]["seeds"]
    progress = st.progress(0.0, text=f"re-running {row['key']} (small size)...")
    fresh = {}
    try:
        for i, seed in enumerate(seeds):
            for name, value in reproduction.rerun_row(row, seed).items():
                fresh.setdefault(name, []).append(value)
            progress.progress((i + 1) / len(seeds), text=f"seed {seed} done")
    except ValueError as refusal:  # the budget's, or the workers' (a runaway stopped): no table, the reason
        progress.empty()
        st.session_state[f"rerun.{row['key']}"] = str(refusal)
        return
    table = []
    for name, stored in row["small"]["metrics"].items():
        new = fresh.get(name, [])
        table.append({"metric": name, "stored (small)": ", ".join(fmt(v) for v in stored["values"]),
                      "re-run now": ", ".join(fmt(None if v != v else v) for v in new),
                      "reproduces": "timing (varies with load)" if reproduction.is_timing(name) else (
                          "✔ yes" if reproduction.agrees(name, stored["values"], new) else "✘ no")})
    st.session_state[f"rerun.{row['key']}"] = table


if not RESULTS.exists():
    st.info("No results yet: run `python bench/reproduce.py` to write assets/reproduction.json.")
    st.stop()

results = ui.stored_json(RESULTS)
unknown = [r["key"] for r in results["rows"] if r["key"] not in reproduction.ROWS]
st.caption(f"Code version {results['code_version'][:10]}, generated {results['generated']}, "
           f"{results['machine']}. Full table: bench/results/reproduction.md.")
counts = pd.Series([r["verdict"] for r in results["rows"]]).value_counts()
st.markdown(" · ".join(f"**{verdict_text(v)}**: {counts.get(v, 0)}" for v in reproduction.VERDICTS))

for paper, title in reproduction.PAPERS.items():
    rows = [r for r in results["rows"] if r["paper"] == paper]
    if not rows:
        continue
    st.header(title)
    ui.show_table([{
        "where": r["where"], "claim": r["claim"],
        "paper": "; ".join(f"{k}: {v}" for k, v in r["paper_values"].items()) or "sign / figure only",
        "ours (mean ± sd)": ours(r["full"]["metrics"]), "verdict": verdict_text(r["verdict"]),
        "reason": r["reason"]} for r in rows], wrap=True)
    for r in rows:
        st.subheader(f"{figures.VERDICT_MARKS[r['verdict']][0]} {r['where']}: {r['key']}")
        left, right = st.columns([3, 2])
        left.plotly_chart(figure(r), width="stretch", key=f"fig.{r['key']}", theme=None, config=ui.chart_config())
        right.markdown(f"**Claim.** {r['claim']}")
        right.markdown(f"**Verdict: {verdict_text(r['verdict'])}.** {r['reason']}.")
        right.markdown(f"**Setting.** {r['sizes']['full']}; seeds {', '.join(map(str, r['full']['seeds']))}. "
                       f"{r['notes']}")
        right.caption("Bars: ours (mean ± sd over seeds); open diamonds: the paper's numbers. "
                      "Curves: mean with a ± sd band.")
        if r["key"] in reproduction.ROWS:
            if right.button("Re-run this row", key=f"rerun.button.{r['key']}",
                            help=f"Small size: {r['sizes']['small']}; seeds {r['small']['seeds']}"):
                ui.guard("Re-run this row", rerun, r)
            rerun_shown = st.session_state.get(f"rerun.{r['key']}")
            if isinstance(rerun_shown, str):
                ui.refusal("Re-run this row", rerun_shown)
            elif rerun_shown is not None:
                ui.show_table(rerun_shown)
                st.caption(f"'reproduces': each seed's fresh value is within a tenth of the seed-to-seed "
                           f"spread (or {reproduction.RELATIVE_TOL:g} relative) of its stored value: another "
                           "CPU or BLAS changes the last digits, not the result.")
if unknown:
    st.warning(f"Rows in the results file that the code no longer defines: {unknown}.")
