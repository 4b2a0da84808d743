"""The reproduction results file: fresh (every registered row present, code version recorded),
each row recomputable on one seed at the small size within the stored spread, the verdict
logic and the figures. The page's AppTest is tests/teaching/app/test_reproduction_page.py."""

import json
import pathlib
import re

import numpy as np
import pytest

from teaching import figures
from teaching import reproduction as R

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "assets" / "reproduction.json"
MARKDOWN = ROOT / "bench" / "results" / "reproduction.md"


@pytest.fixture(scope="module")
def results():
    return json.loads(RESULTS.read_text())


def _stored(results, key):
    return next(r for r in results["rows"] if r["key"] == key)


# ------------------------------------------------------------------ freshness
def test_results_file_has_every_registered_row_with_the_current_text(results):
    assert re.fullmatch(r"[0-9a-f]{40}", results["code_version"])
    assert [r["key"] for r in results["rows"]] == R.row_keys(), "re-run bench/reproduce.py"
    for r in results["rows"]:
        row = R.ROWS[r["key"]]
        assert (r["paper"], r["where"], r["claim"]) == (row.paper, row.where, row.claim), r["key"]
        assert r["paper_values"] == {k: v for k, v in row.paper_values.items()}, r["key"]
        assert r["verdict"] in R.VERDICTS and r["reason"], r["key"]
        assert re.fullmatch(r"[0-9a-f]{40}", r["code_version"])
        assert len(r["full"]["seeds"]) >= 10 or "seeds" in r["reason"], r["key"]
        # the same metrics at both sizes (curve rows: the same models, at other training sizes)
        names = [{m.split(" @ n_tr=")[0] for m in r[size]["metrics"]} for size in ("small", "full")]
        assert names[0] == names[1], r["key"]


def test_markdown_lists_every_row_with_its_seeds(results):
    text = MARKDOWN.read_text()
    assert results["code_version"] in text
    for r in results["rows"]:
        assert r["claim"] in text and ", ".join(map(str, r["full"]["seeds"])) in text


def test_every_verdict_follows_from_the_stored_numbers(results):
    """The judge applied to the stored per-seed numbers gives the stored verdict and reason."""
    for r in results["rows"]:
        values = {k: np.array([np.nan if v is None else v for v in m["values"]])
                  for k, m in r["full"]["metrics"].items()}
        assert R.ROWS[r["key"]].judge(values) == (r["verdict"], r["reason"]), r["key"]


# ------------------------------------------------------------------ recompute each row
@pytest.mark.slow
@pytest.mark.parametrize("key", R.row_keys())
def test_row_recomputes_within_the_stored_spread(results, key):
    """One seed at the small size agrees with its stored run (R.agrees: within a tenth of the
    seed-to-seed spread; timings, which depend on the machine's load, only have to be positive)."""
    stored = _stored(results, key)["small"]
    seed = stored["seeds"][0]
    fresh = R.run_row(key, seed, "small")
    assert set(fresh) == set(stored["metrics"])
    for name, value in fresh.items():
        values = stored["metrics"][name]["values"]
        if values[0] is None and ("nnz" in name or R.is_timing(name)):
            continue  # the gap was not reached within the budget there; here it may be
        assert R.agrees(name, values, [value]), (name, value, values)


def test_agrees_allows_a_tenth_of_the_seed_spread_and_nothing_more():
    stored = [1.70717, 1.15544]  # fw.fig3.arm_pose, IW-SMTGP (PFWCS) @ n_tr=30, seeds 0 and 1
    sd = np.std(stored, ddof=1)
    assert R.agrees("MAE", stored, [1.71862, 1.15544])  # measured on another machine
    assert R.agrees("MAE", stored, [1.71862])  # the first seed alone, as the test re-runs it
    assert R.agrees("MAE", stored, [stored[0] + 0.09 * sd, stored[1]])
    assert not R.agrees("MAE", stored, [stored[0] + 0.11 * sd, stored[1]])
    assert R.agrees("r", [-0.3786704, -0.30572], [-0.3786722, -0.30572])  # 4.7e-6 relative
    assert not R.agrees("MAE", [None, 1.0], [1.0, 1.0])  # reached here, not there
    assert not R.agrees("MAE", [1.0, 2.0], [1.0, 2.0, 3.0])  # a seed that was not stored
    assert R.agrees("MAE", [None, 1.0], [np.nan, 1.0])
    assert R.agrees("fit (s)", [0.5, 0.6], [2.0, 3.0]) and not R.agrees("fit (s)", [0.5], [-1.0])
    assert R.agrees("single", [2.0], [2.0015]) and not R.agrees("single", [2.0], [2.003])


# ------------------------------------------------------------------ registry and verdicts
def test_registry_rejects_duplicates_and_unknown_inputs():
    with pytest.raises(ValueError, match="already registered"):
        R.register(R.ROWS["smtgp.table2.toy1"])
    with pytest.raises(ValueError, match="No reproduction row"):
        R.run_row("no.such.row", 0)
    with pytest.raises(ValueError, match="size"):
        R.run_row("smtgp.table2.toy1", 0, size="huge")


def test_table2_verdict_compares_means():
    judge = R.ROWS["smtgp.table2.toy1"].judge
    good = {"KLTGP": np.array([0.12, 0.13]), "IKLTGP": np.array([0.125, 0.12]), "SMTGP": np.array([0.11, 0.12])}
    assert judge(good)[0] == "reproduced"
    bad = dict(good, SMTGP=np.array([0.2, 0.2]))
    verdict, reason = judge(bad)
    assert verdict == "not reproduced" and "0/2 seeds" in reason


def test_stand_in_rows_are_not_comparable_and_state_the_direction():
    judge = R.ROWS["fw.fig3.arm_pose"].judge
    rng = np.random.default_rng(0)
    base = rng.uniform(0.5, 0.6, 10)
    values = {f"SMTGP @ n_tr={n}": base + 0.1 + rng.normal(0, 0.01, 10) for n in (50, 100)}
    values.update({f"IW-SMTGP (PFWCS) @ n_tr={n}": base for n in (50, 100)})
    values.update({f"IW-SMTGP (FCFWCS) @ n_tr={n}": base for n in (50, 100)})
    verdict, reason = judge(values)
    assert verdict == "not comparable" and reason.startswith("direction holds")
    values.update({f"IW-SMTGP (PFWCS) @ n_tr={n}": base + 0.2 for n in (50, 100)})
    assert judge(values)[1].startswith("direction fails")


def test_summarise_counts_seeds_that_did_not_reach_a_gap():
    summary = R.summarise({"PFWCS nnz @0.001": [3.0, np.nan, 5.0]})["PFWCS nnz @0.001"]
    assert summary["mean"] == 4.0 and summary["reached"] == 2 and summary["values"][1] is None


# ------------------------------------------------------------------ figures and page
def test_figures_draw_every_kind_of_row(results):
    for r in results["rows"]:
        if r["figure"] == "curve":
            fig = figures.reproduction_curve(r["full"]["metrics"])
            assert len(fig.data) == 2 * 4  # band + line per model (3 SMTGPs and the training mean)
        elif r["figure"] == "gaps":
            fig = figures.reproduction_gaps(r["trace"])
            assert {t.name for t in fig.data} >= {"FWCS", "AFWCS", "PFWCS"}
        else:
            fig = figures.reproduction_bars(r["full"]["metrics"], r["paper_values"])
            shown = [n for n, m in r["full"]["metrics"].items() if not R.is_timing(n) and m["mean"] is not None]
            assert list(fig.data[0].x) == shown


def test_verdict_marks_do_not_rely_on_colour():
    icons = [icon for icon, _ in figures.VERDICT_MARKS.values()]
    assert len(set(icons)) == 3 and set(figures.VERDICT_MARKS) == set(R.VERDICTS)


def test_classification_row_compares_integrated_with_the_best_two_stage_method_on_average():
    judge = R.ROWS["dcs.fig3.breast_cancer"].judge
    values = {"integrated": np.array([0.2, 0.1]), "two-stage LogisticRatio": np.array([0.1, 0.0]),
              "two-stage FCFWCS": np.array([0.15, -0.3]), "two-stage KMM": np.array([-0.5, 0.0])}
    verdict, reason = judge(values)
    assert verdict == "not comparable" and reason.startswith("direction holds")
    assert "best two-stage (two-stage LogisticRatio)" in reason and "2/2 seeds" in reason
    values["two-stage KMM"] = np.array([0.3, 0.3])
    assert judge(values)[1].startswith("direction fails")


def test_transfer_row_needs_transfer_above_both_baselines():
    judge = R.ROWS["dtso.digits.l10"].judge
    values = {"domain transfer": np.array([0.5, 0.45]), "source only": np.array([0.2, 0.2]),
              "target only": np.array([0.4, 0.5])}
    verdict, reason = judge(values)
    assert verdict == "not comparable" and reason.startswith("direction holds") and "1/2 seeds" in reason
    values["target only"] = np.array([0.6, 0.5])
    assert judge(values)[1].startswith("direction fails")


def test_certainty_direction_needs_a_significant_negative_mean_over_the_seeds():
    judge = R.ROWS["smtgp.certainty.digits"].judge
    key = "Pearson r (certainty, error)"
    noisy = {key: np.array([-0.3, 0.2, -0.1, 0.15, -0.2, 0.1])}  # mean < 0, majority negative, spread wide
    verdict, reason = judge(noisy)
    assert verdict == "not comparable" and reason.startswith("direction fails") and "not significant" in reason
    clear = {key: np.array([-0.35, -0.4, -0.3, -0.45, -0.38])}
    assert judge(clear)[1].startswith("direction holds")
    assert R.ROWS["smtgp.certainty.toy1"].judge(clear)[0] == "reproduced"
    assert R.ROWS["smtgp.certainty.toy1"].judge(noisy)[0] == "not reproduced"
