"""Fig. 3 protocol of discriminative-covariate-shift on the bundled binary tasks.

For each task (scikit-learn data split by sample-selection bias, covshift.data.classification_task)
and seed: the selection gives a training set and a test pool. A random 30% of the pool is a labelled
tuning set (the paper's "separate tuning set"); the rest is the evaluation pool. n unlabelled test
inputs are drawn from the evaluation pool and given to every method (the paper's "number of test
examples"); AUC is measured on the whole evaluation pool. Reported: the reduction of the 1-AUC risk
relative to the iid classifier, 1 - (1 - AUC_method) / (1 - AUC_iid), mean and standard deviation
over the seeds, and fit times.

Methods: iid kernel logistic regression; two-stage with LogisticRatio (the paper's "two-stage LR"),
FCFWCS (KLIEP) and KMM weights; the integrated model (Optimization Problem 1). Linear kernels on
the higher-dimensional tasks (as the paper on text), RBF on the low-dimensional wine task (as the
paper on landmines). As in the paper, the regularisation of the logistic models is tuned on the
tuning set, for every method alike: for each seed and test size, the classifier's prior variance
(C; C_w of the integrated model) over C_GRID and, for the two methods with a logistic selector, its
prior variance (C_v of the integrated model, the C of LogisticRatio) over C_SELECTOR_GRID, by the
highest tuning-set AUC (ties: the values closest to 1). FCFWCS and KMM keep their defaults; widths
are median heuristics. ``--fixed-C`` skips the tuning (every C = 1).

    python bench/classification.py [--seeds 10] [--sizes 16 32 64 128 256] [--fixed-C] [--quick]
"""

import argparse
import json
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _table import fmt, markdown_table, write_report  # noqa: E402

from covshift.classification.protocol import (C_GRID, C_SELECTOR_GRID, KERNELS, METHODS,  # noqa: E402
                                              TUNING_FRACTION, TWO_STAGE, reduction, run_one)
from covshift.data import CLASSIFICATION_TASKS, classification_task  # noqa: E402

ASSET = pathlib.Path(__file__).resolve().parents[1] / "assets" / "classification_fig3.json"


def run_task(task, seeds, sizes, grid, selector_grid):
    """Every seed at every size up to the smallest evaluation pool over the seeds (same seeds at every size)."""
    smallest_pool = min(len(classification_task(task, random_state=seed).X_te) for seed in range(seeds))
    sizes = [s for s in sizes if s <= smallest_pool - int(round(TUNING_FRACTION * smallest_pool))]
    runs, n_tr, n_pool = [], [], []
    for seed in range(seeds):
        result, m, n = run_one(task, seed, sizes, grid, selector_grid)
        runs.append(result)
        n_tr.append(m)
        n_pool.append(n)
    summary = {"label": CLASSIFICATION_TASKS[task][0], "kernel": KERNELS[task], "sizes": sizes,
               "n_train_mean": float(np.mean(n_tr)), "n_test_pool_mean": float(np.mean(n_pool)),
               "auc_iid": [], "C_grid": grid, "C_selector_grid": selector_grid,
               "methods": {m: {"mean": [], "sd": [], "seconds": [], "unconverged": 0, "C_median": [],
                               "C_selector_median": []} for m in METHODS}}
    for size in sizes:
        summary["auc_iid"].append(float(np.mean([r[size]["iid"][0] for r in runs])))
        for name in METHODS:
            values = [reduction(r[size][name][0], r[size]["iid"][0]) for r in runs]
            entry = summary["methods"][name]
            entry["mean"].append(float(np.nanmean(values)))
            entry["sd"].append(float(np.nanstd(values, ddof=1)) if len(values) > 1 else 0.0)
            entry["seconds"].append(float(np.mean([r[size][name][1] for r in runs])))
            entry["unconverged"] += sum(not r[size][name][2] for r in runs)
            entry["C_median"].append(float(np.median([r[size][name][3][0] for r in runs])))
            if runs[0][size][name][3][1] is not None:
                entry["C_selector_median"].append(float(np.median([r[size][name][3][1] for r in runs])))
    summary["paired"] = paired_differences(runs, sizes)
    return summary


def paired_differences(runs, sizes):
    """Integrated minus each two-stage method and each two-stage method minus iid: per seed, the
    reduction averaged over the sizes; then mean and standard error over the seeds."""
    def per_seed(method):
        return np.array([np.nanmean([reduction(r[s][method][0], r[s]["iid"][0]) for s in sizes]) for r in runs])

    def summary(values):
        return {"mean": float(np.mean(values)), "se": float(np.std(values, ddof=1) / np.sqrt(len(values)))
                if len(values) > 1 else 0.0}

    integrated = per_seed("integrated")
    out = {f"integrated - {m}": summary(integrated - per_seed(m)) for m in TWO_STAGE}
    out.update({f"{m} - iid": summary(per_seed(m)) for m in TWO_STAGE + ["integrated"]})
    return out


def verdict(summary):
    """Does integrated >= every two-stage >= iid hold on average over the test sizes?"""
    average = {m: float(np.mean(summary["methods"][m]["mean"])) for m in METHODS}
    best_two = max(TWO_STAGE, key=average.get)
    integrated_first = all(average["integrated"] >= average[m] for m in TWO_STAGE)
    two_stage_helps = [m for m in TWO_STAGE if average[m] >= 0.0]
    wins = sum(summary["methods"]["integrated"]["mean"][i] >= summary["methods"][best_two]["mean"][i]
               for i in range(len(summary["sizes"])))
    holds = integrated_first and len(two_stage_helps) == len(TWO_STAGE) and average["integrated"] >= 0
    text = (f"**{'holds' if holds else 'does not hold'}**. Average reduction over the test sizes: "
            + ", ".join(f"{m} {average[m]:+.3f}" for m in METHODS[1:])
            + f". Integrated >= every two-stage method on average: {'yes' if integrated_first else 'no'} "
              f"(>= the best two-stage method, {best_two}, at {wins} of {len(summary['sizes'])} sizes); "
              f"two-stage methods not worse than iid on average: "
              f"{', '.join(two_stage_helps) if two_stage_helps else 'none'}.")
    paired = "; ".join(f"{name} {v['mean']:+.3f} ± {v['se']:.3f}{' (> 2 se)' if abs(v['mean']) > 2 * v['se'] else ''}"
                       for name, v in summary["paired"].items())
    text += f" Paired over seeds (mean ± standard error of the size-averaged reduction): {paired}."
    return holds, text


def tables(summary):
    header = ["n test"] + METHODS[1:] + ["AUC iid"]
    rows = [[size] + [f"{summary['methods'][m]['mean'][i]:+.3f} ± {summary['methods'][m]['sd'][i]:.3f}"
                      for m in METHODS[1:]] + [summary["auc_iid"][i]]
            for i, size in enumerate(summary["sizes"])]
    times = [[size] + [summary["methods"][m]["seconds"][i] for m in METHODS] for i, size in enumerate(summary["sizes"])]
    selectors = ["two-stage LogisticRatio", "integrated"]
    chosen = [[size] + [summary["methods"][m]["C_median"][i] for m in METHODS]
              + [summary["methods"][m]["C_selector_median"][i] if summary["methods"][m]["C_selector_median"] else "-"
                 for m in selectors] for i, size in enumerate(summary["sizes"])]
    return (markdown_table(header, rows), markdown_table(["n test"] + [f"{m} (s)" for m in METHODS], times),
            markdown_table(["n test"] + [f"{m} C" for m in METHODS] + [f"{m} selector C" for m in selectors], chosen))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 32, 64, 128, 256])
    parser.add_argument("--tasks", nargs="+", default=list(KERNELS))
    parser.add_argument("--fixed-C", action="store_true", help="no tuning: C = C_w = 1 for every method")
    parser.add_argument("--quick", action="store_true", help="2 seeds, 2 sizes, no files written")
    args = parser.parse_args()
    seeds, sizes = (2, args.sizes[:2]) if args.quick else (args.seeds, args.sizes)
    grid, selector_grid = ([1.0], [1.0]) if args.fixed_C else (C_GRID, C_SELECTOR_GRID)
    start = time.perf_counter()
    results, sections = {}, []
    for task in args.tasks:
        t0 = time.perf_counter()
        summary = run_task(task, seeds, sizes, grid, selector_grid)
        holds, text = verdict(summary)
        summary["ranking_holds"], summary["verdict"] = holds, text
        results[task] = summary
        reduction_table, time_table, c_table = tables(summary)
        unconverged = {m: e["unconverged"] for m, e in summary["methods"].items() if e["unconverged"]}
        print(f"\n{summary['label']} ({summary['kernel']} kernel, ~{summary['n_train_mean']:.0f} training points, "
              f"{time.perf_counter() - t0:.0f} s)\n{reduction_table}\n{time_table}\n{c_table}\nRanking {text}")
        sections += [(f"{summary['label']}: {summary['kernel']} kernel, ~{summary['n_train_mean']:.0f} training, "
                      f"~{summary['n_test_pool_mean']:.0f} test points in the evaluation pool",
                      f"Reduction of 1-AUC risk relative to iid, mean ± sd over {seeds} seeds:\n\n"
                      f"{reduction_table}\n\n"
                      f"Mean fit seconds (one fit at the chosen C):\n\n{time_table}\n\n"
                      f"Median over the seeds of the chosen C (C_w for integrated; grid {grid}) and selector C "
                      f"(C_v for integrated, LogisticRatio's C; grid {selector_grid}):\n\n{c_table}\n\n"
                      f"Paper's ranking (integrated >= two-stage >= iid): {text}"
                      + (f"\n\nRuns that stopped before their tolerance: {unconverged}." if unconverged else ""))]
    total = time.perf_counter() - start
    print(f"\ntotal {total:.0f} s")
    if args.quick:
        return
    intro = (__doc__.split("\n\n")[1] + "\n\n" + __doc__.split("\n\n")[2]
             + f"\n\nSeeds: {seeds}; total run time {fmt(total)} s (one process, OPENBLAS_NUM_THREADS=1 "
               "recommended on the shared machine)" + (", every C = 1 fixed (--fixed-C)" if args.fixed_C else "")
             + ". AUC is measured on the whole evaluation pool, which is larger than the unlabelled sample the "
               "methods see.")
    intro += ("\n\nReading the numbers. (1) The iid AUCs are close to 1 (0.97-0.995), so the ratio divides by a "
              "small 1-AUC and is noisy: the standard deviations are often larger than the means. (2) The "
              "integrated model's implied weights (m/n)(1-q)/q are not normalised and their mean is below 1 at its "
              "optimum. That is the paper's criterion (eq. 24), not a slip: its classifier term, the weighted sum of "
              "log-likelihoods (each <= 0), rewards smaller weights, and in 64 dimensions (digits) a linear selector "
              "with C_v = 1 nearly separates the few training from the test inputs on its own (mean weight 0.35-0.45 "
              "at the start for 64 test inputs). A mean weight c acts like a prior variance c C_w, so the "
              "comparison is fair only when C_w and C_v are tuned for this model, as the paper tunes them; the "
              "benchmark now does so for every method. Before, with C = C_w = C_v = 1 for all, the integrated model "
              "lost clearly on digits (-0.36 ± 0.16 vs iid, 10 seeds). "
              "(3) KMM with its default B and median-heuristic width gives erratic weights "
              "on the linear tasks; the paper also reports KMM failing with linear kernels on spam.")
    write_report("classification", "Classification under covariate shift (discriminative-covariate-shift, Fig. 3)",
                 intro, sections)
    ASSET.parent.mkdir(exist_ok=True)
    ASSET.write_text(json.dumps({"protocol": __doc__.split("\n\n")[1], "seeds": seeds, "methods": METHODS,
                                 "C_grid": grid, "C_selector_grid": selector_grid, "tasks": results}, indent=1))
    print(f"wrote {ASSET}")


if __name__ == "__main__":
    main()
