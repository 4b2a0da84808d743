"""The replay's browser code (teaching/figures/replay.js) on the payload Python packs: run under node,
it rebuilds every iterate of the history, names each step's kind and jumps to the next drop / swap.
The page itself (buttons, no rerun) is tested in tests/teaching/browser/test_replay_browser.py."""

import json
import shutil
import subprocess
import warnings

import numpy as np
import pytest

from covshift.data import sinc_shift
from covshift.exceptions import ConvergenceWarning
from covshift.weights import AFWCS, FCFWCS, FWCS, PFWCS
from teaching import figures
from teaching.figures.replay import SCRIPT

NODE = shutil.which("node")
#: The badge of a good step names its direction.
_WORDS = {"towards": "towards", "away": "away", "pairwise": "pairwise", "corrective": "fully-corrective"}
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

#: Weights travel as float32 (step sizes, touched weights): relative error <= 2^-24 each, and a
#: rebuild multiplies them by float64 scale factors only, so alpha_t is exact to ~1e-7.
FLOAT32_RTOL = 1e-6

_DRIVER = """
const {Run, nextStep, describe, unpack, inflate, legendUses} = require(process.argv[2]);
const {meta, blob} = JSON.parse(require("fs").readFileSync(0, "utf8"));
inflate(blob).then((bytes) => {
  const a = unpack(bytes, meta.manifest), run = new Run(meta, a), alpha = [], said = [], kinds = [], badges = [];
  for (let t = 0; t <= run.T; t++) {
    const mu = run.mu(t), before = t ? run.mu(t - 1) : mu;
    alpha.push(Array.from(mu, (m, l) => a.beta[l] * m));
    const step = describe(run, t, before, mu);
    said.push(step.text); kinds.push(step.kind); badges.push(step.badge);
  }
  const next = {};
  for (const k of ["drop", "swap", "away"]) next[k] = nextStep(run, 0, k);
  console.log(JSON.stringify({alpha, said, kinds, badges, size: Array.from(run.size), next, uses: legendUses(run)}));
});
"""


def _run_js(payload, tmp_path):
    driver = tmp_path / "driver.js"
    driver.write_text(_DRIVER)
    out = subprocess.run([NODE, str(driver), str(SCRIPT)], input=json.dumps(payload), capture_output=True,
                         text=True, timeout=60, check=True)
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def data():
    return sinc_shift(n_tr=200, n_te=150, random_state=0)


@pytest.mark.parametrize("cls", [PFWCS, AFWCS])
def test_browser_rebuilds_every_iterate_and_names_every_step(data, cls, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = cls(sigma=0.3, tol=1e-8, max_iter=300).fit(data.X_tr, data.X_te)
    hist = est.history_
    payload = figures.replay_payload(est, data.X_tr, data.X_te, data.density_ratio)
    out = _run_js(payload, tmp_path)
    assert len(out["alpha"]) == len(hist)
    for t, alpha in enumerate(out["alpha"]):
        exact = hist.alpha_at(t)
        np.testing.assert_array_equal(np.flatnonzero(alpha), np.flatnonzero(exact))
        np.testing.assert_allclose(alpha, exact, rtol=FLOAT32_RTOL, atol=0)
    np.testing.assert_array_equal(out["size"], [len(hist.iterate(t)[0]) for t in range(len(hist))])
    # iterate t is reached by step t - 1: its kind as recorded, one sentence naming its atoms
    assert out["kinds"][0] == "start"
    assert out["kinds"][1:] == list(hist.step_kind[:-1])
    for t in range(1, len(hist)):
        kind, text = hist.step_kind[t - 1], out["said"][t]
        assert "{" not in text and str(hist.away_atom[t - 1] if kind != "good" or hist.direction[t - 1] != "towards"
                                       else hist.towards_atom[t - 1]) in text
        if kind in ("drop", "swap"):
            assert text.startswith(f"{kind} step:")
    for kind in ["drop", "swap"]:
        found = np.flatnonzero(hist.step_kind[:-1] == kind)
        assert out["next"][kind] == (found[0] + 1 if found.size else -1)
    # "Next away step" lands on a step badged "away step": an away step that is not a drop (which has its own button)
    away = np.flatnonzero((hist.direction[:-1] == "away") & (hist.step_kind[:-1] == "good"))
    assert out["next"]["away"] == (away[0] + 1 if away.size else -1)
    assert all(out["badges"][t] == ("start" if t == 0 else f"{kind} step" if kind in ("drop", "swap") else
                                    f"{_WORDS[direction]} step")
               for t, (kind, direction) in enumerate(zip(["start", *hist.step_kind[:-1]], ["", *hist.direction[:-1]])))
    for kind in ["drop", "swap", "away"]:
        if out["next"][kind] > 0:
            assert out["badges"][out["next"][kind]] == f"{kind} step"
    if cls is PFWCS:
        assert out["next"]["swap"] > 0 and out["next"]["drop"] > 0  # the lesson's run has both


def test_replay_document_is_self_contained_and_small(data):
    est = PFWCS(sigma=0.3, tol=1e-4, max_iter=2000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(data.X_tr, data.X_te)
    payload = figures.replay_payload(est, data.X_tr, data.X_te, data.density_ratio)
    document = figures.replay_html(payload)
    assert "fetch(" not in document and "http://" not in document and "https://" not in document
    assert "import(" not in SCRIPT.read_text() and document.count("<script>") == 1
    assert payload["meta"]["jumps"] == ("drop", "swap") and payload["meta"]["steps"] == len(est.history_) - 1
    assert len(document) < 100_000  # every step of 2000 iterations, the script included
    assert figures.replay_height(True) > figures.replay_height(False)


def test_the_gap_axis_is_bounded_by_the_gaps_it_shows_and_a_zero_sits_at_its_floor(tmp_path):
    """Issue 29, item 4: the log axis ran down to 1e-300 when a gap was exactly 0; it spans the whole
    decades of the positive gaps, and a zero is drawn at the floor (its tooltip says so)."""
    driver = tmp_path / "axis.js"
    driver.write_text("""
const {logRange} = require(process.argv[2]);
console.log(JSON.stringify([logRange([0, 3e-7, 0.02, 0.9]), logRange([0, 0]), logRange([2.5e-3]), logRange([5, 50])]));
""")
    out = subprocess.run([NODE, str(driver), str(SCRIPT)], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout) == [[-7, 0], [-1, 0], [-3, -2], [0, 2]]
    script = SCRIPT.read_text()
    assert "1e-300" not in script.split("function smallChart", 1)[1].split("function gapWords", 1)[0]
    assert "drawn at the axis floor" in script


def test_the_sentence_box_keeps_the_height_of_the_longest_sentence(tmp_path):
    """Issue 29, item 4: the drawing does not jump as the sentence re-wraps between steps: the box is
    measured on every sentence the run can say, with its widest numbers, and keeps the tallest height."""
    driver = tmp_path / "samples.js"
    driver.write_text("""
const {sentenceSamples} = require(process.argv[2]);
const meta = JSON.parse(require("fs").readFileSync(0, "utf8")).meta;
console.log(JSON.stringify(sentenceSamples({meta, n: meta.atoms})));
""")
    data = sinc_shift(n_tr=100, n_te=80, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = PFWCS(sigma=0.3, max_iter=50).fit(data.X_tr, data.X_te)
    payload = figures.replay_payload(est, data.X_tr, data.X_te)
    out = subprocess.run([NODE, str(driver), str(SCRIPT)], input=json.dumps(payload), capture_output=True, text=True,
                         timeout=60, check=True)
    samples = json.loads(out.stdout)
    assert len(samples) == len(payload["meta"]["sentences"])
    assert all("{" not in text and str(payload["meta"]["atoms"] - 1) in text for text in samples)


@pytest.mark.parametrize("cls, expected", [
    (FWCS, {"away": False, "left": None, "moved": False}),
    (AFWCS, {"away": True, "left": True, "moved": False}),
    (PFWCS, {"away": True, "left": True, "moved": True}),
    (FCFWCS, {"away": False, "left": None, "moved": False}),
])
def test_the_legend_names_only_what_the_solver_draws(data, cls, expected, tmp_path):
    """Issue 35, item 5: FCFWCS's replay has no away vertex and no moved weight (its legend named l^AFW and
    "moved"); FWCS's has neither. An atom that left is named when the run has one (a drop, or an atom pruned)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = cls(sigma=0.3, tol=1e-8, max_iter=300).fit(data.X_tr, data.X_te)
    hist = est.history_
    uses = _run_js(figures.replay_payload(est, data.X_tr, data.X_te, data.density_ratio), tmp_path)["uses"]
    sizes = [len(hist.iterate(t)[0]) for t in range(len(hist))]
    left = any(b < a for a, b in zip(sizes, sizes[1:])) or any(k in ("drop", "swap") for k in hist.step_kind[:-1])
    assert uses == {**expected, "left": left if expected["left"] is None else expected["left"]}
