"""What the app offers, by name: data sets, weight estimators, regression models, presets.

Plain functions that build and run the core objects and collect their warnings, so the
Streamlit pages only choose names and draw results (this module never imports streamlit).
"""

import io
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from . import data as datasets
from .model_selection import kliep_sigma
from .regression import GPR, WKNN, DeltaAdapter, TwinGP, rho_from_paper
from .weights import AFWCS, FCFWCS, FWCS, KLIEP, KMM, PFWCS, EnsembleKMM, LogisticRatio, RuLSIF

#: Data sets and their adjustable parameters: name -> (label, {param: (default, min, max, step)}).
DATASETS = {
    "sinc": ("Sinc shift (paper Fig. 2)", {
        "n_tr": (500, 20, 3000, 10), "n_te": (300, 10, 3000, 10), "mean_tr": (0.5, -2.0, 2.0, 0.1),
        "std_tr": (0.5, 0.1, 2.0, 0.05), "mean_te": (0.0, -2.0, 2.0, 0.1), "std_te": (0.3, 0.1, 2.0, 0.05),
        "noise": (0.1, 0.0, 1.0, 0.01)}),
    "s_shape": ("S-shape (Toy 1)", {"n_tr": (250, 20, 2000, 10), "n_te": (250, 10, 2000, 10),
                                    "noise": (0.005, 0.0, 0.1, 0.005), "shift": (2.0, 0.0, 6.0, 0.5)}),
    "double_s": ("Double S (Toy 2)", {"n_tr": (250, 20, 2000, 10), "n_te": (500, 10, 2000, 10),
                                      "noise": (0.005, 0.0, 0.1, 0.005), "shift": (2.0, 0.0, 6.0, 0.5)}),
    "circle": ("Circle (2 correlated outputs)", {
        "n_tr": (300, 20, 2000, 10), "n_te": (200, 10, 2000, 10), "mean_tr": (0.0, -2.0, 2.0, 0.1),
        "std_tr": (0.6, 0.1, 2.0, 0.05), "mean_te": (0.5, -2.0, 2.0, 0.1), "std_te": (0.3, 0.1, 2.0, 0.05),
        "noise": (0.03, 0.0, 0.5, 0.01)}),
    "digits": ("Digits centre pixels (selection bias)", {"n_tr": (300, 50, 800, 10)}),
}
_GENERATORS = {"sinc": datasets.sinc_shift, "s_shape": datasets.s_shape, "double_s": datasets.double_s,
               "circle": datasets.circle_outputs, "digits": datasets.digits_center}
MAX_CSV_ROWS = 5000


def make_dataset(name, seed=0, **params):
    """Build a built-in data set by name with the given parameters."""
    if name not in _GENERATORS:
        raise ValueError(f"Unknown data set {name!r}; choose one of {sorted(_GENERATORS)}.")
    ints = {k: int(v) for k, v in params.items() if k in ("n_tr", "n_te")}
    return _GENERATORS[name](**{**params, **ints}, random_state=int(seed))


@dataclass
class CsvTable:
    """A parsed CSV: numeric columns only, with what was dropped."""

    columns: list
    values: np.ndarray
    notes: list = field(default_factory=list)


def read_csv(raw, seed=0):
    """Parse uploaded CSV bytes; keep numeric columns; ValueError with advice when unusable.

    A file longer than MAX_CSV_ROWS is subsampled with ``seed`` (the app's seed).
    """
    import pandas as pd

    if not raw:
        raise ValueError("The file is empty. Upload a CSV with a header row and numeric columns.")
    try:
        frame = pd.read_csv(io.BytesIO(raw))
    except Exception as exc:  # pandas raises many kinds for malformed files
        raise ValueError(f"This file could not be read as CSV ({type(exc).__name__}). "
                         "Save it as comma-separated text with a header row.") from None
    numeric = frame.apply(pd.to_numeric, errors="coerce")
    keep = [c for c in numeric.columns if numeric[c].notna().mean() >= 0.5]
    notes = []
    dropped = [str(c) for c in numeric.columns if c not in keep]
    if dropped:
        notes.append(f"Ignored non-numeric column(s): {', '.join(dropped[:8])}.")
    if len(keep) < 2:
        raise ValueError("The CSV needs at least two numeric columns: one or more inputs and an output."
                         + (f" Mostly empty or non-numeric: {', '.join(dropped[:8])}." if dropped else ""))
    values = numeric[keep].to_numpy(dtype=float)
    finite = np.all(np.isfinite(values), axis=1)
    if not finite.all():
        notes.append(f"Dropped {int((~finite).sum())} row(s) with missing or non-numeric values.")
        values = values[finite]
    if len(values) < 10:
        raise ValueError(f"Only {len(values)} complete rows remain; at least 10 are needed.")
    if len(values) > MAX_CSV_ROWS:
        rng = np.random.default_rng(seed)
        values = values[np.sort(rng.choice(len(values), MAX_CSV_ROWS, replace=False))]
        notes.append(f"Used a random subset of {MAX_CSV_ROWS} rows (the app stays interactive).")
    return CsvTable([str(c) for c in keep], values, notes)


def csv_dataset(table, inputs, outputs, split_column=None, seed=0):
    """ShiftData from a parsed CSV: a 0/1 train/test column (1 = training) or selection bias."""
    index = {c: i for i, c in enumerate(table.columns)}
    if not inputs or not outputs:
        raise ValueError("Choose at least one input column and one output column.")
    if set(inputs) & set(outputs) or (split_column and split_column in set(inputs) | set(outputs)):
        raise ValueError("A column can be an input, an output or the train/test column, not two of these.")
    X = table.values[:, [index[c] for c in inputs]]
    Y = table.values[:, [index[c] for c in outputs]]
    if split_column is None:
        return datasets.selection_bias(X, Y, random_state=seed, name="uploaded CSV (selection bias)")
    split = table.values[:, index[split_column]]
    if not np.all(np.isin(split, [0, 1])):
        raise ValueError(f"The train/test column '{split_column}' must contain only 0 (test) and 1 (training).")
    train = split == 1
    if train.sum() < 5 or (~train).sum() < 2:
        raise ValueError("The train/test column leaves fewer than 5 training or 2 test rows.")
    return datasets.ShiftData(X[train], Y[train], X[~train], Y[~train], None, "uploaded CSV")


#: Weight estimators shown in the app. sigma=None means each method's own default choice.
WEIGHT_ESTIMATORS = ["FCFWCS", "PFWCS", "AFWCS", "FWCS", "KLIEP", "KMM", "ENSKMM", "ENSTRKMM",
                     "VFKMM", "EVFKMM", "LogisticRatio", "RuLSIF"]
FRANK_WOLFE = {"FCFWCS", "PFWCS", "AFWCS", "FWCS"}
KLIEP_FAMILY = FRANK_WOLFE | {"KLIEP"}


def make_weight_estimator(name, sigma=None, max_iter=2000, tol=1e-5):
    """An estimator by name. sigma: number, or None for "auto" (KLIEP family: the shared
    :func:`covshift.model_selection.kliep_sigma`, see :func:`shared_kliep_sigma`; others: the
    median heuristic / their own cross-validation)."""
    kliep_sigma = "auto" if sigma is None else float(sigma)
    fw = dict(sigma=kliep_sigma, tol=tol, max_iter=max_iter)
    factories = {
        "FCFWCS": lambda: FCFWCS(**fw), "PFWCS": lambda: PFWCS(**fw), "AFWCS": lambda: AFWCS(**fw),
        "FWCS": lambda: FWCS(**fw), "KLIEP": lambda: KLIEP(sigma=kliep_sigma),
        "KMM": lambda: KMM(sigma=sigma), "ENSKMM": lambda: EnsembleKMM("ens", sigma=sigma),
        "ENSTRKMM": lambda: EnsembleKMM("enstr", sigma=sigma), "VFKMM": lambda: EnsembleKMM("vf", sigma=sigma),
        "EVFKMM": lambda: EnsembleKMM("evf", sigma=sigma), "LogisticRatio": lambda: LogisticRatio(sigma=sigma),
        "RuLSIF": lambda: RuLSIF(sigma=sigma),
    }
    if name not in factories:
        raise ValueError(f"Unknown estimator {name!r}.")
    return factories[name]()


@dataclass
class Outcome:
    """A fitted object with its wall time and the warnings it raised (for st.warning)."""

    model: object
    seconds: float
    warnings: list


def run_with_warnings(fn):
    """Call fn(); return (result, seconds, [warning messages]) without printing the warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        result = fn()
        seconds = time.perf_counter() - start
    messages = list(dict.fromkeys(str(w.message) for w in caught
                                  if not issubclass(w.category, (DeprecationWarning, FutureWarning))))
    return result, seconds, messages


#: How the shared kernel width of the KLIEP family was chosen, for the page's caption.
SIGMA_RULES = {"lcv": "likelihood cross-validation", "iwcv": "importance-weighted cross-validation",
               "manual": "hand (the sigma slider)"}


@dataclass
class SharedSigma:
    """The one kernel width every KLIEP-family solver uses on a view, and how it was chosen."""

    sigma: float
    rule: str
    seconds: float
    cv_results: dict = None
    warnings: list = field(default_factory=list)

    @property
    def rule_label(self):
        return SIGMA_RULES[self.rule]


def shared_kliep_sigma(data, sigma=None, rule="lcv"):
    """One sigma for all KLIEP-family solvers on ``data``: ``sigma`` if given, else
    :func:`covshift.model_selection.kliep_sigma` with ``rule`` ("lcv" or "iwcv", the latter
    scoring a GPR on the training outputs)."""
    if sigma is not None:
        return SharedSigma(float(sigma), "manual", 0.0)
    y_tr = data.Y_tr if rule == "iwcv" else None
    result, seconds, messages = run_with_warnings(
        lambda: kliep_sigma(data.X_tr, data.X_te, rule=rule, y_tr=y_tr))
    return SharedSigma(result["best_sigma"], rule, seconds, result, messages)


def fit_weights(data, name, sigma=None):
    """Fit a weight estimator on a data set; an :class:`Outcome`."""
    est, seconds, messages = run_with_warnings(
        lambda: make_weight_estimator(name, sigma).fit(data.X_tr, data.X_te))
    return Outcome(est, seconds, messages)


#: Regression models: name -> needs importance weights.
REGRESSORS = {"GPR": False, "WKNN": False, "KLTGP": False, "IKLTGP": False, "SMTGP": False,
              "IW-GPR": True, "IW-KLTGP": True, "IW-SMTGP": True}


def paper_tgp_defaults(data_name):
    """The papers' TGP hyper-parameters where they exist (sharma-mittal-tgp Table 1)."""
    if data_name == "s_shape":
        return dict(theta=0.9, gamma=1.5, rho_x=rho_from_paper(5.0), rho_y=rho_from_paper(0.05),
                    lambda_x=1e-4, lambda_y=1e-4)
    if data_name == "double_s":
        return dict(theta=0.6, gamma=0.99, rho_x=rho_from_paper(5.0), rho_y=rho_from_paper(0.05),
                    lambda_x=1e-4, lambda_y=1e-4)
    return None


def make_regressor(name, theta=0.9, gamma=1.5, rho_x=1.0, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3):
    base = name.replace("IW-", "")
    if base == "GPR":
        return GPR(rho=rho_x, lam=max(lambda_x, 1e-6))
    if base == "WKNN":
        return WKNN(5)
    divergence = {"KLTGP": "kl", "IKLTGP": "ikl", "SMTGP": "sm"}[base]
    return TwinGP(divergence, theta=theta, gamma=gamma, rho_x=rho_x, rho_y=rho_y,
                  lambda_x=lambda_x, lambda_y=lambda_y)


def fit_predict(data, name, weights=None, **hyper):
    """Fit a regression model (with weights for IW-*) and predict the test set.

    Returns an :class:`Outcome` whose model is a dict: mean, std (GPR) or certainty (TGP).
    """
    def run():
        model = make_regressor(name, **hyper)
        w = weights if REGRESSORS.get(name) else None
        model.fit(data.X_tr, data.Y_tr, sample_weight=w)
        result = {"mean": None, "std": None, "certainty": None}
        if isinstance(model, GPR):
            mean, std = model.predict(data.X_te, return_std=True)
            result.update(mean=mean, std=std)
        elif isinstance(model, TwinGP):
            result["mean"], result["certainty"] = model.predict(data.X_te, return_certainty=True)
        else:
            result["mean"] = model.predict(data.X_te)
        result["mean"] = np.asarray(result["mean"]).reshape(len(data.X_te), -1)
        if result["std"] is not None:
            result["std"] = np.asarray(result["std"]).reshape(len(data.X_te), -1)
        return result

    result, seconds, messages = run_with_warnings(run)
    return Outcome(result, seconds, messages)


def labelled_test_points(n_te, n_labels, seed=0):
    """Mask of the test points whose labels :func:`few_labels_comparison` reveals (seeded)."""
    rng = np.random.default_rng(seed)
    n_labels = int(min(max(n_labels, 2), n_te - 2))
    labelled = np.zeros(n_te, dtype=bool)
    labelled[rng.choice(n_te, n_labels, replace=False)] = True
    return labelled


def few_labels_comparison(data, weights, n_labels=10, seed=0, **hyper):
    """No adaptation vs importance weighting vs delta adaptation with a few target labels.

    ``n_labels`` test points are revealed (seeded); all three GPRs are scored on the rest.
    """
    labelled = labelled_test_points(len(data.X_te), n_labels, seed)
    X_eval, Y_eval = data.X_te[~labelled], data.Y_te[~labelled]
    base = make_regressor("GPR", **hyper)
    preds = {
        "no adaptation": base.fit(data.X_tr, data.Y_tr).predict(X_eval),
        "importance weighting": make_regressor("GPR", **hyper).fit(data.X_tr, data.Y_tr,
                                                                  sample_weight=weights).predict(X_eval),
        "delta adaptation": DeltaAdapter(make_regressor("GPR", **hyper)).fit(
            data.X_tr, data.Y_tr, data.X_te[labelled], data.Y_te[labelled]).predict(X_eval),
    }
    return X_eval, Y_eval, {k: np.asarray(v).reshape(len(X_eval), -1) for k, v in preds.items()}


def weighting_effect(data, estimated_weights, width, lambda_x=1e-3, grid=None):
    """A GPR of input width ``width`` fitted without weights, with the true ratio and with
    ``estimated_weights`` (the Why-weights lesson).

    Returns {label: (test MAE, predictions on ``grid`` or None)}; the true-ratio fit is left
    out when the data set's ratio is unknown.
    """
    from .metrics import mae

    fits = {"no weights": None, "true weights": data.true_weights, "estimated weights": estimated_weights}
    result = {}
    for label, w in fits.items():
        if label == "true weights" and w is None:
            continue
        model = make_regressor("GPR", rho_x=width, lambda_x=lambda_x).fit(data.X_tr, data.Y_tr, sample_weight=w)
        pred = np.asarray(model.predict(data.X_te)).reshape(len(data.X_te), -1)
        on_grid = None if grid is None else np.asarray(model.predict(grid)).reshape(len(grid), -1)
        result[label] = (mae(data.Y_te, pred), on_grid)
    return result


def weighting_by_width(data, estimated_weights, widths, lambda_x=1e-3):
    """Test MAE of :func:`weighting_effect` for several widths: {width: {label: MAE}}."""
    return {float(width): {label: value[0] for label, value in
                           weighting_effect(data, estimated_weights, width, lambda_x).items()}
            for width in widths}


def relative_gaps(history):
    """Duality gap relative to the objective, |<g_t, d_t^FW>| / |F(mu_t)|: the quantity the
    Frank-Wolfe solvers compare with their tolerance ``tol``."""
    return np.asarray(history.gap, dtype=float) / np.maximum(np.abs(np.asarray(history.objective, float)), 1e-300)


def first_at_gap(history, level):
    """(iteration, active atoms) at the first Frank-Wolfe iterate whose relative duality gap is
    <= ``level``; (None, None) when the run never got there.

    Row t of the history holds the gap at mu_t and the active-set size after the step
    from mu_t, so the iterate mu_t has ``active_size[t - 1]`` atoms (one at the start).
    """
    reached = np.flatnonzero(relative_gaps(history) <= level)
    if reached.size == 0:
        return None, None
    t = int(reached[0])
    return t, (1 if t == 0 else int(history.active_size[t - 1]))


def weight_error(weights, true_weights):
    """NMSE of the weights on a readable scale: mean_i (w_i / mean(w) - t_i / mean(t))^2.

    This is :func:`covshift.metrics.normalized_mse` (both vectors scaled to sum 1) times n^2,
    i.e. the mean squared error of weights rescaled to mean 1: 0 is perfect, 1 is an error as
    large as the weights themselves.
    """
    from .metrics import normalized_mse

    return normalized_mse(weights, true_weights) * len(np.ravel(weights)) ** 2
