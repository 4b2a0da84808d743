"""How the time budget of teaching.budget was set: every app method on a ladder of sizes.

For each weight estimator and regression model of teaching.catalog, with the app's
default settings (sigma "auto", catalog.make_regressor defaults), on the paper's 1-D sinc
data with n_tr = n_te = n: time one fit (and, for regression, one prediction of the test
set) for n on budget.SIZE_LADDER until the budget is exceeded. The largest n within the
budget is the method's limit; the table compares it with budget.METHOD_MAX_POINTS and
gives the time at that size. CPU seconds of this process are the measure (at least the
wall time of an idle 2-core machine, and far less sensitive than wall time to other
users of a shared machine); wall time is shown next to them.

    python bench/limits.py [--methods FCFWCS GPR ...] [--start 20] [--fixed-sigma 0.3]
"""

import argparse
import os
import sys
import time
import warnings

# one BLAS thread: CPU time is then the single-core compute time, an upper bound of the wall
# time on an idle 2-core machine, and is not inflated by BLAS threads spinning on a busy one
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from _table import markdown_table, write_report  # noqa: E402

from covshift import limits  # noqa: E402
from teaching import budget  # noqa: E402

from teaching import catalog, fits  # noqa: E402


def run_once(name, n, sigma="auto"):
    """(cpu seconds, wall seconds) of one app computation of method ``name`` at size n."""
    data = catalog.make_dataset("sinc", seed=0, n_tr=n, n_te=n)
    cpu, wall = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == budget.SHARED_SIGMA:
            fits.regression.shared_kliep_sigma(data)
        elif name in catalog.WEIGHT_ESTIMATORS:
            catalog.make_weight_estimator(name, sigma).fit(data.X_tr, data.X_te)
        else:
            weights = np.ones(n) if catalog.REGRESSORS[name] else None
            fits.regression.fit_predict(data, name, weights)
    return time.process_time() - cpu, time.perf_counter() - wall


def ladder(name, sizes, seconds, sigma="auto"):
    """Times along the ladder until one exceeds the budget: [(n, cpu, wall)]."""
    rows = []
    for n in sizes:
        try:
            cpu, wall = run_once(name, n, sigma)
        except (ValueError, MemoryError) as exc:
            print(f"  {name} n={n}: {type(exc).__name__}: {exc}")
            break
        rows.append((n, cpu, wall))
        print(f"  {name} n={n}: {cpu:.2f} s cpu, {wall:.2f} s wall", flush=True)
        if cpu > seconds:
            break
    return rows


def measure(names, sizes, seconds, sigma):
    """Ladder of every method: the table rows and the measured limits {name: n or None}."""
    table, measured = [], {}
    for name in names:
        rows = ladder(name, sizes, seconds, sigma)
        within = [r for r in rows if r[1] <= seconds]
        over = next((r for r in rows if r[1] > seconds), None)
        best = within[-1] if within else None
        measured[name] = best[0] if best else None
        table.append([name, best[0] if best else f"< {sizes[0]}", best[1] if best else None,
                      best[2] if best else None, f"n={over[0]}: {over[1]:.3g} s" if over else "-"])
    return table, measured


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="*", default=list(budget.METHOD_MAX_POINTS))
    parser.add_argument("--start", type=int, default=20, help="smallest size tried")
    parser.add_argument("--fixed-sigma", type=float, default=0.3,
                        help="kernel width of the second ladder (the KLIEP family with a fixed sigma)")
    args = parser.parse_args()
    sizes = [n for n in sorted({args.start, 50, *budget.SIZE_LADDER}) if n >= args.start]
    seconds = budget.BUDGET_SECONDS
    header = ["method", "largest n within budget", "cpu s at that n", "wall s at that n",
              "first n over budget (cpu s)"]
    sections = []
    auto_table, auto = measure(args.methods, sizes, seconds, None)
    sections.append(("Time of each method at its limit (app settings, sigma 'auto')",
                     markdown_table(header, auto_table)))
    fixed_names = [n for n in args.methods if n in budget.METHOD_MAX_POINTS_FIXED_SIGMA
                   and n != budget.SHARED_SIGMA]
    fixed_table, fixed = measure(fixed_names, sizes, seconds, args.fixed_sigma)
    sections.append((f"The KLIEP family with a fixed sigma = {args.fixed_sigma:g} (no cross-validation)",
                     markdown_table(header, fixed_table)))
    for heading, table in sections:
        print(f"\n{heading}\n{table}")
    print("METHOD_MAX_POINTS =", auto)
    print("METHOD_MAX_POINTS_FIXED_SIGMA =", fixed)
    intro = (f"Budget: {seconds:g} s per computation on the reference machine (2 cores). Each method "
             "runs with the app's settings (weights: sigma 'auto', i.e. likelihood cross-validation for "
             "the KLIEP family and each method's own choice otherwise; regression: the catalog defaults, "
             "one fit and one prediction of the test set; IW- models cost as their base model) on the "
             f"sinc data with n_tr = n_te = n, for n on {sizes}, until a run exceeds the budget. The "
             f"KLIEP family is measured again with a fixed sigma (the app's manual mode, and how the app "
             f"fits them after choosing one shared width); '{budget.SHARED_SIGMA}' is that shared choice "
             "(fits.regression.shared_kliep_sigma, likelihood cross-validation). Time is CPU "
             "seconds of the process with BLAS limited to one thread: the single-core compute time, an "
             "upper bound of the wall time on an idle 2-core machine; wall time is shown beside it. "
             "**The machine was shared with other engineers' jobs while this ran (load several times "
             "the core count), so wall times are inflated several-fold and CPU times are somewhat "
             "noisy**; the limits use CPU time. teaching.budget.METHOD_MAX_POINTS (and "
             "METHOD_MAX_POINTS_FIXED_SIGMA) hold the limits; the data sets' slider maxima and the CSV "
             "subsample (the slowest selected method decides) follow from them.")
    write_report("limits", "Time budget and the size limits it sets", intro, sections)
    return auto, fixed


if __name__ == "__main__":
    main()
