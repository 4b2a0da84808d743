"""Uploaded CSV files: decoding, separators, numeric columns, and a data set with a known split."""

import io
from dataclasses import dataclass, field

import numpy as np

from covshift import data as datasets
from covshift._validation import MAX_ABS_VALUE

from teaching.budget import max_csv_rows


@dataclass
class CsvTable:
    """A parsed CSV: numeric columns only, with what was dropped."""

    columns: list
    values: np.ndarray
    notes: list = field(default_factory=list)


#: Encodings tried in order after UTF-16 (recognised by its byte-order mark or its NUL bytes):
#: UTF-8 (a byte-order mark is removed) and Latin-1, which decodes any byte, so a file that is
#: neither is read with visible mojibake, not refused.
CSV_ENCODINGS = (("utf-8-sig", "UTF-8"), ("latin-1", "Latin-1"))
#: Separators recognised, with the names used in messages.
CSV_SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}


def _utf16(head):
    """The UTF-16 codec and its name if ``head`` (the first bytes) is UTF-16 text, else None.

    Spreadsheet programs write "Unicode text" as UTF-16, with a byte-order mark or without one;
    then most characters are ASCII, so every second byte is NUL (odd bytes little-endian, even
    bytes big-endian)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16", "UTF-16 with BOM"
    even, odd = head[0::2], head[1::2]
    if len(odd) >= 2:
        if odd.count(0) >= 0.9 * len(odd) and even.count(0) <= 0.1 * len(even):
            return "utf-16-le", "UTF-16 (little-endian, no BOM)"
        if even.count(0) >= 0.9 * len(even) and odd.count(0) <= 0.1 * len(odd):
            return "utf-16-be", "UTF-16 (big-endian, no BOM)"
    return None


def _decode(raw):
    """(text, encoding name) of CSV bytes: UTF-16 (with or without BOM), UTF-8 (with or without
    BOM) or Latin-1; ValueError naming the encodings tried for binary files."""
    head = raw[:4096]
    utf16 = _utf16(head)
    if utf16 is not None:
        codec, label = utf16
        try:
            return raw.decode(codec).lstrip("\ufeff"), label
        except UnicodeDecodeError as exc:
            raise ValueError(f"This file looks like {label} text but does not decode as such ({exc.reason} at "
                             f"byte {exc.start}). Save it again as CSV UTF-8 and upload that.") from None
    if b"\x00" in head:
        raise ValueError("This file is binary (it contains NUL bytes) and is not text in UTF-8, UTF-16 or "
                         "Latin-1: perhaps an Excel workbook. Save it as CSV UTF-8 (comma-separated values) "
                         "and upload that.")
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
    ``max_rows`` complete rows (default: the fastest method's limit; see :func:`teaching.budget.max_csv_rows`) are
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
        missing = (~np.isfinite(values)).sum(axis=0)
        where = ", ".join(f"{keep[j]} ({int(missing[j])})" for j in np.argsort(-missing, kind="stable")
                          if missing[j])
        notes.append(f"Dropped {int((~finite).sum())} row(s) with missing or non-numeric values, in column(s) "
                     f"{where}. Fill those cells, or delete a column you do not need from the file (a row is "
                     "dropped when any numeric column is missing, even one you do not use).")
        values = values[finite]
    if len(values) < 10:
        raise ValueError(f"Only {len(values)} complete rows remain; at least 10 are needed.")
    max_rows = max_csv_rows([]) if max_rows is None else int(max_rows)
    if len(values) > max_rows:
        rng = np.random.default_rng(seed)
        values = values[np.sort(rng.choice(len(values), max_rows, replace=False))]
        notes.append(f"Used a random subset of {max_rows} of {int(finite.sum())} rows "
                     f"(seed {seed}), the most the selected methods handle within the time budget.")
    return CsvTable([str(c) for c in keep], values, notes)


def input_scaling(table, inputs, standardise=True):
    """(mean, scale) of the input columns as :func:`csv_dataset` standardises them (over all rows,
    training and test); zeros and ones without ``standardise``. Original units = standardised x
    * scale + mean."""
    index = {c: i for i, c in enumerate(table.columns)}
    X = table.values[:, [index[c] for c in inputs]]
    if not standardise:
        return np.zeros(X.shape[1]), np.ones(X.shape[1])
    scale = X.std(axis=0)
    return X.mean(axis=0), np.where(scale > 0, scale, 1.0)


def csv_dataset(table, inputs, outputs, split_column=None, seed=0, standardise=True):
    """ShiftData from a parsed CSV: a 0/1 train/test column (1 = training) or selection bias.

    With ``standardise``, every input column is centred and divided by its standard deviation over
    all rows (training and test) before the split (:func:`input_scaling`): the kernel widths, the
    selection-bias sampler and the models then see every input on the same scale.
    """
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
    if standardise:
        mean, scale = input_scaling(table, inputs)
        X = (X - mean) / scale
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
