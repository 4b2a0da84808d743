"""What the app offers, by name: data sets, weight estimators, regression models, presets.

Plain functions that build and run the core objects and collect their warnings, so the
Streamlit pages only choose names and draw results (this module never imports streamlit).
"""

import io
import time
from numbers import Real
from dataclasses import dataclass, field

import numpy as np

from . import data as datasets
from . import limits
from ._validation import MAX_ABS_VALUE, check_positive
from .exceptions import record_warnings
from .model_selection import kliep_sigma
from .regression import GPR, WKNN, TwinGP, rho_from_paper
from .transfer import ResidualDeltaRegressor
from .weights import AFWCS, FCFWCS, FWCS, KLIEP, KMM, PFWCS, EnsembleKMM, LogisticRatio, RuLSIF

def _sizes(name, n_tr, n_te):
    """Slider specs (default, min, max, step) of n_tr and n_te; the maxima follow the time
    budget (:func:`covshift.limits.dataset_size_max`), the defaults never exceed them."""
    top = limits.dataset_size_max(name)
    return {"n_tr": (min(n_tr, top), limits.MIN_POINTS[0], top, 10),
            "n_te": (min(n_te, top), limits.MIN_POINTS[1], top, 10)}


#: Data sets and their adjustable parameters: name -> (label, {param: (default, min, max, step)}).
DATASETS = {
    "sinc": ("Sinc shift (paper Fig. 2)", {
        **_sizes("sinc", 500, 300), "mean_tr": (0.5, -2.0, 2.0, 0.1),
        "std_tr": (0.5, 0.1, 2.0, 0.05), "mean_te": (0.0, -2.0, 2.0, 0.1), "std_te": (0.3, 0.1, 2.0, 0.05),
        "noise": (0.1, 0.0, 1.0, 0.01)}),
    "s_shape": ("S-shape (Toy 1)", {**_sizes("s_shape", 250, 250),
                                    "noise": (0.005, 0.0, 0.1, 0.005), "shift": (2.0, 0.0, 6.0, 0.5)}),
    "double_s": ("Double S (Toy 2)", {**_sizes("double_s", 250, 500),
                                      "noise": (0.005, 0.0, 0.1, 0.005), "shift": (2.0, 0.0, 6.0, 0.5)}),
    "circle": ("Circle (2 correlated outputs)", {
        **_sizes("circle", 300, 200), "mean_tr": (0.0, -2.0, 2.0, 0.1),
        "std_tr": (0.6, 0.1, 2.0, 0.05), "mean_te": (0.5, -2.0, 2.0, 0.1), "std_te": (0.3, 0.1, 2.0, 0.05),
        "noise": (0.03, 0.0, 0.5, 0.01)}),
    "digits": ("Digits centre pixels (selection bias)",
               {"n_tr": (300, 50, limits.dataset_size_max("digits"), 10)}),
}
_GENERATORS = {"sinc": datasets.sinc_shift, "s_shape": datasets.s_shape, "double_s": datasets.double_s,
               "circle": datasets.circle_outputs, "digits": datasets.digits_center}
#: Rows kept from an uploaded CSV when no methods are named (the fastest method's limit);
#: use :func:`max_csv_rows` with the selected methods.
MAX_CSV_ROWS = limits.max_points_for([])


def size_limit(names, sigma=None):
    """Largest n_tr and n_te the selected weight estimators and models all handle within the
    time budget (the slowest decides): the app offers no larger size. ``sigma``: None for the
    "auto" width, a number for a fixed one (faster for the KLIEP family). See :mod:`covshift.limits`."""
    return limits.max_points_for(names, sigma)


def max_csv_rows(names, sigma=None):
    """Rows to keep from an uploaded CSV when these methods (weight estimators and regression
    models, catalog names) will run on it: the slowest one decides (:func:`covshift.limits.max_csv_rows`).
    Pass the result to :func:`read_csv` as ``max_rows``."""
    return limits.max_csv_rows(names, sigma)


def check_size(names, n_tr, n_te, sigma=None):
    """ValueError naming the first method that would exceed the time budget at this size."""
    for name in names:
        limits.check_size(name, n_tr, n_te, sigma)


def make_dataset(name, seed=0, **params):
    """Build a built-in data set by name with the given parameters."""
    if name not in _GENERATORS:
        raise ValueError(f"Unknown data set {name!r}; choose one of {sorted(_GENERATORS)}.")
    unknown = set(params) - set(DATASETS[name][1])
    if unknown:
        raise ValueError(f"Unknown parameter(s) {sorted(unknown)} of data set {name!r}; "
                         f"it has {sorted(DATASETS[name][1])}.")
    ints = {k: whole_number(v, k) for k, v in params.items() if k in ("n_tr", "n_te")}
    return _GENERATORS[name](**{**params, **ints}, random_state=whole_number(seed, "seed"))


def whole_number(value, name):
    """An integer from an int or an integer-valued float (as read from a URL); ValueError
    naming ``name`` for NaN, infinity, fractions, text or booleans."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real) or not np.isfinite(value) \
            or float(value) != int(value):
        raise ValueError(f"{name} must be a whole number; got {value!r}.")
    return int(value)


@dataclass
class CsvTable:
    """A parsed CSV: numeric columns only, with what was dropped."""

    columns: list
    values: np.ndarray
    notes: list = field(default_factory=list)


#: Encodings tried in order: UTF-8 (a byte-order mark is removed) and Latin-1, which
#: decodes any byte, so a file that is neither is read with visible mojibake, not refused.
CSV_ENCODINGS = (("utf-8-sig", "UTF-8"), ("latin-1", "Latin-1"))
#: Separators recognised, with the names used in messages.
CSV_SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}


def _decode(raw):
    """(text, encoding name) of CSV bytes; ValueError for binary files."""
    if b"\x00" in raw[:4096]:
        raise ValueError("This file is binary (it contains NUL bytes), not text: perhaps an Excel "
                         "workbook. Save it as CSV (comma-separated values) and upload that.")
    for codec, label in CSV_ENCODINGS:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        if raw.startswith(b"\xef\xbb\xbf"):
            label = "UTF-8 with BOM"
        return text, label
    raise ValueError("This file is not text in UTF-8 or Latin-1.")  # pragma: no cover - latin-1 decodes all


def _separator(text):
    """The field separator: csv.Sniffer on the first lines, else the most frequent candidate
    in the header, else a comma."""
    import csv

    sample = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters="".join(CSV_SEPARATORS)).delimiter
    except csv.Error:
        header = text.splitlines()[0] if text.strip() else ""
        counts = {sep: header.count(sep) for sep in CSV_SEPARATORS}
        best = max(counts, key=counts.get)
        return best if counts[best] else ","


def _parse(text, sep):
    """DataFrame of the text, numeric where possible; for ';' files also tries a decimal comma."""
    import pandas as pd

    frames = [pd.read_csv(io.StringIO(text), sep=sep)]
    if sep == ";":
        frames.append(pd.read_csv(io.StringIO(text), sep=sep, decimal=","))
    numeric = [f.apply(pd.to_numeric, errors="coerce") for f in frames]
    return max(numeric, key=lambda f: int(f.notna().to_numpy().sum()))


def read_csv(raw, seed=0, max_rows=None):
    """Parse uploaded CSV bytes; keep numeric columns; ValueError with advice when unusable.

    The encoding (UTF-8, UTF-8 with BOM, Latin-1) and the separator (comma, semicolon, tab,
    vertical bar) are detected and named in every message and in ``notes``. More than
    ``max_rows`` complete rows (default :data:`MAX_CSV_ROWS`; see :func:`max_csv_rows`) are
    subsampled at random, seeded by ``seed``.
    """
    if not raw or not raw.strip():
        raise ValueError("The file is empty. Upload a CSV with a header row and numeric columns.")
    text, encoding = _decode(raw)
    sep = _separator(text)
    how = f"(read as {encoding} text with {CSV_SEPARATORS[sep]}-separated fields)"
    try:
        numeric = _parse(text, sep)
    except Exception as exc:  # pandas raises many kinds for malformed files
        raise ValueError(f"This file could not be read as CSV {how}: {type(exc).__name__}: "
                         f"{str(exc).strip()[:200]}. Check that every row has the same number of "
                         "fields and that there is one header row.") from None
    notes = [] if (encoding, sep) == ("UTF-8", ",") else [f"Read as {encoding} with "
                                                           f"{CSV_SEPARATORS[sep]}-separated fields."]
    columns = [str(c) for c in numeric.columns]
    if len(numeric) == 0:
        raise ValueError(f"The file has a header row ({', '.join(columns[:8])}) but no data rows {how}. "
                         "Add the data below the header.")
    keep = [c for c in numeric.columns if numeric[c].notna().mean() >= 0.5]
    dropped = [str(c) for c in numeric.columns if c not in keep]
    if dropped:
        notes.append(f"Ignored non-numeric column(s): {', '.join(dropped[:8])}.")
    if len(keep) < 2:
        raise ValueError(f"The CSV needs at least two numeric columns (one or more inputs and an "
                         f"output); found {len(keep)} {how}."
                         + (f" Mostly empty or non-numeric: {', '.join(dropped[:8])}." if dropped else ""))
    values = numeric[keep].to_numpy(dtype=float)
    finite = np.all(np.isfinite(values), axis=1)
    if not finite.all():
        notes.append(f"Dropped {int((~finite).sum())} row(s) with missing or non-numeric values.")
        values = values[finite]
    if len(values) < 10:
        raise ValueError(f"Only {len(values)} complete rows remain; at least 10 are needed.")
    max_rows = MAX_CSV_ROWS if max_rows is None else int(max_rows)
    if len(values) > max_rows:
        rng = np.random.default_rng(seed)
        values = values[np.sort(rng.choice(len(values), max_rows, replace=False))]
        notes.append(f"Used a random subset of {max_rows} of {int(finite.sum())} rows "
                     f"(seed {seed}), the most the selected methods handle within the time budget.")
    return CsvTable([str(c) for c in keep], values, notes)


def csv_dataset(table, inputs, outputs, split_column=None, seed=0):
    """ShiftData from a parsed CSV: a 0/1 train/test column (1 = training) or selection bias."""
    index = {c: i for i, c in enumerate(table.columns)}
    if not inputs or not outputs:
        raise ValueError("Choose at least one input column and one output column.")
    if set(inputs) & set(outputs) or (split_column and split_column in set(inputs) | set(outputs)):
        raise ValueError("A column can be an input, an output or the train/test column, not two of these.")
    unknown = [c for c in [*inputs, *outputs] if c not in index]
    if unknown:
        raise ValueError(f"Unknown column(s) {', '.join(map(str, unknown))}; the file has "
                         f"{', '.join(table.columns)}.")
    X = table.values[:, [index[c] for c in inputs]]
    Y = table.values[:, [index[c] for c in outputs]]
    _check_columns(X, inputs, "input")
    _check_columns(Y, outputs, "output")
    constant = [c for c, column in zip(inputs, X.T) if np.ptp(column) == 0]
    if constant:
        raise ValueError(f"Input column(s) {', '.join(constant)} are constant (the same value in "
                         "every row): they carry no information about the shift. Deselect them.")
    if split_column is None:
        return datasets.selection_bias(X, Y, random_state=seed, name="uploaded CSV (selection bias)")
    split = table.values[:, index[split_column]]
    if not np.all(np.isin(split, [0, 1])):
        raise ValueError(f"The train/test column '{split_column}' must contain only 0 (test) and 1 (training).")
    train = split == 1
    if train.sum() < 5 or (~train).sum() < 2:
        raise ValueError("The train/test column leaves fewer than 5 training or 2 test rows.")
    return datasets.ShiftData(X[train], Y[train], X[~train], Y[~train], None, "uploaded CSV")


def _check_columns(values, names, role):
    """Refuse columns whose magnitude is too large to compute kernels with."""
    big = [f"{c} (up to {np.max(np.abs(col)):.3g})" for c, col in zip(names, values.T)
           if np.max(np.abs(col)) > MAX_ABS_VALUE]
    if big:
        raise ValueError(f"{role.capitalize()} column(s) {', '.join(big)} are too large to compute "
                         f"with: squared distances between such values overflow. Values up to "
                         f"{MAX_ABS_VALUE:.0e} are accepted; rescale the column (change its unit).")


#: Weight estimators shown in the app. sigma=None means each method's own default choice.
WEIGHT_ESTIMATORS = ["FCFWCS", "PFWCS", "AFWCS", "FWCS", "KLIEP", "KMM", "ENSKMM", "ENSTRKMM",
                     "VFKMM", "EVFKMM", "LogisticRatio", "RuLSIF"]
FRANK_WOLFE = {"FCFWCS", "PFWCS", "AFWCS", "FWCS"}
KLIEP_FAMILY = FRANK_WOLFE | {"KLIEP"}


def make_weight_estimator(name, sigma=None, max_iter=2000, tol=1e-5):
    """An estimator by name. sigma: number, or None for "auto" (KLIEP family: the shared
    :func:`covshift.model_selection.kliep_sigma`, see :func:`shared_kliep_sigma`; others: the
    median heuristic / their own cross-validation)."""
    sigma = None if sigma is None else check_positive(sigma, "sigma (kernel width)")
    kliep_sigma = "auto" if sigma is None else sigma
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
    """Call fn(); return (result, seconds, [warning messages]) without printing the warnings.

    Only the warnings raised by this call (this thread) are collected, so concurrent
    sessions never see each other's warnings (:func:`covshift.exceptions.record_warnings`).
    """
    with record_warnings() as caught:
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
#: Display names where the short name claims more than the model is.
MODEL_LABELS = {"IKLTGP": "IKLTGP (SMTGP paper eq. 7)", "IW-IKLTGP": "IW-IKLTGP (SMTGP paper eq. 7)"}


def model_label(name):
    """The name a page shows for a regression model (see MODEL_LABELS)."""
    return MODEL_LABELS.get(name, name)


REGRESSORS = {"GPR": False, "WKNN": False, "KLTGP": False, "IKLTGP": False, "SMTGP": False,
              "IW-GPR": True, "IW-KLTGP": True, "IW-SMTGP": True}


def paper_tgp_defaults(data_name):
    """The papers' TGP hyper-parameters where they exist (sharma-mittal-tgp Table 1)."""
    if data_name == "s_shape":
        return dict(theta=0.9, gamma=1.5, rho_x=rho_from_paper(5.0), rho_y=rho_from_paper(0.05),
                    lambda_x=1e-4, lambda_y=1e-4, tgp_start="linear")
    if data_name == "double_s":
        return dict(theta=0.6, gamma=0.99, rho_x=rho_from_paper(5.0), rho_y=rho_from_paper(0.05),
                    lambda_x=1e-4, lambda_y=1e-4, tgp_start="linear")
    return None


#: Starts of the Twin GPs offered by the app: the original one, and kernel ridge.
TGP_STARTS = {"linear": "auto", "ridge": "ridge"}
#: Threads of a Twin-GP prediction (TwinGP n_jobs): a fixed number, so that every machine
#: splits the test points alike and gives the same numbers; two for the 2-core reference.
TGP_THREADS = 2


def make_regressor(name, theta=0.9, gamma=1.5, rho_x=1.0, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3,
                   tgp_start="linear"):
    """A regression model by name (REGRESSORS) with the app's hyper-parameters.

    ``tgp_start`` "linear" is the original start of the Twin GPs (affine least squares, and
    the chain linear -> KLTGP -> SMTGP for SMTGP); "ridge" starts every Twin GP from kernel ridge.
    """
    if name not in REGRESSORS:
        raise ValueError(f"Unknown regression model {name!r}; choose one of {list(REGRESSORS)}.")
    base = name.replace("IW-", "")
    if base == "GPR":
        return GPR(rho=rho_x, lam=max(check_positive(lambda_x, "lambda_x"), 1e-6))
    if base == "WKNN":
        return WKNN(5)
    divergence = {"KLTGP": "kl", "IKLTGP": "ikl", "SMTGP": "sm"}[base]
    if tgp_start not in TGP_STARTS:
        raise ValueError(f"tgp_start must be one of {list(TGP_STARTS)}; got {tgp_start!r}.")
    return TwinGP(divergence, theta=theta, gamma=gamma, rho_x=rho_x, rho_y=rho_y,
                  lambda_x=lambda_x, lambda_y=lambda_y, init=TGP_STARTS[tgp_start], n_jobs=TGP_THREADS)


def chain_start(name, tgp_start="linear"):
    """The model whose prediction starts ``name``'s minimisation, or None.

    With the original start the SMTGPs start from the KLTGP prediction with the same
    weights (linear -> KLTGP -> SMTGP): "SMTGP" -> "KLTGP", "IW-SMTGP" -> "IW-KLTGP".
    """
    if tgp_start == "linear" and name.replace("IW-", "") == "SMTGP":
        return name.replace("SMTGP", "KLTGP")
    return None


def fit_predict(data, name, weights=None, start=None, **hyper):
    """Fit a regression model (with weights for IW-*) and predict the test set.

    ``start``: for an SMTGP with the original start, the :class:`Outcome` of its
    :func:`chain_start` model on the same data, weights and hyper-parameters; the SMTGP
    then starts from that prediction instead of computing it again (the same numbers),
    and its seconds include the start's.

    Returns an :class:`Outcome` whose model is a dict: mean, std (GPR) or certainty (TGP).
    """
    if start is not None and chain_start(name, hyper.get("tgp_start", "linear")) is None:
        raise ValueError(f"start is only used by an SMTGP with tgp_start='linear'; got it for {name!r}.")

    def run():
        model = make_regressor(name, **hyper)
        if start is not None:
            model.set_params(init=start.model["mean"])
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
    return Outcome(result, seconds + (start.seconds if start is not None else 0.0), messages)


def labelled_test_points(n_te, n_labels, seed=0):
    """Mask of the test points whose labels :func:`few_labels_comparison` reveals (seeded)."""
    rng = np.random.default_rng(whole_number(seed, "seed"))
    n_labels = int(min(max(whole_number(n_labels, "n_labels"), 2), n_te - 2))
    labelled = np.zeros(n_te, dtype=bool)
    labelled[rng.choice(n_te, n_labels, replace=False)] = True
    return labelled


def few_labels_comparison(data, weights, n_labels=10, seed=0, **hyper):
    """No adaptation vs importance weighting vs delta adaptation with a few target labels.

    ``n_labels`` test points are revealed (seeded); all three GPRs are scored on the rest.
    """
    if len(data.X_te) < 4:
        raise ValueError(f"The few-labels comparison needs at least 4 test points; there are {len(data.X_te)}.")
    check_size(["GPR"], len(data.X_tr), len(data.X_te))
    labelled = labelled_test_points(len(data.X_te), n_labels, seed)
    X_eval, Y_eval = data.X_te[~labelled], data.Y_te[~labelled]
    base = make_regressor("GPR", **hyper)
    preds = {
        "no adaptation": base.fit(data.X_tr, data.Y_tr).predict(X_eval),
        "importance weighting": make_regressor("GPR", **hyper).fit(data.X_tr, data.Y_tr,
                                                                  sample_weight=weights).predict(X_eval),
        "delta adaptation": ResidualDeltaRegressor(make_regressor("GPR", **hyper)).fit(
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


#: Presets of the pages that have no lesson yet (classification, domain transfer); the
#: lessons of the other pages, with checked claims, are in :mod:`covshift.lessons`.
#: Sidebar presets: label -> the settings they set (after a reset, as a lesson does) ...
PRESETS = {}
#: ... and label -> the page they open.
PRESET_PAGES = {}


# ------------------------------------------- classification under covariate shift (issue 14)
#: Sizes the classification page may ask for (every fit must finish in a few seconds on 2 cores).
CLASSIFICATION_LIMITS = {"n": (100, 400), "grid": 70}
SHIFT_CLASSIFIER_WEIGHTS = ["LogisticRatio", "FCFWCS", "KMM"]


def classification_toy(n=400, steepness=1.5, label_noise=0.3, seed=0):
    """The page's 2-D toy (:func:`covshift.data.shift_classification_2d`), size bounded."""
    low, high = CLASSIFICATION_LIMITS["n"]
    return datasets.shift_classification_2d(n=int(min(max(n, low), high)), steepness=float(steepness),
                                            label_noise=float(label_noise), random_state=int(seed))


def shift_classifier_names(weights_name):
    return ["iid", f"two-stage ({weights_name})", "integrated"]


def fit_shift_classifiers(data, kernel="linear", sigma=1.0, C=1.0, C_v=1.0, weights_name="LogisticRatio"):
    """Fit iid, two-stage (with ``weights_name``) and integrated classifiers: {name: Outcome}.

    The weight estimator of the two-stage method uses the median-heuristic width of the pooled inputs.
    """
    from threadpoolctl import threadpool_limits

    from .kernels import median_heuristic

    from .classification import IntegratedShiftClassifier, KernelLogisticRegression, TwoStageShiftClassifier

    if weights_name not in SHIFT_CLASSIFIER_WEIGHTS:
        raise ValueError(f"Unknown weight estimator {weights_name!r}; choose one of {SHIFT_CLASSIFIER_WEIGHTS}.")
    sigma = None if kernel == "linear" else float(sigma)
    # every weight estimator at the median-heuristic width (KLIEP's likelihood CV would take seconds)
    weight_sigma = median_heuristic(np.vstack([data.X_tr, data.X_te]))
    y = data.Y_tr[:, 0]
    iid_name, two_name, integrated_name = shift_classifier_names(weights_name)
    makers = {
        iid_name: lambda: KernelLogisticRegression(kernel=kernel, sigma=sigma, C=C),
        two_name: lambda: TwoStageShiftClassifier(make_weight_estimator(weights_name, weight_sigma),
                                                  KernelLogisticRegression(kernel=kernel, sigma=sigma, C=C)),
        integrated_name: lambda: IntegratedShiftClassifier(kernel=kernel, sigma=sigma, C_w=C, C_v=C_v),
    }
    outcomes = {}
    # one BLAS thread: on a shared 2-core server, threads fighting over small matrices cost ~10x
    with threadpool_limits(limits=1):
        for name, make in makers.items():
            model, seconds, messages = run_with_warnings(lambda make=make: make().fit(data.X_tr, y, data.X_te))
            outcomes[name] = Outcome(model, seconds, messages)
    return outcomes


def classification_scores(outcomes, data):
    """Accuracy, AUC and log-loss of each fitted classifier on the test points (rows for a table)."""
    from sklearn.metrics import accuracy_score, log_loss, roc_auc_score

    y = data.Y_te[:, 0]
    rows = []
    for name, outcome in outcomes.items():
        model = outcome.model
        proba = np.clip(model.predict_proba(data.X_te)[:, 1], 1e-12, 1 - 1e-12)
        rows.append({"classifier": name, "accuracy": accuracy_score(y, model.predict(data.X_te)),
                     "AUC": roc_auc_score(y, proba) if len(np.unique(y)) == 2 else float("nan"),
                     "log-loss": log_loss(y, proba, labels=[0.0, 1.0]), "seconds": outcome.seconds,
                     "Newton iterations": getattr(model, "n_iter_", getattr(getattr(model, "classifier_", None),
                                                                             "n_iter_", None))})
    return rows


def classification_grid(outcomes, data, resolution=None):
    """Scores of every classifier and the integrated selector's p(test | x) on a grid over the data.

    Returns (xs, ys, {name: score grid}, p_test grid or None).
    """
    resolution = int(resolution or CLASSIFICATION_LIMITS["grid"])
    X = np.vstack([data.X_tr, data.X_te])
    pad = 0.1 * (X.max(axis=0) - X.min(axis=0))
    xs = np.linspace(X[:, 0].min() - pad[0], X[:, 0].max() + pad[0], resolution)
    ys = np.linspace(X[:, 1].min() - pad[1], X[:, 1].max() + pad[1], resolution)
    points = np.column_stack([g.ravel() for g in np.meshgrid(xs, ys)])
    scores = {name: o.model.decision_function(points).reshape(len(ys), len(xs)) for name, o in outcomes.items()}
    selector = next((o.model for o in outcomes.values() if hasattr(o.model, "selector_proba")), None)
    p_test = None if selector is None else selector.selector_proba(points).reshape(len(ys), len(xs))
    return xs, ys, scores, p_test


def classification_true_boundary(xs):
    """(x1, x2) of the toy's true class boundary over the grid's x1 axis."""
    xs = np.asarray(xs, dtype=float)
    return xs, datasets.classification_boundary(xs)


def training_weights(outcomes):
    """{name: weights of the training points} for the classifiers that weight them."""
    return {name: np.asarray(o.model.weights_) for name, o in outcomes.items() if hasattr(o.model, "weights_")}


def classification_fig3_results(path=None):
    """The stored Fig. 3 curves written by bench/classification.py, or None if not there."""
    import json
    import pathlib

    path = pathlib.Path(path or pathlib.Path(__file__).resolve().parents[1] / "assets" / "classification_fig3.json")
    return json.loads(path.read_text()) if path.exists() else None

PRESET_PAGES["Classification under shift: the boundary turns"] = "pages/classification.py"
PRESETS["Classification under shift: the boundary turns"] = {
    "clf.n": 400, "clf.steepness": 2.0, "clf.label_noise": 0.3, "clf.kernel": "linear", "clf.C": 1.0,
    "clf.C_v": 1.0, "clf.weights": "LogisticRatio", "clf.sized_by": "integrated", "seed": 0}


# ----------------------------------------------------------------- domain transfer (issue 15)
from .transfer import DomainTransferSSVM, MulticlassProblem, MultilabelProblem, StructuredSVM  # noqa: E402
from .transfer.data import digits_transfer, draw_labelled  # noqa: E402

#: Target-domain transformations offered by the Domain transfer page.
TRANSFER_SHIFTS = ["thicken+rotate", "thicken", "rotate", "blur+rotate", "blur", "invert"]
TRANSFER_TASKS = ["multiclass", "multilabel"]
#: The source model is fixed (C of its structural SVM, epsilon of its cutting planes).
TRANSFER_SOURCE_C, TRANSFER_SOURCE_EPSILON = 10.0, 1e-2
#: Bounds that keep every fit the page can start to a few seconds on 2 cores.
TRANSFER_MAX_LABELLED, TRANSFER_C_RANGE = 50, (0.1, 30.0)
TRANSFER_CURVES = __import__("pathlib").Path(__file__).resolve().parents[1] / "assets" / "transfer_curves.json"


def transfer_problem(task):
    """The output structure of a transfer task: 10 digit classes or 4 binary attributes."""
    factories = {"multiclass": lambda: MulticlassProblem(10), "multilabel": lambda: MultilabelProblem(4)}
    if task not in factories:
        raise ValueError(f"task must be one of {TRANSFER_TASKS}; got {task!r}.")
    return factories[task]()


def transfer_data(task, shift):
    """Source digits and transformed target digits (fixed split, so one source model serves all seeds)."""
    return digits_transfer(task=task, shift=shift, random_state=0)


def transfer_source(task, shift):
    """The source structural SVM of a task, fitted on the source digits; an :class:`Outcome`."""
    data = transfer_data(task, shift)
    model, seconds, messages = run_with_warnings(lambda: StructuredSVM(
        transfer_problem(task), C=TRANSFER_SOURCE_C, epsilon=TRANSFER_SOURCE_EPSILON).fit(data.X_source, data.y_source))
    return Outcome(model, seconds, messages)


def transfer_fit(task, shift, source, n_labelled, seed=0, C="auto", epsilon=1e-3):
    """DomainTransferSSVM on ``n_labelled`` target examples drawn with ``seed``; an :class:`Outcome`
    whose model is a dict: transfer model, labelled indices, source and transfer test predictions
    and their scores (accuracy or 1 - Hamming loss)."""
    n_labelled = int(n_labelled)
    if not 1 <= n_labelled <= TRANSFER_MAX_LABELLED:
        raise ValueError(f"The number of labelled target examples l must be between 1 and "
                         f"{TRANSFER_MAX_LABELLED} here; got {n_labelled}.")
    lo, hi = TRANSFER_C_RANGE
    if C != "auto" and not lo <= float(C) <= hi:
        raise ValueError(f"C must be 'auto' or between {lo} and {hi} here; got {C}.")
    data = transfer_data(task, shift)
    idx = draw_labelled(len(data.y_pool), n_labelled, random_state=seed)

    def run():
        model = DomainTransferSSVM(source, transfer_problem(task), C=C if C == "auto" else float(C),
                                   epsilon=float(epsilon),
                                   random_state=seed).fit(data.X_pool[idx], data.y_pool[idx])
        return {"model": model, "labelled": idx,
                "source_pred": source.predict(data.X_test), "transfer_pred": model.predict(data.X_test),
                "source_score": source.score(data.X_test, data.y_test),
                "transfer_score": model.score(data.X_test, data.y_test)}

    result, seconds, messages = run_with_warnings(run)
    return Outcome(result, seconds, messages)


def transfer_output_labels(task, outputs):
    """Outputs as short strings for display: the digit, or the 4 attributes as a 0/1 string."""
    outputs = np.asarray(outputs)
    if task == "multiclass":
        return [str(int(v)) for v in outputs]
    return ["".join(str(int(b)) for b in row) for row in outputs]


def transfer_stored_curves():
    """The curves written by bench/transfer.py (assets/transfer_curves.json), or None if missing."""
    import json

    if not TRANSFER_CURVES.exists():
        return None
    return json.loads(TRANSFER_CURVES.read_text())


PRESET_PAGES["Domain transfer: digits with thicker, rotated strokes"] = "pages/transfer.py"
PRESETS["Domain transfer: digits with thicker, rotated strokes"] = {
    "dataset": "digits", "dt_task": "multiclass", "dt_shift": "thicken+rotate", "dt_l": 10, "dt_C": "auto"}
