"""Rows of the Frank-Wolfe covariate-shift paper: Table 1 and Fig. 2 (solvers), Table 2 and Fig. 3 (IW-SMTGP)."""

import numpy as np

from covshift import metrics
from covshift.data import arm_forward, arm_pose, digits_center, sinc_shift
from covshift.kernels import median_heuristic
from covshift.model_selection import kliep_sigma
from covshift.regression import TwinGP
from covshift.weights import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS

from teaching.numbers import format_number
from teaching.reproduction.registry import Row, register, means, direction, predict, image_rmse

# ------------------------------------------------------------------ FW paper Table 1 / Fig. 2
FW_SOLVERS = {"FWCS": FWCS, "AFWCS": AFWCS, "PFWCS": PFWCS, "FCFWCS": FCFWCS}
GAPS = (1e-3, 1e-4)
#: Iteration budget of the Table 1 rows: a gap not reached within it is reported as not reached.
FW_MAX_ITER = 2000


def _sigma(X_tr, X_te, seed):
    """One kernel width per data set for every KLIEP solver (a fair comparison): the shared
    likelihood cross-validation of :func:`covshift.model_selection.kliep_sigma`."""
    return float(kliep_sigma(X_tr, X_te, random_state=seed)["best_sigma"])


def _fw_problem(name, seed, size):
    """Data and sigma of the FW rows (Table 1 and both Fig. 2 rows): the sinc rows' sigma is fixed, so only the
    digits row cross-validates one."""
    data = _fw_data(name, seed, size)
    return data, SINC_SIGMA if name == "sinc" else _sigma(data.X_tr, data.X_te, seed)


def _at_gap(history, tol):
    """Non-zeros and solver seconds when the relative gap first reached tol (NaN if never)."""
    reached = np.flatnonzero(history.gap <= tol * np.abs(history.objective))
    if reached.size == 0:
        return np.nan, np.nan
    t = int(reached[0])
    nnz = history.active_size[t - 1] if t > 0 else history.active_size[0]
    return float(nnz), float(history.elapsed[t])


def _kliep_at_gap(X_tr, X_te, sigma, tol):
    """KLIEP stops at its first iterate with relative gap <= tol: non-zeros and solver seconds
    there (NaN if it did not get there within its iteration budget)."""
    est = KLIEP(sigma=sigma, n_centers=None, tol=tol).fit(X_tr, X_te)
    if not est.converged_:
        return np.nan, np.nan
    return float(np.count_nonzero(est.alpha_)), float(est.history_["elapsed"][-1])


#: The sinc rows use the kernel width of bench/weights.py and the app's Scaling page (sigma = 0.3):
#: likelihood CV picks widths so large on some seeds that one atom is optimal and sparsity is moot.
SINC_SIGMA = 0.3


def _fw_data(name, seed, size):
    if name == "sinc":
        n_tr, n_te = {"full": (500, 300), "small": (200, 120)}[size]
        return sinc_shift(n_tr=n_tr, n_te=n_te, random_state=seed)
    n_max, n_tr = {"full": (600, 150), "small": (300, 80)}[size]
    return digits_center(shift="selection", n_tr=n_tr, n_max=n_max, random_state=seed)


def _table1_run(name):
    def run(seed, size):
        data, sigma = _fw_problem(name, seed, size)
        out = {}
        for tol in GAPS:
            out[f"KLIEP nnz @{tol:g}"], out[f"KLIEP @{tol:g} s"] = _kliep_at_gap(data.X_tr, data.X_te, sigma, tol)
        for label, cls in FW_SOLVERS.items():
            est = cls(sigma=sigma, tol=min(GAPS), max_iter=FW_MAX_ITER).fit(data.X_tr, data.X_te)
            for tol in GAPS:
                out[f"{label} nnz @{tol:g}"], out[f"{label} @{tol:g} s"] = _at_gap(est.history_, tol)
        return out
    return run


def _table1_judge(stand_in):
    def judge(values):
        parts, holds = [], True
        for tol in GAPS:
            mean = {s: float(np.nanmean(values[f"{s} nnz @{tol:g}"])) if np.any(np.isfinite(values[f"{s} nnz @{tol:g}"]))
                    else np.inf for s in ["KLIEP", "FWCS", "AFWCS", "PFWCS"]}
            sparsest = min(mean, key=mean.get)
            pf = np.asarray(values[f"PFWCS nnz @{tol:g}"])
            af = np.asarray(values[f"AFWCS nnz @{tol:g}"])
            holds &= sparsest == "PFWCS"
            parts.append(f"gap {tol:g}: sparsest {sparsest} ({format_number(mean[sparsest])} atoms), PFWCS < AFWCS "
                         f"in {int(np.sum(pf < af))}/{len(pf)} seeds")
        kliep_reached = int(np.sum(np.isfinite(values[f"KLIEP nnz @{min(GAPS):g}"])))
        text = "; ".join(parts) + f"; KLIEP reached gap {min(GAPS):g} in {kliep_reached}/{len(pf)} seeds"
        if stand_in:
            return direction(holds, text)
        return ("reproduced" if holds else "not reproduced"), text
    return judge


_FW_SIZES = {"sinc": {"full": "sinc data of section III-D, 500 training / 300 test points",
                      "small": "sinc data, 200 training / 120 test points"},
             "digits": {"full": "8x8 digits (48 outer pixels), 600 images, selection bias, about 150 training images",
                        "small": "8x8 digits, 300 images, selection bias, about 80 training images"}}
for _name in ["sinc", "digits"]:
    register(Row(
        key=f"fw.table1.{_name}", paper="fw-covariate-shift-iw-smtgp", where="Table 1 (analogue)",
        claim="PFWCS reaches a given duality gap with the fewest non-zero coefficients alpha "
              "(HumanEva: KLIEP 2019, FWCS 1317, AFWCS 690, PFWCS 471 atoms).",
        paper_values={"KLIEP nnz @0.0001": 2019, "FWCS nnz @0.0001": 1317, "AFWCS nnz @0.0001": 690,
                      "PFWCS nnz @0.0001": 471},
        run=_table1_run(_name), judge=_table1_judge(_name == "digits"), sizes=_FW_SIZES[_name],
        notes="Non-zeros and solver seconds when each method first reaches relative duality gap 1e-3 and "
              "1e-4 (FW iterates from one run at tol 1e-4); one sigma per seed for all methods (likelihood "
              "CV on digits, 0.3 on sinc); KLIEP uses all test points as centres and is run once per gap, "
              "stopping there. The paper's atoms are on HumanEva (3135 test points), so they are not comparable "
              "to ours; they are listed against the gap 1e-4 columns for orientation."))


def _fig2_fits(seed, size, max_iter=10000, tol=1e-4):
    data, sigma = _fw_problem("sinc", seed, size)
    kliep = KLIEP(sigma=sigma, n_centers=None).fit(data.X_tr, data.X_te)
    fits = {label: cls(sigma=sigma, tol=tol, max_iter=max_iter).fit(data.X_tr, data.X_te)
            for label, cls in FW_SOLVERS.items()}
    return kliep, fits


def _fig2_sparsity_run(seed, size):
    kliep, fits = _fig2_fits(seed, size)
    out = {"KLIEP nnz": float(np.count_nonzero(kliep.alpha_))}
    out.update({f"{label} nnz": float(np.count_nonzero(est.alpha_)) for label, est in fits.items()})
    return out


def _fig2_sparsity_judge(values):
    mean = means(values, ["KLIEP nnz", "FWCS nnz", "AFWCS nnz", "PFWCS nnz", "FCFWCS nnz"])
    order = ["KLIEP nnz", "FWCS nnz", "AFWCS nnz", "PFWCS nnz"]
    holds = all(mean[a] > mean[b] for a, b in zip(order, order[1:]))
    pf, af = np.asarray(values["PFWCS nnz"]), np.asarray(values["AFWCS nnz"])
    text = (", ".join(f"{k.split()[0]} {format_number(mean[k])}" for k in order) + f" (optimum by FCFWCS "
            f"{format_number(mean['FCFWCS nnz'])}); PFWCS < AFWCS in {int(np.sum(pf < af))}/{len(pf)} seeds")
    return ("reproduced" if holds else "not reproduced"), text


GAP_ITERATIONS = (100, 1000)
#: Tolerance of the gap-curve runs: tiny, so the solvers run the full iteration budget.
GAP_RUN_TOL = 1e-12


def _fig2_gap_run(seed, size):
    _, fits = _fig2_fits(seed, size, max_iter=max(GAP_ITERATIONS), tol=GAP_RUN_TOL)
    out = {}
    for label in ["FWCS", "AFWCS", "PFWCS"]:
        h = fits[label].history_
        rel = h.gap / np.abs(h.objective)
        for t in GAP_ITERATIONS:
            out[f"{label} rel. gap @ it {t}"] = float(rel[t]) if t < len(rel) else 0.0  # 0: converged earlier
    return out


def _fig2_gap_judge(values):
    parts, holds = [], True
    for t in GAP_ITERATIONS:
        mean = means(values, [f"{s} rel. gap @ it {t}" for s in ["FWCS", "AFWCS", "PFWCS"]])
        smallest = min(mean, key=mean.get).split()[0]
        holds &= smallest == "PFWCS"
        parts.append(f"after {t} iterations smallest gap: {smallest} ({format_number(min(mean.values()))})")
    return ("reproduced" if holds else "not reproduced"), "; ".join(parts)


def _fig2_trace(seed, size):
    _, fits = _fig2_fits(seed, size, max_iter=max(GAP_ITERATIONS), tol=GAP_RUN_TOL)
    return {label: [float(g) for g in est.history_.gap / np.abs(est.history_.objective)]
            for label, est in fits.items()}


_FIG2_NOTES = ("KLIEP (all 300 test points as centres, projected gradient) and the Frank-Wolfe "
               "solvers run to relative duality gap 1e-4; sigma = 0.3. A converged iterate's "
               "sparsity depends on the stopping tolerance; FCFWCS gives the optimum's.")
register(Row(
    key="fw.fig2.sparsity", paper="fw-covariate-shift-iw-smtgp", where="Fig. 2(e)",
    claim="On the sinc data, PFWCS gives the sparsest alpha, then AFWCS, FWCS and KLIEP "
          "(8, 18, 73 and 180 non-zeros of 300).",
    paper_values={"KLIEP nnz": 180, "FWCS nnz": 73, "AFWCS nnz": 18, "PFWCS nnz": 8},
    run=_fig2_sparsity_run, judge=_fig2_sparsity_judge, sizes=_FW_SIZES["sinc"], notes=_FIG2_NOTES))
register(Row(
    key="fw.fig2.gap", paper="fw-covariate-shift-iw-smtgp", where="Fig. 2(f)",
    claim="On the sinc data, the duality gap of PFWCS falls fastest: after the same number of iterations "
          "it is the smallest of FWCS, AFWCS and PFWCS.",
    paper_values={}, run=_fig2_gap_run, judge=_fig2_gap_judge, sizes=_FW_SIZES["sinc"], figure="gaps",
    trace=_fig2_trace, notes="Relative gap <g, d_FW> / |F| after 100 and 1000 iterations (no stopping)."))


# ------------------------------------------------------------------ FW paper Table 2 / Fig. 3
def arm_marker_error(Y, P):
    """Mean Euclidean error of the elbow and hand positions (eq. 18 with 2 joint markers)."""
    def markers(A):
        elbow = np.column_stack([np.cos(A[:, 0]), np.sin(A[:, 0])])
        return elbow, arm_forward(A)
    return float(np.mean([np.linalg.norm(a - b, axis=1).mean() for a, b in zip(markers(Y), markers(P))]))


FIG3_SIZES = {"full": (50, 100, 200), "small": (30, 60)}
IW_MODELS = ["SMTGP", "IW-SMTGP (PFWCS)", "IW-SMTGP (FCFWCS)"]


def _fig3_data(name, seed, size):
    if name == "arm_pose":
        data = arm_pose(n_tr=max(FIG3_SIZES[size]), n_te={"full": 150, "small": 80}[size], random_state=seed)
        tgp = dict(rho_x=median_heuristic(data.X_tr), rho_y=median_heuristic(data.Y_tr))
        return data, tgp, arm_marker_error
    data = digits_center(shift="selection", n_tr=max(FIG3_SIZES[size]) + 50,
                         n_max={"full": 450, "small": 250}[size], random_state=seed)
    tgp = dict(rho_x=median_heuristic(data.X_tr), rho_y=median_heuristic(data.Y_tr))
    return data, tgp, image_rmse


def _fig3_run(name):
    def run(seed, size):
        data, tgp, error = _fig3_data(name, seed, size)
        tgp.update(lambda_x=1e-3, lambda_y=1e-3, theta=0.99, gamma=0.99)  # the FW paper's SMTGP setting
        rng = np.random.default_rng(seed)
        out = {}
        for n in FIG3_SIZES[size]:
            rows = rng.choice(len(data.X_tr), size=min(n, len(data.X_tr)), replace=False)
            sub = type(data)(data.X_tr[rows], data.Y_tr[rows], data.X_te, data.Y_te)
            sigma = _sigma(sub.X_tr, sub.X_te, seed)
            weights = {"SMTGP": None,
                       "IW-SMTGP (PFWCS)": PFWCS(sigma=sigma).fit(sub.X_tr, sub.X_te).weights_,
                       "IW-SMTGP (FCFWCS)": FCFWCS(sigma=sigma).fit(sub.X_tr, sub.X_te).weights_}
            for label, w in weights.items():
                out[f"{label} @ n_tr={n}"] = error(sub.Y_te, predict(TwinGP("sm", **tgp), sub, w))
            out[f"training mean @ n_tr={n}"] = error(sub.Y_te, np.tile(sub.Y_tr.mean(axis=0), (len(sub.Y_te), 1)))
        return out
    return run


def _fig3_judge(values):
    sizes = sorted({int(k.split("=")[-1]) for k in values})
    significant, better = 0, 0
    for n in sizes:
        iw, plain = np.asarray(values[f"IW-SMTGP (PFWCS) @ n_tr={n}"]), np.asarray(values[f"SMTGP @ n_tr={n}"])
        p = metrics.paired_ttest(iw, plain)[1]
        better += iw.mean() < plain.mean()
        significant += bool(iw.mean() < plain.mean() and p < 0.05)
    text = (f"IW-SMTGP (PFWCS) lower mean error at {better}/{len(sizes)} sizes, significantly lower "
            f"(paired t-test over seeds, 5 %) at {significant}/{len(sizes)}")
    return direction(significant == len(sizes), text)


_FIG3_TEXT = {"arm_pose": "the planar arm (arm_pose, HumanEva stand-in); error of elbow and hand positions",
              "digits": "8x8 digits centre pixels under selection bias; per-image RMSE"}
for _name in ["arm_pose", "digits"]:
    register(Row(
        key=f"fw.fig3.{_name}", paper="fw-covariate-shift-iw-smtgp", where="Table 2 / Fig. 3 (analogue)",
        claim="IW-SMTGP (weights by PFWCS) has a lower error than SMTGP at every training-set size, "
              "significant by a paired t-test at 5 % (HumanEva selection bias S1: 51.68 vs 52.82 mm).",
        paper_values={},
        run=_fig3_run(_name), judge=_fig3_judge, figure="curve",
        sizes={s: f"{_FIG3_TEXT[_name]}; n_tr in {list(v)}" for s, v in FIG3_SIZES.items()},
        notes="SMTGP with the FW paper's setting theta = gamma = 0.99, lambda = 1e-3, kernel widths by the "
              "median heuristic; n_tr training points sub-sampled per seed; weights by PFWCS and FCFWCS "
              "(sigma by kliep_sigma). The paired t-test pairs the seeds. 'training mean' predicts the mean "
              "training output everywhere: a model above that line has learned nothing useful."))
