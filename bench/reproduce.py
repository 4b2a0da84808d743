"""Run every registered claim of the papers over seeds and write the results.

Writes ``assets/reproduction.json`` (read by the app's Reproduction page and checked by
tests/teaching/test_reproduction.py) and ``bench/results/reproduction.md``. Each row of
:mod:`teaching.reproduction` is run at size "full" on every seed (the headline mean +- sd
and the verdict) and at size "small" on the first ``--small-seeds`` seeds (the numbers
the tests and the app's "re-run this row" button compare against).

    python bench/reproduce.py [--seeds 10] [--small-seeds 2] [--rows KEY ...]

With ``--rows`` only those rows are recomputed and merged into the existing file.
"""

import argparse
import json
import pathlib
import platform
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from _table import RESULTS  # noqa: E402

from teaching import outcomes  # noqa: E402
from teaching import reproduction as R  # noqa: E402

JSON_PATH = ROOT / "assets" / "reproduction.json"
MD_PATH = RESULTS / "reproduction.md"
ICONS = {"reproduced": "✔", "not reproduced": "✘", "not comparable": "≈"}


def code_version():
    """The git commit of the code that produced the numbers, and whether the core was modified."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return git("rev-parse", "HEAD"), bool(git("status", "--porcelain", "covshift", "bench/reproduce.py"))


def run_seeds(key, seeds, size):
    values, start = {}, time.perf_counter()
    for seed in seeds:
        for name, value in R.run_row(key, seed, size).items():
            values.setdefault(name, []).append(value)
        print(f"  {key} [{size}] seed {seed} done at {time.perf_counter() - start:.0f}s", flush=True)
    return values, time.perf_counter() - start


def run_one(key, seeds, small_seeds, version):
    row = R.ROWS[key]
    full, full_seconds = run_seeds(key, seeds, "full")
    verdict, reason = row.judge({k: np.asarray(v, float) for k, v in full.items()})
    if verdict not in R.VERDICTS:
        raise ValueError(f"Row {key} returned the unknown verdict {verdict!r}.")
    small, small_seconds = run_seeds(key, small_seeds, "small")
    trace = None
    if row.trace is not None:
        with outcomes.silenced():  # the solvers stop at their iteration budget on purpose
            trace = {k: _thin(v) for k, v in row.trace(seeds[0], "full").items()}
    return {
        "key": key, "paper": row.paper, "paper_title": R.PAPERS[row.paper], "where": row.where,
        "claim": row.claim, "paper_values": row.paper_values, "notes": row.notes, "sizes": row.sizes,
        "figure": row.figure, "verdict": verdict, "reason": reason, "code_version": version,
        "full": {"seeds": list(seeds), "metrics": R.summarise(full), "seconds": full_seconds},
        "small": {"seeds": list(small_seeds), "metrics": R.summarise(small), "seconds": small_seconds},
        "trace": trace,
    }


def _thin(curve, points=300):
    """At most ``points`` (iteration, value) pairs of a long curve, log-spaced in the iteration."""
    curve = np.asarray(curve, float)
    idx = np.unique(np.geomspace(1, len(curve), points).astype(int) - 1)
    return {"iteration": idx.tolist(), "value": curve[idx].tolist()}


def fmt(x):
    if x is None:
        return "n/a"
    return f"{x:.3g}" if abs(x) >= 1e-3 or x == 0 else f"{x:.2e}"


def markdown(results):
    lines = ["# Reproduction of the papers' claims", "",
             "Written by `bench/reproduce.py`; the app's Reproduction page shows the same rows. Ours: "
             "mean ± sd over the seeds listed (size 'full'); 'not reached' counts a seed whose method "
             "did not reach the stated gap. Verdicts: ✔ reproduced, ✘ not reproduced, ≈ not comparable "
             "(stand-in data; the reason says whether the direction of the claim holds).", "",
             f"Newest code version {results['code_version']}{' (modified)' if results['code_dirty'] else ''} "
             "(each row names the commit that produced it), "
             f"run {results['generated']} on {results['machine']}, {results['seconds']:.0f} s in all.", ""]
    for paper, title in R.PAPERS.items():
        rows = [r for r in results["rows"] if r["paper"] == paper]
        if not rows:
            continue
        lines += [f"## {title} ({paper})", "",
                  "| where | claim | paper | ours (mean ± sd) | verdict | reason | seeds | size | code |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            paper_cell = "<br>".join(f"{k}: {v}" for k, v in r["paper_values"].items()) or "(sign / figure only)"
            ours = "<br>".join(
                f"{k}: {fmt(m['mean'])} ± {fmt(m['sd'])}"
                + ("" if m["reached"] == len(m["values"]) else f" ({m['reached']}/{len(m['values'])} reached)")
                for k, m in r["full"]["metrics"].items())
            lines.append(f"| {r['where']} | {r['claim']} | {paper_cell} | {ours} | {ICONS[r['verdict']]} "
                         f"{r['verdict']} | {r['reason']} | {', '.join(map(str, r['full']['seeds']))} | "
                         f"{r['sizes']['full']} | {r['code_version'][:10]} |")
        lines.append("")
        for r in rows:
            if r["notes"]:
                lines.append(f"- `{r['key']}`: {r['notes']}")
        lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--small-seeds", type=int, default=2)
    parser.add_argument("--rows", nargs="+", default=None, help="recompute only these row keys")
    args = parser.parse_args()
    keys = args.rows or R.row_keys()
    unknown = set(keys) - set(R.ROWS)
    if unknown:
        parser.error(f"unknown rows {sorted(unknown)}; known: {R.row_keys()}")
    version, dirty = code_version()
    seeds, small_seeds = R.default_seeds(args.seeds), R.default_seeds(args.small_seeds)
    previous = json.loads(JSON_PATH.read_text()) if (args.rows and JSON_PATH.exists()) else {"rows": []}
    if args.rows:  # the file's version is the newest code that wrote a row; each row keeps its own
        previous.setdefault("seconds", 0.0)
    rows = {r["key"]: r for r in previous["rows"]}
    start = time.perf_counter()
    for key in keys:
        print(key, flush=True)
        rows[key] = run_one(key, seeds, small_seeds, version)
        print(f"  -> {rows[key]['verdict']}: {rows[key]['reason']}", flush=True)
        write(rows, version, dirty, time.perf_counter() - start + previous.get("seconds", 0.0))


def write(rows, version, dirty, seconds):
    """Write both files (after every row, so an interrupted run keeps what it finished)."""
    results = {
        "code_version": version, "code_dirty": dirty, "generated": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}",
        "seconds": seconds, "rows": [rows[k] for k in R.row_keys() if k in rows],
    }
    JSON_PATH.write_text(json.dumps(results, indent=1, allow_nan=False))
    RESULTS.mkdir(exist_ok=True)
    MD_PATH.write_text(markdown(results))
    print(f"wrote {JSON_PATH} and {MD_PATH}", flush=True)


if __name__ == "__main__":
    main()
