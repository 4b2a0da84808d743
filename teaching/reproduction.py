"""The papers' claims as small registered row functions (issue 13).

A :class:`Row` is one claim of one paper: where it is (table or figure), the claim in one
sentence, the paper's numbers, a function ``run(seed, size) -> {metric: number}`` that
measures it on one seed, and a ``judge`` that turns the numbers of all seeds into a
verdict with a one-line reason. ``bench/reproduce.py`` runs every row over seeds and
writes ``assets/reproduction.json``; the app's Reproduction page reads that file and
re-runs a row on ``size="small"``; the tests recompute each row on one seed.

Verdicts: "reproduced" / "not reproduced" when the claim is measured on the paper's own
data (its synthetic generators); "not comparable" when our data are a stand-in (8x8
digits for USPS, ``arm_pose`` for HumanEva): the reason line then says whether the
*direction* of the claim holds on the stand-in ("direction holds" / "direction fails").

Other issues add rows with :func:`register` (classification, domain transfer).
"""

import warnings
from functools import lru_cache
from dataclasses import dataclass
from typing import Callable, Dict

import numpy as np
from scipy import stats

from covshift import metrics
from covshift.data import arm_forward, arm_pose, digits_center, double_s, s_shape, selection_bias, sinc_shift
from covshift.kernels import median_heuristic
from covshift.model_selection import kliep_sigma
from covshift.regression import GPR, HSICKNN, KTAKNN, WKNN, TwinGP, rho_from_paper, tuned_gpr
from covshift.weights import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS, EnsembleKMM, KMM

PAPERS = {
    "sharma-mittal-tgp": "Generalized Twin Gaussian Processes using Sharma-Mittal divergence",
    "fw-covariate-shift-iw-smtgp": "Frank-Wolfe covariate shift and importance-weighted SMTGP",
    "sampling-based-kmm": "Sampling-based kernel mean matching",
    "discriminative-covariate-shift": "Discriminative learning for differing training and test "
                                      "distributions (Bickel, Brückner and Scheffer, ICML 2007)",
    "domain-transfer-structured-output": "Domain transfer structured output learning (Jim Jing-Yan Wang)",
}
VERDICTS = ("reproduced", "not reproduced", "not comparable")
SIZES = ("full", "small")


@dataclass(frozen=True)
class Row:
    """One claim of one paper and the code that checks it.

    Attributes
    ----------
    key : stable identifier ("paper.where.data")
    paper, where, claim : the paper (a key of PAPERS), "Table 2" / "Fig. 2", one sentence
    paper_values : metric -> the paper's number (only metrics the paper reports)
    run : (seed, size) -> {metric: float}; size is "full" (results file) or "small" (tests, app)
    judge : {metric: array over seeds} -> (verdict, one-line reason)
    sizes : size -> what it means, in words ("Toy 1, 250 / 250 points")
    figure : "bars" (mean +- sd per metric beside the paper), "curve" (metric "<model> @ n_tr=<n>"
        against n), or "gaps" (duality-gap curves from ``trace``)
    trace : optional (seed, size) -> {name: list} curves for the figure (seed 0 only)
    """

    key: str
    paper: str
    where: str
    claim: str
    paper_values: Dict[str, float]
    run: Callable
    judge: Callable
    sizes: Dict[str, str]
    figure: str = "bars"
    trace: Callable = None
    notes: str = ""


ROWS: Dict[str, Row] = {}


def register(row):
    """Add a row to the registry (keys are unique)."""
    if row.key in ROWS:
        raise ValueError(f"A reproduction row with key {row.key!r} is already registered.")
    if row.paper not in PAPERS:
        raise ValueError(f"Unknown paper {row.paper!r}; add it to PAPERS first.")
    ROWS[row.key] = row
    return row


def run_row(key, seed, size="small"):
    """Run one registered row on one seed; warnings of the methods are silenced (their
    convergence is part of what the row measures)."""
    if key not in ROWS:
        raise ValueError(f"No reproduction row {key!r}; known rows: {sorted(ROWS)}.")
    if size not in SIZES:
        raise ValueError(f"size must be one of {SIZES}; got {size!r}.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: float(value) for name, value in ROWS[key].run(int(seed), size).items()}


def is_timing(metric):
    """Timing metrics (seconds) depend on the machine's load; tests only check they are positive."""
    return metric.endswith(" s") or metric.endswith("(s)")


#: A fresh run of one seed agrees with its stored run when it is within this share of the
#: seed-to-seed spread (SD over the stored seeds) of it: another CPU, BLAS build or thread count
#: changes the last digits, and an optimiser that stops after a fixed number of steps can land a
#: little elsewhere (1.7186 against 1.7072 for arm pose), but a tenth of what changing the seed does
#: tells the same story.
SPREAD_SHARE = 0.1
#: ... or within this relative tolerance, whichever is larger (rows whose seeds agree closely).
RELATIVE_TOL = 1e-3


def agrees(metric, stored, fresh):
    """Does a fresh run reproduce the stored one, seed by seed?

    ``stored`` are the values of ``metric`` over the stored seeds, ``fresh`` those of a new run
    of the first ``len(fresh)`` of them (None or NaN: the run did not reach that point). Timings,
    which depend on the machine's load, only have to be positive; a missing value must be missing
    in both; every other value must be within ``max(SPREAD_SHARE * SD over the stored seeds,
    RELATIVE_TOL * |stored|)`` of the stored one. Used by the tests and by the Reproduction
    page's re-run, so both judge alike.
    """
    stored = np.array([np.nan if v is None else v for v in stored], dtype=float)
    fresh = np.array([np.nan if v is None else v for v in fresh], dtype=float)
    if not 0 < fresh.size <= stored.size:
        return False
    if is_timing(metric):
        return bool(np.all(fresh[np.isfinite(fresh)] > 0))
    finite = stored[np.isfinite(stored)]
    spread = finite.std(ddof=1) if finite.size > 1 else 0.0
    same_seeds = stored[:fresh.size]
    missing = ~np.isfinite(same_seeds)
    if np.any(missing != ~np.isfinite(fresh)):
        return False
    tolerance = np.maximum(SPREAD_SHARE * spread, RELATIVE_TOL * np.abs(same_seeds[~missing]))
    return bool(np.all(np.abs(fresh[~missing] - same_seeds[~missing]) <= tolerance))


def summarise(values):
    """{metric: list over seeds} -> {metric: {"mean", "sd", "values", "reached"}} (NaN = not reached)."""
    out = {}
    for name, column in values.items():
        column = np.asarray(column, dtype=float)
        finite = column[np.isfinite(column)]
        out[name] = {"mean": float(finite.mean()) if finite.size else None,
                     "sd": float(finite.std(ddof=1)) if finite.size > 1 else 0.0,
                     "values": [None if not np.isfinite(v) else float(v) for v in column],
                     "reached": int(finite.size)}
    return out


# ------------------------------------------------------------------ shared helpers
def _means(values, names):
    return {n: float(np.nanmean(values[n])) for n in names}


def _fmt(x):
    return f"{x:.3g}"


def _direction(holds, text):
    """Reason line of a stand-in row: the verdict is "not comparable", the text says whether
    the direction of the claim holds on our data."""
    return "not comparable", ("direction holds: " if holds else "direction fails: ") + text


def _cv_choice(make, grid, X, Y, error, n_folds=3, seed=0):
    """The grid value whose model has the smallest mean n_folds-fold validation error."""
    folds = np.array_split(np.random.default_rng(seed).permutation(len(X)), n_folds)
    scores = []
    for value in grid:
        fold_errors = []
        for held in folds:
            train = np.setdiff1d(np.arange(len(X)), held)
            model = make(value).fit(X[train], Y[train])
            fold_errors.append(error(Y[held], np.asarray(model.predict(X[held])).reshape(Y[held].shape)))
        scores.append(np.mean(fold_errors))
    return grid[int(np.argmin(scores))]


def _predict(model, data, sample_weight=None):
    pred = model.fit(data.X_tr, data.Y_tr, sample_weight=sample_weight).predict(data.X_te)
    return np.asarray(pred).reshape(data.Y_te.shape)


def image_rmse(Y, P):
    """Root mean square error over the output pixels of each image, averaged over images
    (the USPS error of sharma-mittal-tgp, section 5.1.3)."""
    return float(np.mean(np.sqrt(np.mean((Y - P) ** 2, axis=1))))


# ------------------------------------------------------------------ SMTGP paper data
TOY_TGP = dict(rho_x=rho_from_paper(5.0), rho_y=rho_from_paper(0.05), lambda_x=1e-4, lambda_y=1e-4)
TOYS = {  # name -> (generator, Table 1 theta/gamma, sizes, the paper's error measure)
    "Toy 1": (s_shape, dict(theta=0.9, gamma=1.5), {"full": (250, 250), "small": (100, 100)}),
    "Toy 2": (double_s, dict(theta=0.6, gamma=0.99), {"full": (250, 500), "small": (100, 100)}),
}
DIGITS_SIZES = {"full": 300, "small": 160}  # images drawn before the half split


def _toy(name, seed, size):
    generator, sm, sizes = TOYS[name]
    n_tr, n_te = sizes[size]
    return generator(n_tr=n_tr, n_te=n_te, random_state=seed), dict(TOY_TGP, **sm), metrics.mae


def _digits(seed, size):
    """8x8 digits centre pixels, random half split (Table 2/3 use no shift); widths by the
    median heuristic, lambda = 5e-3, theta = 0.9, gamma = 0.99 (Table 1's USPS theta/gamma)."""
    data = digits_center(shift=None, n_max=DIGITS_SIZES[size], random_state=seed)
    tgp = dict(rho_x=median_heuristic(data.X_tr), rho_y=median_heuristic(data.Y_tr),
               lambda_x=5e-3, lambda_y=5e-3, theta=0.9, gamma=0.99)
    return data, tgp, image_rmse


def _tgp_data(name, seed, size):
    return _digits(seed, size) if name == "digits" else _toy(name, seed, size)


# ------------------------------------------------------------------ SMTGP Table 2
def _table2_run(name):
    def run(seed, size):
        data, tgp, error = _tgp_data(name, seed, size)
        return {label: error(data.Y_te, _predict(TwinGP(div, **tgp), data))
                for label, div in [("KLTGP", "kl"), ("IKLTGP", "ikl"), ("SMTGP", "sm")]}
    return run


def _table2_judge(values):
    mean = _means(values, ["KLTGP", "IKLTGP", "SMTGP"])
    best_other = min(("KLTGP", "IKLTGP"), key=mean.get)
    wins = int(np.sum(np.asarray(values["SMTGP"]) <= np.minimum(values["KLTGP"], values["IKLTGP"]) + 1e-12))
    n = len(values["SMTGP"])
    text = (f"SMTGP {_fmt(mean['SMTGP'])} vs {best_other} {_fmt(mean[best_other])}; "
            f"SMTGP at least as good as both in {wins}/{n} seeds")
    return ("reproduced" if mean["SMTGP"] <= mean[best_other] else "not reproduced"), text


for _name, _paper in [("Toy 1", dict(SMTGP=0.1126, KLTGP=0.116, IKLTGP=0.115)),
                      ("Toy 2", dict(SMTGP=0.11, KLTGP=0.126, IKLTGP=0.114))]:
    register(Row(
        key=f"smtgp.table2.{_name.lower().replace(' ', '')}", paper="sharma-mittal-tgp", where="Table 2",
        claim=f"On {_name}, SMTGP (theta, gamma of Table 1) has a mean absolute error at most that of "
              "KLTGP and IKLTGP.",
        paper_values=_paper, run=_table2_run(_name), judge=_table2_judge,
        sizes={s: f"{_name}, {a} training / {b} test points" for s, (a, b) in TOYS[_name][2].items()},
        notes="Kernel widths and lambdas of Table 1 (2 rho_x^2 = 5, 2 rho_y^2 = 0.05, lambda = 1e-4); "
              "SMTGP starts from the KLTGP prediction."))


# ------------------------------------------------------------------ SMTGP Table 3
K_GRID = [5, 10, 20]


def _table3_run(name):
    def run(seed, size):
        data, tgp, error = _tgp_data(name, seed, size)
        X, Y = data.X_tr, data.Y_tr
        rho_y = tgp["rho_y"]
        out = {"GPR (paper setting)": error(data.Y_te, _predict(GPR(rho=tgp["rho_x"], lam=tgp["lambda_x"]), data))}
        out["GPR (tuned)"] = error(data.Y_te, _predict(tuned_gpr(X, Y, random_state=seed), data))
        makers = {"W-KNN": lambda k: WKNN(k),
                  "HSIC-KNN": lambda k: HSICKNN(k, rho_x=tgp["rho_x"], rho_y=rho_y),
                  "KTA-KNN": lambda k: KTAKNN(k, rho_x=tgp["rho_x"], rho_y=rho_y)}
        for label, make in makers.items():
            k = _cv_choice(make, [k for k in K_GRID if k < 0.8 * len(X)], X, Y, error, seed=seed)
            out[label] = error(data.Y_te, _predict(make(k), data))
        out["SMTGP"] = error(data.Y_te, _predict(TwinGP("sm", **tgp), data))
        return out
    return run


BASELINES = ["GPR (paper setting)", "GPR (tuned)", "W-KNN", "HSIC-KNN", "KTA-KNN"]


def _table3_judge(stand_in):
    def judge(values):
        mean = _means(values, BASELINES + ["SMTGP"])
        beaten_by = [b for b in BASELINES if mean[b] < mean["SMTGP"]]
        text = (f"SMTGP {_fmt(mean['SMTGP'])}; " + ", ".join(f"{b} {_fmt(mean[b])}" for b in BASELINES)
                + (f"; better than SMTGP: {', '.join(beaten_by)}" if beaten_by else "; SMTGP best"))
        if stand_in:
            return _direction(not beaten_by, text + " (8x8 digits in [0, 1], not USPS)")
        return ("not reproduced" if beaten_by else "reproduced"), text
    return judge


_TABLE3_PAPER = {
    "Toy 1": {"GPR (paper setting)": 0.17603, "W-KNN": 0.15152, "HSIC-KNN": 0.18396, "KTA-KNN": 0.19333,
              "SMTGP": 0.1126},
    "Toy 2": {"GPR (paper setting)": 0.19011, "W-KNN": 0.16986, "HSIC-KNN": 0.21294, "KTA-KNN": 0.19134,
              "SMTGP": 0.11},
    "digits": {"GPR (paper setting)": 0.31504, "W-KNN": 0.2731, "HSIC-KNN": 0.26832, "KTA-KNN": 0.26679,
               "SMTGP": 0.2587},
}
for _name, _paper in _TABLE3_PAPER.items():
    _sizes = ({s: f"{_name}, {a} training / {b} test points" for s, (a, b) in TOYS[_name][2].items()}
              if _name in TOYS else {s: f"8x8 digits centre pixels, {n} images split in half (USPS stand-in)"
                                     for s, n in DIGITS_SIZES.items()})
    register(Row(
        key=f"smtgp.table3.{_name.lower().replace(' ', '')}", paper="sharma-mittal-tgp", where="Table 3",
        claim=f"On {'USPS' if _name == 'digits' else _name}, SMTGP has a smaller error than GPR, W-KNN, "
              "HSIC-KNN and KTA-KNN.",
        paper_values=_paper, run=_table3_run(_name), judge=_table3_judge(_name == "digits"), sizes=_sizes,
        notes="GPR (paper setting) uses the TGP kernel width and lambda; GPR (tuned) is "
              "covshift.regression.tuned_gpr (width and noise by marginal likelihood); the k of W-KNN, HSIC-KNN and KTA-KNN is chosen by 3-fold CV from "
              f"{K_GRID}. Errors: MAE on the toys, per-image RMSE on digits."))


# ------------------------------------------------------------------ certainty vs error
def _certainty_run(name):
    def run(seed, size):
        data, tgp, _ = _tgp_data(name, seed, size)
        model = TwinGP("sm", **tgp).fit(data.X_tr, data.Y_tr)
        pred, phi = model.predict(data.X_te, return_certainty=True)
        errors = metrics.euclidean_errors(data.Y_te, np.asarray(pred).reshape(data.Y_te.shape))
        return {"Pearson r (certainty, error)": metrics.certainty_error_correlation(phi, errors)[0]}
    return run


def _certainty_judge(stand_in):
    def judge(values):
        r = np.asarray(values["Pearson r (certainty, error)"])
        p_value = float(stats.ttest_1samp(r, 0.0, alternative="less").pvalue) if len(r) > 1 else 1.0
        text = (f"mean r = {_fmt(float(np.mean(r)))}, negative in {int(np.sum(r < 0))}/{len(r)} seeds, "
                f"one-sided t-test over the seeds p = {p_value:.2g}"
                + ("" if p_value < 0.05 else " (not significant at 5 %)"))
        holds = np.mean(r) < 0 and p_value < 0.05  # a negative mean the seeds' spread could explain is no evidence
        if stand_in:
            return _direction(holds, text)
        return ("reproduced" if holds else "not reproduced"), text
    return judge


for _name in ["Toy 1", "digits"]:
    register(Row(
        key=f"smtgp.certainty.{_name.lower().replace(' ', '')}", paper="sharma-mittal-tgp",
        where="Section 6 (certainty phi)",
        claim=f"On {'USPS' if _name == 'digits' else _name}, the SMTGP certainty phi(x, y) is negatively "
              "correlated with the test error.",
        paper_values={}, run=_certainty_run(_name), judge=_certainty_judge(_name == "digits"),
        sizes=(ROWS[f"smtgp.table3.{_name.lower().replace(' ', '')}"].sizes),
        notes="The paper gives the sign, not a number. Pearson r of phi (eq. 17) and the per-point error."))


# ------------------------------------------------------------------ FW paper Table 1 / Fig. 2
FW_SOLVERS = {"FWCS": FWCS, "AFWCS": AFWCS, "PFWCS": PFWCS, "FCFWCS": FCFWCS}
GAPS = (1e-3, 1e-4)
#: Iteration budget of the Table 1 rows: a gap not reached within it is reported as not reached.
FW_MAX_ITER = 2000


def _sigma(X_tr, X_te, seed):
    """One kernel width per data set for every KLIEP solver (a fair comparison): the shared
    likelihood cross-validation of :func:`covshift.model_selection.kliep_sigma`."""
    return float(kliep_sigma(X_tr, X_te, random_state=seed)["best_sigma"])


@lru_cache(maxsize=8)
def _fw_problem(name, seed, size):
    """Data and sigma of the FW rows, cached: Table 1 and both Fig. 2 rows share them."""
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
            parts.append(f"gap {tol:g}: sparsest {sparsest} ({_fmt(mean[sparsest])} atoms), PFWCS < AFWCS "
                         f"in {int(np.sum(pf < af))}/{len(pf)} seeds")
        kliep_reached = int(np.sum(np.isfinite(values[f"KLIEP nnz @{min(GAPS):g}"])))
        text = "; ".join(parts) + f"; KLIEP reached gap {min(GAPS):g} in {kliep_reached}/{len(pf)} seeds"
        if stand_in:
            return _direction(holds, text)
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
    mean = _means(values, ["KLIEP nnz", "FWCS nnz", "AFWCS nnz", "PFWCS nnz", "FCFWCS nnz"])
    order = ["KLIEP nnz", "FWCS nnz", "AFWCS nnz", "PFWCS nnz"]
    holds = all(mean[a] > mean[b] for a, b in zip(order, order[1:]))
    pf, af = np.asarray(values["PFWCS nnz"]), np.asarray(values["AFWCS nnz"])
    text = (", ".join(f"{k.split()[0]} {_fmt(mean[k])}" for k in order) + f" (optimum by FCFWCS "
            f"{_fmt(mean['FCFWCS nnz'])}); PFWCS < AFWCS in {int(np.sum(pf < af))}/{len(pf)} seeds")
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
        mean = _means(values, [f"{s} rel. gap @ it {t}" for s in ["FWCS", "AFWCS", "PFWCS"]])
        smallest = min(mean, key=mean.get).split()[0]
        holds &= smallest == "PFWCS"
        parts.append(f"after {t} iterations smallest gap: {smallest} ({_fmt(min(mean.values()))})")
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
                out[f"{label} @ n_tr={n}"] = error(sub.Y_te, _predict(TwinGP("sm", **tgp), sub, w))
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
    return _direction(significant == len(sizes), text)


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


# ------------------------------------------------------------------ sampling-based KMM
KMM_METHODS = {"CENKMM": lambda: KMM(), "ENSKMM": lambda: EnsembleKMM("ens", n_parts=10),
               "ENSTRKMM": lambda: EnsembleKMM("enstr", n_parts=10),
               "VFKMM": lambda: EnsembleKMM("vf", n_parts=10), "EVFKMM": lambda: EnsembleKMM("evf", n_parts=10)}


def _kmm_run(n_tr_full):
    def run(seed, size):
        from sklearn.datasets import load_digits

        digits = load_digits()
        n_tr = n_tr_full if size == "full" else n_tr_full // 2
        data = selection_bias(digits.data / 16.0, digits.target[:, None], n_tr=n_tr, random_state=seed)
        truth = data.true_weights
        return {f"{label} ln NMSE": float(np.log(metrics.normalized_mse(make().fit(data.X_tr, data.X_te).weights_,
                                                                        truth)))
                for label, make in KMM_METHODS.items()}
    return run


def _kmm_judge(values):
    mean = {k.split()[0]: float(np.mean(v)) for k, v in values.items()}
    baseline = min(mean["CENKMM"], mean["ENSKMM"], mean["ENSTRKMM"])
    proposed = min(mean["VFKMM"], mean["EVFKMM"])
    worst = max(mean, key=mean.get)
    text = (", ".join(f"{k} {_fmt(v)}" for k, v in mean.items()) + f"; worst: {worst}")
    return _direction(proposed <= baseline and worst == "ENSTRKMM",
                      text + " (the claim: a sampling method best, ENSTRKMM worst)")


for _n in [100, 500]:
    register(Row(
        key=f"kmm.nmse.n{_n}", paper="sampling-based-kmm", where="Figs. 2 and 5",
        claim="VFKMM or EVFKMM estimates the ratio with a smaller NMSE than CENKMM, ENSKMM and ENSTRKMM, "
              "and ENSTRKMM is the worst.",
        paper_values={}, run=_kmm_run(_n), judge=_kmm_judge,
        sizes={"full": f"digits (64 pixels) under selection bias, about {_n} training images",
               "small": f"the same, about {_n // 2} training images"},
        notes="The paper shows ln NMSE in figures on other data sets (no table); k = 10 parts, "
              "median-heuristic sigma, B = 1000. NMSE against the exact ratio of the selection split."))


# ------------------------------------------------------------------ discriminative covariate shift, Fig. 3
#: The bundled task and the number of unlabelled test inputs each method sees (one point of Fig. 3's curves).
CLASSIFICATION_TASK = "breast_cancer"
CLASSIFICATION_SIZES = {"full": 128, "small": 32}


def _classification_run(seed, size):
    """Fig. 3 protocol of bench/classification.py (every method tuned alike on a labelled tuning split)
    at one test size: the 1-AUC risk reduction relative to iid of the integrated model and of each
    two-stage method."""
    from covshift.classification.protocol import TWO_STAGE, reduction, run_one

    n_test = CLASSIFICATION_SIZES[size]
    aucs = run_one(CLASSIFICATION_TASK, seed, [n_test])[0][n_test]
    return {m: reduction(aucs[m][0], aucs["iid"][0]) for m in ["integrated"] + TWO_STAGE}


def _classification_judge(values):
    """The best two-stage method is the one with the largest mean reduction over the seeds (not the
    best per seed, which would pick on the evaluation data)."""
    two_stage = [m for m in values if m != "integrated"]
    mean = _means(values, list(values))
    best = max(two_stage, key=mean.get)
    integrated = np.asarray(values["integrated"])
    text = (f"1-AUC risk reduction vs iid: integrated {_fmt(mean['integrated'])}, best two-stage ({best}) "
            f"{_fmt(mean[best])}; integrated ahead of it in {int(np.sum(integrated > np.asarray(values[best])))}/"
            f"{len(integrated)} seeds (breast cancer stand-in, not spam/Cora/landmine)")
    return _direction(mean["integrated"] > mean[best], text)


register(Row(
    key="dcs.fig3.breast_cancer", paper="discriminative-covariate-shift", where="Fig. 3",
    claim="The integrated model reduces the 1-AUC risk relative to iid more than the two-stage methods.",
    paper_values={}, run=_classification_run, judge=_classification_judge,
    sizes={s: f"breast cancer under selection bias (about 58 training points, linear kernel), {n} unlabelled "
              "test inputs" for s, n in CLASSIFICATION_SIZES.items()},
    notes="The paper reports curves over the number of test examples (spam, Cora, landmines), not one number. "
          "Protocol of bench/classification.py (covshift.classification.protocol): 30 % of the test pool is a "
          "labelled tuning set on which every method's C (and selector C) is tuned alike; AUC on the rest. "
          "Reduction = 1 - (1 - AUC) / (1 - AUC_iid) for the integrated model and the two-stage methods "
          "(LogisticRatio, FCFWCS and KMM weights); the verdict compares the integrated model with the two-stage "
          "method of largest mean reduction."))


# ------------------------------------------------------------------ domain transfer structured output
TRANSFER_SHIFT, TRANSFER_LABELLED = "thicken+rotate", 10


@lru_cache(maxsize=1)
def _transfer_source():
    """The source structural SVM (fixed split, so one model serves every seed)."""
    from . import catalog

    return catalog.transfer_source("multiclass", TRANSFER_SHIFT).model


def _transfer_run(seed, size):
    """Target accuracy of domain transfer, source only and target only (a StructuredSVM on the same
    l labelled target examples, same C and epsilon), as bench/transfer.py."""
    from . import catalog

    data = catalog.transfer_data("multiclass", TRANSFER_SHIFT)
    transfer = catalog.transfer_fit("multiclass", TRANSFER_SHIFT, _transfer_source(), TRANSFER_LABELLED,
                                    seed=seed).model
    labelled = transfer["labelled"]
    target = catalog.StructuredSVM(catalog.transfer_problem("multiclass"), C=10.0, epsilon=1e-3).fit(
        data.X_pool[labelled], data.y_pool[labelled])
    return {"domain transfer": transfer["transfer_score"], "source only": transfer["source_score"],
            "target only": target.score(data.X_test, data.y_test)}


def _transfer_judge(values):
    mean = _means(values, ["domain transfer", "source only", "target only"])
    dt = np.asarray(values["domain transfer"])
    rival = np.maximum(values["source only"], values["target only"])
    text = (f"target accuracy: domain transfer {_fmt(mean['domain transfer'])}, source only "
            f"{_fmt(mean['source only'])}, target only {_fmt(mean['target only'])}; transfer beats both in "
            f"{int(np.sum(dt > rival))}/{len(dt)} seeds (thickened, rotated 8x8 digits stand-in)")
    return _direction(mean["domain transfer"] > max(mean["source only"], mean["target only"]), text)


register(Row(
    key="dtso.digits.l10", paper="domain-transfer-structured-output",
    where="Section 2 (the paper reports no experiment)",
    claim="Learning a delta function on the source model from a few target labels beats source-only and "
          "target-only.",
    paper_values={}, run=_transfer_run, judge=_transfer_judge,
    sizes={s: f"digits, source half vs target half with thickened strokes rotated 15 degrees; multiclass, "
              f"l = {TRANSFER_LABELLED} labelled target examples" for s in SIZES},
    notes="The paper states the method (a delta w'Psi(x, y) on the source predictor, Algorithm 1) and has no "
          "experiment, so the claim is its motivation. Setting of bench/transfer.py: C = 10 for every method, "
          "epsilon = 1e-3 on the l examples, source model C = 10, epsilon = 1e-2; the seed draws the l examples."))


def row_keys():
    """Registered rows in registration order."""
    return list(ROWS)


def default_seeds(n=10):
    return list(range(n))


__all__ = ["Row", "ROWS", "PAPERS", "VERDICTS", "register", "run_row", "summarise", "is_timing",
           "row_keys", "default_seeds", "image_rmse", "arm_marker_error"]
