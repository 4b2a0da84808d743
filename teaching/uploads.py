"""Uploaded CSV files: decoding, separators, numeric and date columns, and a data set split into training and test rows, outputs missing where the file has none."""

import io
from dataclasses import dataclass, field

import numpy as np

from covshift import data as datasets
from covshift._validation import MAX_ABS_VALUE

from teaching import csv_numbers
from teaching.budget import max_csv_rows


@dataclass
class CsvTable:
    """A parsed CSV: its numeric columns (NaN where a cell is empty), its date columns, and what
    was noticed on the way (``notes``, shown on the Data page)."""

    columns: list
    values: np.ndarray
    notes: list = field(default_factory=list)
    #: Numeric columns holding a different whole number in every row (row identifiers).
    id_like: list = field(default_factory=list)
    #: Date columns: name -> datetime64 array aligned with the rows of ``values`` (NaT where empty).
    dates: dict = field(default_factory=dict)


#: Encodings tried in order after UTF-16 (recognised by its byte-order mark or its NUL bytes):
#: UTF-8 (a byte-order mark is removed) and Latin-1, which decodes any byte, so a file that is
#: neither is read with visible mojibake, not refused.
CSV_ENCODINGS = (("utf-8-sig", "UTF-8"), ("latin-1", "Latin-1"))
#: Fewest data rows a file must have.
MIN_ROWS = 10
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


def _cells(text, sep):
    """The file as a DataFrame of stripped strings (None where a cell is empty)."""
    import pandas as pd

    frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, skipinitialspace=True)
    return frame.apply(lambda column: column.str.strip().replace("", None))


def _columns(frame, notes):
    """(numeric {name: values}, dates {name: values}, id-like names) of the cells, with notes on what was
    read specially, refused or ignored."""
    numeric, dates, thousands, refused, ignored, empty = {}, {}, [], [], [], []
    present = {name: frame[name].dropna() for name in frame.columns}
    decimal = csv_numbers.file_decimal([cells for cells in present.values()])
    for name, cells in present.items():
        label = str(name)
        if len(cells) == 0:
            empty.append(label)
            continue
        values, used, problem = csv_numbers.read_numbers(cells, decimal)
        share = 0.0 if problem else float(np.mean(~np.isnan(values)))
        if share >= csv_numbers.NUMERIC_SHARE:
            column = np.full(len(frame), np.nan)
            column[frame.index.get_indexer(cells.index)] = values
            numeric[label] = column
            thousands += [label] if used else []
            bad = int(np.isnan(values).sum())
            if bad:
                example = cells[np.isnan(values)].iloc[0]
                notes.append(f"Column {label}: {bad} cell(s) are not numbers (e.g. '{example}') and are read as "
                             "missing.")
            continue
        stamps, share = csv_numbers.read_dates(cells)  # "04.03.2021" is a date, not a misplaced thousands dot
        if share >= csv_numbers.NUMERIC_SHARE:
            column = np.full(len(frame), np.datetime64("NaT"), dtype="datetime64[ns]")
            column[frame.index.get_indexer(cells.index)] = stamps
            dates[label] = column
        elif problem:
            refused.append(f"{label}: {problem}")
        else:
            ignored.append(label)
    if thousands:
        notes.append(f"Read '{'.' if decimal == ',' else ','}' as the thousands separator and '{decimal or '.'}' "
                     f"as the decimal mark in column(s) {', '.join(thousands)} (e.g. "
                     f"{'3.750 = 3750' if decimal == ',' else '3,750 = 3750'}).")
    elif decimal == ",":
        notes.append("Read ',' as the decimal mark.")
    if refused:
        notes.append("Refused column(s), which would be misread: " + "; ".join(refused) + ". " + csv_numbers.WAY_OUT)
    if ignored:
        notes.append(f"Ignored column(s) that are neither numbers nor dates: {', '.join(ignored[:8])}.")
    if empty:
        notes.append(f"Ignored empty column(s): {', '.join(empty[:8])}.")
    if dates:
        notes.append(f"Date column(s) {', '.join(dates)}: usable as the train/test split (training rows dated "
                     "before a date you choose).")
    return numeric, dates, refused, ignored


def _id_like(numeric):
    """Numeric columns with a different whole number in every row (and no empty cell): row identifiers."""
    found = []
    for name, column in numeric.items():
        if len(column) >= 10 and np.all(np.isfinite(column)) and np.all(column == np.round(column)) \
                and len(np.unique(column)) == len(column):
            found.append(name)
    return found


def read_csv(raw, seed=0, max_rows=None):
    """Parse uploaded CSV bytes into numeric and date columns; ValueError with advice when unusable.

    The encoding (UTF-8, UTF-8 with BOM, UTF-16, Latin-1), the separator (comma, semicolon, tab,
    vertical bar), the decimal mark and thousands separators (:mod:`teaching.csv_numbers`) are
    detected and named in every message and in ``notes``; a column that would be misread is
    refused by name. Empty cells stay missing (NaN): an output may be missing on test rows, and
    a row lacking an input is dropped only when that input is used (:func:`csv_dataset`).
    Columns holding a different whole number in every row are listed in ``id_like``. More than
    ``max_rows`` rows (default: the fastest method's limit; see
    :func:`teaching.budget.max_csv_rows`) are subsampled at random, seeded by ``seed``.
    """
    if not raw or not raw.strip():
        raise ValueError("The file is empty. Upload a CSV with a header row and numeric columns.")
    text, encoding = _decode(raw)
    sep = _separator(text)
    how = f"(read as {encoding} text with {CSV_SEPARATORS[sep]}-separated fields)"
    try:
        frame = _cells(text, sep)
    except Exception as exc:  # pandas raises many kinds for malformed files
        raise ValueError(f"This file could not be read as CSV {how}: {type(exc).__name__}: "
                         f"{str(exc).strip()[:200]}. Check that every row has the same number of "
                         "fields and that there is one header row.") from None
    notes = [] if (encoding, sep) == ("UTF-8", ",") else [f"Read as {encoding} with "
                                                           f"{CSV_SEPARATORS[sep]}-separated fields."]
    if len(frame) == 0:
        raise ValueError(f"The file has a header row ({', '.join(map(str, frame.columns[:8]))}) but no data rows "
                         f"{how}. Add the data below the header.")
    numeric, dates, refused, ignored = _columns(frame, notes)
    if len(numeric) < 2:
        raise ValueError(f"The CSV needs at least two numeric columns (one or more inputs and an "
                         f"output); found {len(numeric)} {how}."
                         + (f" Refused (would be misread): {'; '.join(refused[:4])}. {csv_numbers.WAY_OUT}"
                            if refused else "")
                         + (f" Mostly non-numeric: {', '.join(ignored[:8])}." if ignored else ""))
    if len(frame) < MIN_ROWS:
        raise ValueError(f"The file has only {len(frame)} data rows {how}; at least {MIN_ROWS} are needed.")
    columns = list(numeric)
    values = np.column_stack([numeric[c] for c in columns])
    id_like = _id_like(numeric)
    if id_like:
        notes.append(f"Column(s) {', '.join(id_like)} hold a different whole number in every row, like row "
                     "identifiers: they are not offered as inputs (an identifier that follows the order of the "
                     "file can make any split look like a shift). Tick 'Offer identifier columns as inputs' to "
                     "use them anyway.")
    missing = np.isnan(values).sum(axis=0)
    gaps = [f"{columns[j]} ({int(missing[j])} of {len(values)})" for j in np.argsort(-missing, kind="stable")
            if missing[j]]
    if gaps:
        notes.append(f"Empty cells in column(s) {', '.join(gaps[:8])}. A row without an output is still used for "
                     "the shift test and the weights, not to fit or score the models; a row without one of the "
                     "chosen inputs is left out.")
    max_rows = max_csv_rows([]) if max_rows is None else int(max_rows)
    if len(values) > max_rows:
        rng = np.random.default_rng(seed)
        keep = np.sort(rng.choice(len(values), max_rows, replace=False))
        notes.append(f"Used a random subset of {max_rows} of {len(values)} rows "
                     f"(seed {seed}), the most the selected methods handle within the time budget.")
        values = values[keep]
        dates = {name: column[keep] for name, column in dates.items()}
    return CsvTable(columns, values, notes, id_like, dates)


#: The train/test choice that makes the rows without outputs the test rows (and the others training).
MISSING_OUTPUTS = "rows without outputs"
#: Fewest training and test rows a split must leave.
MIN_TRAIN, MIN_TEST = 5, 2


def _complete_inputs(table, inputs):
    """Mask of the rows where every chosen input has a value."""
    index = {c: i for i, c in enumerate(table.columns)}
    return np.all(np.isfinite(table.values[:, [index[c] for c in inputs]]), axis=1)


def input_scaling(table, inputs, standardise=True):
    """(mean, scale) of the input columns as :func:`csv_dataset` standardises them (over all rows with every
    chosen input, training and test); zeros and ones without ``standardise``. Original units =
    standardised x * scale + mean."""
    index = {c: i for i, c in enumerate(table.columns)}
    X = table.values[:, [index[c] for c in inputs]][_complete_inputs(table, inputs)]
    if not standardise or len(X) == 0:
        return np.zeros(X.shape[1]), np.ones(X.shape[1])
    scale = X.std(axis=0)
    return X.mean(axis=0), np.where(scale > 0, scale, 1.0)


def split_choices(table, inputs=(), outputs=()):
    """The train/test choices of a table: selection bias, the rows without outputs, then its columns."""
    used = set(inputs) | set(outputs)
    return (["selection bias", MISSING_OUTPUTS] + [c for c in table.columns if c not in used]
            + [c for c in table.dates if c not in used])


def date_cutoff(table, column, text=""):
    """The date before which rows are training rows: ``text`` (a date, e.g. 2021-03-04) or, when empty, the
    median date of ``column`` (about half the dated rows train). ValueError naming the column or text."""
    import pandas as pd

    stamps = table.dates[column]
    known = np.sort(stamps[~np.isnat(stamps)])
    if len(known) == 0:
        raise ValueError(f"The date column '{column}' has no dates.")
    if not str(text).strip():
        return known[len(known) // 2]
    cutoff = pd.to_datetime(str(text).strip(), errors="coerce", dayfirst=not str(text).strip()[:4].isdigit())
    if pd.isna(cutoff):
        raise ValueError(f"'{text}' is not a date; type the first test date as 2021-03-04.")
    return np.datetime64(cutoff.to_datetime64(), "ns")


def _split_rows(table, split_column, outputs_present):
    """(train mask or None for selection bias, usable mask, description) of a split choice."""
    n = len(table.values)
    if split_column is None or split_column == "selection bias":
        return None, np.ones(n, bool), "selection bias"
    if split_column == MISSING_OUTPUTS:
        return outputs_present, np.ones(n, bool), "rows with outputs train, rows without are the test rows"
    column, text = (split_column if isinstance(split_column, (list, tuple)) else (split_column, ""))
    if column in table.dates:
        stamps = table.dates[column]
        cutoff = date_cutoff(table, column, text)
        day = np.datetime_as_string(cutoff, unit="D")
        return stamps < cutoff, ~np.isnat(stamps), f"rows dated before {day} train ('{column}')"
    if column not in table.columns:
        raise ValueError(f"Unknown train/test column '{column}'; the file has {', '.join(table.columns)}.")
    split = table.values[:, table.columns.index(column)]
    present = np.isfinite(split)
    if not np.all(np.isin(split[present], [0, 1])):
        raise ValueError(f"The train/test column '{column}' must contain only 0 (test) and 1 (training); a date "
                         "column or 'rows without outputs' can split too.")
    return split == 1, present, f"'{column}' (1 = training, 0 = test)"


def csv_dataset(table, inputs, outputs, split_column=None, seed=0, standardise=True):
    """ShiftData from a parsed CSV, with every row that has all the chosen inputs.

    ``split_column``: None or "selection bias" (the selection-bias sampler), :data:`MISSING_OUTPUTS`
    (rows without outputs are the test rows), a 0/1 column (1 = training), a date column (rows dated
    before its median date train) or ``[date column, first test date]``.

    Missing outputs are NaN rows of ``Y_tr`` / ``Y_te`` (:attr:`covshift.data.ShiftData.labelled_tr`):
    every row counts for the shift test and the weights, the labelled rows for the models. With
    ``standardise``, every input column is centred and divided by its standard deviation over the used
    rows (training and test) before the split (:func:`input_scaling`).
    """
    index = {c: i for i, c in enumerate(table.columns)}
    if not inputs or not outputs:
        raise ValueError("Choose at least one input column and one output column.")
    split_name = split_column[0] if isinstance(split_column, (list, tuple)) else split_column
    if set(inputs) & set(outputs) or (split_name and split_name in set(inputs) | set(outputs)):
        raise ValueError("A column can be an input, an output or the train/test column, not two of these.")
    unknown = [c for c in [*inputs, *outputs] if c not in index]
    if unknown:
        dated = [c for c in unknown if c in table.dates]
        raise ValueError(f"Unknown column(s) {', '.join(map(str, unknown))}; the file has "
                         f"{', '.join(table.columns)}."
                         + (f" {', '.join(dated)} holds dates: use it as the train/test split." if dated else ""))
    X = table.values[:, [index[c] for c in inputs]]
    Y = table.values[:, [index[c] for c in outputs]]
    no_output = [c for c, column in zip(outputs, Y.T) if not np.isfinite(column).any()]
    if no_output:
        raise ValueError(f"Output column(s) {', '.join(no_output)} have no values at all; choose an output "
                         "that is known on some rows (at least the training rows).")
    outputs_present = np.all(np.isfinite(Y), axis=1)
    train, usable, _ = _split_rows(table, split_column, outputs_present)
    usable &= _complete_inputs(table, inputs)
    _check_columns(X[usable], inputs, "input")
    _check_columns(Y, outputs, "output")
    constant = [c for c, column in zip(inputs, X[usable].T) if len(column) and np.ptp(column) == 0]
    if constant:
        raise ValueError(f"Input column(s) {', '.join(constant)} are constant (the same value in "
                         "every row): they carry no information about the shift. Deselect them.")
    if standardise:
        mean, scale = input_scaling(table, inputs)
        X = (X - mean) / scale
    X, Y = X[usable], Y[usable]
    if train is None:  # the sampler splits row numbers, so rows without outputs keep their NaN outputs
        rows = datasets.selection_bias(X, np.arange(len(X), dtype=float), random_state=seed,
                                       name="uploaded CSV (selection bias)")
        tr, te = rows.Y_tr[:, 0].astype(int), rows.Y_te[:, 0].astype(int)
        return datasets.ShiftData(rows.X_tr, Y[tr], rows.X_te, Y[te], rows.density_ratio, rows.name)
    train = train[usable]
    if train.sum() < MIN_TRAIN or (~train).sum() < MIN_TEST:
        raise ValueError(split_problem(table, inputs, split_column, int(train.sum()), int((~train).sum()),
                                       outputs_present))
    return datasets.ShiftData(X[train], Y[train], X[~train], Y[~train], None, "uploaded CSV")


def split_problem(table, inputs, split_column, n_train, n_test, outputs_present):
    """Why a split left too few training or test rows, naming the real cause."""
    _, usable, how = _split_rows(table, split_column, outputs_present)
    complete = _complete_inputs(table, inputs)
    text = (f"The split ({how}) leaves {n_train} training and {n_test} test rows; at least {MIN_TRAIN} and "
            f"{MIN_TEST} are needed.")
    lacking = int((usable & ~complete).sum())
    if lacking:
        index = {c: i for i, c in enumerate(table.columns)}
        counts = [f"{c} ({int(np.isnan(table.values[:, index[c]]).sum())})" for c in inputs
                  if np.isnan(table.values[:, index[c]]).any()]
        text += (f" {lacking} row(s) lack one of the chosen inputs and are left out: empty cells in "
                 f"{', '.join(counts)}. Deselect those inputs or fill the cells.")
    if (~usable).any():
        text += f" {int((~usable).sum())} row(s) have no value in the train/test column."
    if split_column == MISSING_OUTPUTS and n_test < MIN_TEST:
        text += " Every row has its outputs: choose a train/test column or selection bias instead."
    return text


def describe_rows(table, inputs, data):
    """Sentences for the Data and Check pages: rows used, rows left out and why, and how many rows have outputs."""
    index = {c: i for i, c in enumerate(table.columns)}
    complete = _complete_inputs(table, inputs)
    sentences = []
    if (~complete).any():
        counts = [f"{c} ({int(np.isnan(table.values[:, index[c]]).sum())})" for c in inputs
                  if np.isnan(table.values[:, index[c]]).any()]
        sentences.append(f"{int((~complete).sum())} of {len(complete)} rows lack one of the chosen inputs and are "
                         f"left out (empty cells in {', '.join(counts)}).")
    tr, te = data.labelled_tr, data.labelled_te
    if not (tr.all() and te.all()):
        sentences.append(f"Outputs known on {int(tr.sum())} of {len(tr)} training rows and {int(te.sum())} of "
                         f"{len(te)} test rows. The shift test, the ranking of the inputs and the weights use all "
                         f"{len(tr) + len(te)} rows; the models are fitted on the {int(tr.sum())} training rows with "
                         "outputs and scored only on test rows with outputs"
                         + (" (none here: their predictions are shown, not scored)." if not te.any() else "."))
    return sentences


def _check_columns(values, names, role):
    """Refuse columns whose magnitude is too large to compute kernels with."""
    big = [f"{c} (up to {np.nanmax(np.abs(col)):.3g})" for c, col in zip(names, values.T)
           if np.isfinite(col).any() and np.nanmax(np.abs(col)) > MAX_ABS_VALUE]
    if big:
        raise ValueError(f"{role.capitalize()} column(s) {', '.join(big)} are too large to compute "
                         f"with: squared distances between such values overflow. Values up to "
                         f"{MAX_ABS_VALUE:.0e} are accepted; rescale the column (change its unit).")


#: Weight estimators shown in the app (sigma "auto": each method's own rule).
