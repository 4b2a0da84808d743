"""Same-run comparison of our KLIEP solvers with peer libraries (optional extra `peers`).

On the paper's synthetic data (sigma fixed), sizes n_tr x n_te in {500x300, 2000x2000,
5000x5000}: our FWCS / PFWCS / FCFWCS (all test points as centres, and FCFWCS on 100
centres), densratio's KLIEP (100 centres), skada's KLIEPReweightAdapter (100 centres) and
ADAPT's KLIEP when it imports (it needs TensorFlow). For every method: wall time (median
of 3), the KLIEP log-likelihood F = sum_j log w(x_te_j) of its weight function normalised
to mean 1 on the training points, the gap to the optimum of the all-centres problem
(an independent cvxopt solve up to n = 2000; above, FCFWCS certified to 1e-10), non-zeros
and NMSE against the true ratio. Results worse than uniform weights are flagged.

    pip install -e ".[peers]" && python bench/peers.py [--sizes 5000] [--repeats 3]
"""

import argparse
import os
import sys
import time
import warnings

# one BLAS thread for every method: a fair comparison, and stable on a shared machine
# (with several threads per process on a loaded 2-core machine, BLAS-heavy loops slow down 20x)
for _variable in ["OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"]:
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
sys.path.insert(1, str(__import__("pathlib").Path(__file__).parents[1]))  # tests.references
from _table import markdown_table, write_report  # noqa: E402

from covshift.data import sinc_shift  # noqa: E402
from covshift.kernels import gaussian_kernel  # noqa: E402
from covshift.metrics import normalized_mse  # noqa: E402
from covshift.weights import FCFWCS, FWCS, PFWCS  # noqa: E402
from covshift.weights._kliep_problem import build_kliep_problem  # noqa: E402
from tests.references.kliep_cvxopt import kliep_reference_optimum  # noqa: E402

SIGMA = 0.3
SIZES = [(500, 300), (2000, 2000), (5000, 5000)]
TARGET_SIZE = 5000  # issue 12: FCFWCS with all centres <= 1.0x lean ADAPT at n_tr = n_te = 5000
LEAN_ADAPT = "ADAPT's KLIEP algorithm, lean numpy (100 centres, 2000 FW steps)"


def _ours(make):
    def run(data):
        est = make().fit(data.X_tr, data.X_te)
        return est.predict_weights, int(np.count_nonzero(est.alpha_))
    return run


def _densratio(data):
    from densratio import densratio

    np.random.seed(0)
    result = densratio(data.X_te, data.X_tr, method="KLIEP", sigma=SIGMA, kernel_num=100, verbose=False)
    return result.compute_density_ratio, int(np.count_nonzero(result.theta))


def _skada(data):
    from skada import KLIEPReweightAdapter

    X = np.vstack([data.X_tr, data.X_te])
    domain = np.r_[np.ones(len(data.X_tr)), -2 * np.ones(len(data.X_te))].astype(int)
    gamma = 1.0 / (2 * SIGMA**2)
    est = KLIEPReweightAdapter(gamma=gamma, n_centers=100, random_state=0).fit(X, sample_domain=domain)
    return (lambda Z: gaussian_kernel(Z, est.centers_, SIGMA) @ est.alpha_), int(np.count_nonzero(est.alpha_))


def _adapt_lean(data, n_centers=100, n_steps=2000, seed=0):
    """ADAPT's KLIEP algorithm (adapt.instance_based.KLIEP, default algo="FW") without TensorFlow.

    As in ADAPT: 100 random test points as centres (centres with mean training kernel
    b_l < eps dropped), A = K(X_te, centres), start alpha = 1 / (n_centres b), then
    2000 Frank-Wolfe steps alpha <- (1 - 2/(k+2)) alpha + 2/(k+2) e_l / b_l with
    l = argmax_l (A' (1 / A alpha))_l / b_l. Lean: A alpha is updated in O(n_te) per
    step instead of recomputed (the same numbers up to round-off).
    """
    eps = np.finfo(float).eps
    centers = data.X_te[np.random.RandomState(seed).permutation(len(data.X_te))[:n_centers]]
    b = gaussian_kernel(centers, data.X_tr, SIGMA).mean(axis=1)
    centers, b = centers[b >= eps], b[b >= eps]
    A = np.ascontiguousarray(gaussian_kernel(centers, data.X_te, SIGMA))  # row l: centre l at the test points
    alpha = 1.0 / (len(centers) * b)
    v = alpha @ A
    for k in range(n_steps):
        g = A @ (1.0 / np.maximum(v, eps))
        best = int(np.argmax(g / b))
        step = 2.0 / (k + 2)
        alpha *= 1.0 - step
        alpha[best] += step / b[best]
        v *= 1.0 - step
        v += (step / b[best]) * A[best]
    return (lambda Z: gaussian_kernel(Z, centers, SIGMA) @ alpha), int(np.count_nonzero(alpha))


def _adapt(data):
    from adapt.instance_based import KLIEP as AdaptKLIEP  # needs TensorFlow

    est = AdaptKLIEP(gamma=1.0 / (2 * SIGMA**2), Xt=data.X_te, max_centers=100, random_state=0, verbose=0)
    est.fit_weights(data.X_tr, data.X_te)
    return (lambda Z: est.predict_weights(Z)), int(np.count_nonzero(est.alphas_))


def methods(max_iter):
    ours = {
        "FWCS (ours, all centres)": _ours(lambda: FWCS(sigma=SIGMA, tol=1e-6, max_iter=max_iter)),
        "PFWCS (ours, all centres)": _ours(lambda: PFWCS(sigma=SIGMA, tol=1e-6, max_iter=max_iter)),
        "FCFWCS (ours, all centres)": _ours(lambda: FCFWCS(sigma=SIGMA, tol=1e-6, max_iter=max_iter)),
        "FCFWCS (ours, 100 centres)": _ours(lambda: FCFWCS(sigma=SIGMA, tol=1e-6, n_centers=100)),
        LEAN_ADAPT: _adapt_lean,
    }
    peers = {"densratio KLIEP (100 centres)": ("densratio", _densratio),
             "skada KLIEPReweightAdapter (100 centres)": ("skada", _skada),
             "ADAPT KLIEP (100 centres)": ("adapt", _adapt)}
    available = dict(ours)
    skipped = []
    for name, (module, run) in peers.items():
        try:
            __import__(module)
            available[name] = run
        except Exception as exc:  # a peer that does not import is reported, not fatal
            skipped.append(f"{name}: skipped ({type(exc).__name__}: {str(exc).splitlines()[0][:80]})")
            print(skipped[-1])
    return available, skipped


def normalised_log_likelihood(w_fn, data):
    w_tr = np.asarray(w_fn(data.X_tr), dtype=float).ravel()
    w_te = np.asarray(w_fn(data.X_te), dtype=float).ravel()
    scale = w_tr.mean()
    if not scale > 0 or np.any(w_te <= 0):
        return -np.inf, w_tr
    return float(np.sum(np.log(w_te / scale))), w_tr / scale


def optimum(data, cvxopt_limit):
    problem = build_kliep_problem(data.X_tr, data.X_te, np.arange(len(data.X_te)), SIGMA)
    if len(data.X_te) <= cvxopt_limit:
        return kliep_reference_optimum(problem.atoms)[1], "cvxopt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FCFWCS(sigma=SIGMA, tol=1e-10).fit(data.X_tr, data.X_te)
    return est.objective_ + est.duality_gap_, "FCFWCS upper bound F + gap (tol 1e-10)"


def run(sizes, repeats, max_iter, cvxopt_limit):
    available, skipped = methods(max_iter)
    rows = []
    for n_tr, n_te in sizes:
        data = sinc_shift(n_tr=n_tr, n_te=n_te, random_state=0)
        truth = data.true_weights
        start = time.perf_counter()
        kernels = gaussian_kernel(data.X_te, data.X_te, SIGMA), gaussian_kernel(data.X_tr, data.X_te, SIGMA)
        kernel_seconds = time.perf_counter() - start
        del kernels
        F_star, source = optimum(data, cvxopt_limit)
        uniform_nmse = normalized_mse(np.ones(n_tr), truth)
        rows.append([f"{n_tr}x{n_te}", "uniform weights", "-", "-", 0.0, F_star, "-", uniform_nmse, ""])
        seconds, cpu_seconds = {}, {}
        for name, fn in available.items():
            times, cpu_times = [], []
            for _ in range(repeats):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    start, cpu = time.perf_counter(), time.process_time()
                    w_fn, nnz = fn(data)
                    times.append(time.perf_counter() - start)
                    cpu_times.append(time.process_time() - cpu)
            F, w = normalised_log_likelihood(w_fn, data)
            nmse = normalized_mse(np.maximum(w, 0), truth)
            flag = "WORSE THAN UNIFORM" if (F < 0 or nmse > uniform_nmse) else ""
            seconds[name], cpu_seconds[name] = float(np.median(times)), float(np.median(cpu_times))
            rows.append([f"{n_tr}x{n_te}", name, seconds[name], cpu_seconds[name], F, F_star - F, nnz, nmse, flag])
            print(rows[-1], flush=True)
        ours, lean = seconds.get("FCFWCS (ours, all centres)"), seconds.get(LEAN_ADAPT)
        if ours and lean:
            ratio_cpu = cpu_seconds["FCFWCS (ours, all centres)"] / cpu_seconds[LEAN_ADAPT]
            rows.append([f"{n_tr}x{n_te}", f"(FCFWCS all centres / lean ADAPT: {ours / lean:.2f}x wall, "
                         f"{ratio_cpu:.2f}x CPU; " + (f"target <= 1.0x {'met' if ours <= lean else 'NOT met'}; "
                         if n_te == TARGET_SIZE else "no target at this size; ") +
                         f"load average {os.getloadavg()[0]:.1f})", "-", "-", "-", "-", "-", "-", ""])
        rows.append([f"{n_tr}x{n_te}", f"(two dense Gaussian kernel matrices, which FCFWCS no longer builds: "
                     f"{kernel_seconds:.3f} s; optimum by {source})", "-", "-", "-", "-", "-", "-", ""])
    header = ["n_tr x n_te", "method", "seconds (median wall)", "seconds (median CPU)", "F (log-lik.)", "F* - F",
              "non-zeros", "NMSE", "flag"]
    table = markdown_table(header, rows)
    print(table)
    write_report(
        "peers", "KLIEP: our solvers and peer libraries in the same run",
        f"Paper's synthetic data, sigma = {SIGMA} for every method (gamma = 1 / (2 sigma^2) where a "
        f"library uses gamma). Our FWCS and PFWCS stop at relative gap 1e-6 or {max_iter} iterations. "
        "F is the KLIEP objective of each method's weight function after scaling it to mean 1 on the "
        "training points (uniform weights: F = 0); F* is the optimum of the all-centres problem, so "
        "F* - F >= 0 measures how far each answer is from the exact KLIEP solution (100-centre methods "
        "solve a smaller problem and cannot reach F*). The lean ADAPT row runs ADAPT's default "
        "algorithm (algo='FW': 100 random test points as centres, 2000 Frank-Wolfe steps of size "
        "2/(k+2)) in numpy, so the issue-12 target (FCFWCS with all centres, fit included, <= 1.0x "
        "ADAPT) is checked in the same run even without TensorFlow. Every method runs with one BLAS "
        "thread; wall and process CPU times are medians of the repeats. From n = 2000 our Frank-Wolfe "
        "solvers never build the n x n kernel matrices: beta is summed over cache-sized blocks of "
        "training points and the gradient comes from a pivoted-Cholesky factor of the test kernel "
        "matrix (every entry within 1e-12) with an error bound, so the reported duality gap is a "
        "certified upper bound (weights._kliep_problem.LowRankKernelAtoms). " + " ".join(skipped),
        [("Results", table)],
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-iter", type=int, default=2000)
    parser.add_argument("--cvxopt-limit", type=int, default=2000)
    parser.add_argument("--small", action="store_true", help="only 500x300 (a quick check)")
    parser.add_argument("--sizes", type=int, nargs="+", choices=[n_te for _, n_te in SIZES],
                        help="only these test-set sizes, e.g. --sizes 5000 (n_tr x n_te = 5000 x 5000)")
    args = parser.parse_args()
    sizes = SIZES[:1] if args.small else [s for s in SIZES if args.sizes is None or s[1] in args.sizes]
    run(sizes, args.repeats, args.max_iter, args.cvxopt_limit)
