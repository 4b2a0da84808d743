"""Uploaded CSV files: decoding, separators, numeric and date columns, and a data set split into training and test rows, outputs missing where the file has none."""

import csv
import re
from dataclasses import dataclass, field

import numpy as np

from covshift import data as datasets
from covshift._validation import MAX_ABS_VALUE

from teaching import csv_file, csv_numbers, settings
from teaching.budget import CSV_MAX_ROWS


@dataclass
class CsvTable:
    """A parsed CSV: its numeric columns (NaN where a cell is empty), its date columns, and what
    was noticed on the way (``notes``, shown on the Data page)."""

    columns: list
    values: np.ndarray
    notes: list = field(default_factory=list)
    #: Numeric columns that look like row identifiers (:func:`identifier_rule`), not offered as inputs.
    id_like: list = field(default_factory=list)
    #: Date columns: name -> datetime64[s] array aligned with the rows of ``values`` (NaT where empty).
    dates: dict = field(default_factory=dict)


#: Fewest data rows a file must have.
MIN_ROWS = 10
CSV_SEPARATORS = csv_file.CSV_SEPARATORS
#: Whole numbers up to this size are exact in a float; larger values are measurements, never identifiers.
LARGEST_ID = 2.0**53
#: Words that name a row identifier (a column named e.g. "id", "row_id", "PatientID", "index", "#").
ID_WORDS = {"id", "ids", "identifier", "index", "idx", "key", "uuid", "rowid", "row", "record", "no", "nr", "#"}


def _columns(frame, notes, deadline):
    """(numeric {name: values}, dates {name: values}, refused, ignored) of the cells, with notes on what was
    read specially, refused or ignored."""
    numeric, dates, thousands, refused, ignored, empty, infinite = {}, {}, [], [], [], [], []
    present = {name: frame[name].dropna() for name in frame.columns}
    decimal = csv_numbers.file_decimal([cells for cells in present.values()])
    for position, (name, cells) in enumerate(present.items()):
        deadline.check(position, len(present))
        label = str(name)
        if len(cells) == 0:
            empty.append(label)
            continue
        values, used, problem = csv_numbers.read_numbers(cells, decimal)
        share = 0.0 if problem else float(np.mean(~np.isnan(values)))
        if share >= csv_numbers.NUMERIC_SHARE:
            column = np.full(len(frame), np.nan)
            column[frame.index.get_indexer(cells.index)] = values
            if np.isinf(column).any():
                infinite.append(f"{label} ({int(np.isinf(column).sum())})")
                column[np.isinf(column)] = np.nan
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
            column = np.full(len(frame), np.datetime64("NaT"), dtype="datetime64[s]")
            column[frame.index.get_indexer(cells.index)] = stamps
            dates[label] = column
        elif problem:
            refused.append(f"{label}: {problem}")
        else:
            ignored.append(label)
    if infinite:
        notes.append(f"Infinite values (inf) in column(s) {', '.join(infinite[:8])} are read as missing: a row "
                     "without one of the chosen inputs is left out.")
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


def _words(name):
    """The lower-case words of a column name: "PatientID" -> ["patient", "id"], "row_no" -> ["row", "no"]."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", str(name))
    return re.findall(r"[a-z0-9]+|#", spaced.lower())


def identifier_rule(name, column, n_rows):
    """Why column ``name`` looks like a row identifier, or None.

    Only a column with a different whole number in every row (at most :data:`LARGEST_ID`, no empty cell)
    can be one, and then only when it is named like one (:data:`ID_WORDS`), when its values are a
    permutation of a contiguous range (n different whole numbers within a range of n; ``n_rows``: the rows of
    the file, of which ``column`` may be a draw), or when it increases with the row order. A measurement
    with a different value in every row (an area, a population, a price in cents) is none of these."""
    if len(column) < MIN_ROWS or not np.all(np.isfinite(column)) or np.abs(column).max() > LARGEST_ID \
            or not np.all(column == np.round(column)) or len(np.unique(column)) != len(column):
        return None
    if set(_words(name)) & ID_WORDS:
        return "named like an identifier"
    if column.max() - column.min() + 1 <= max(n_rows, len(column)):
        return f"the whole numbers {column.min():.0f} to {column.max():.0f}, each once"
    if np.all(np.diff(column) > 0):
        return "a different whole number in every row, increasing with the row order"
    return None


def parse_csv(raw):
    """Parse uploaded CSV bytes into numeric and date columns; ValueError with advice when unusable.

    The file's shape is checked before anything is parsed (:mod:`teaching.csv_file`: header fields,
    line length, repeated names, ragged rows; a long file is read from rows drawn once, the same for
    every seed), and the reading stops after :data:`teaching.csv_file.PARSE_SECONDS` of CPU time. The
    encoding (UTF-8, UTF-8 with BOM, UTF-16, Latin-1), the separator (comma, semicolon, tab, vertical
    bar), the decimal mark and thousands separators (:mod:`teaching.csv_numbers`) are detected and named
    in every message and in ``notes``; a column that would be misread is refused by name. Empty cells
    (and infinite values) stay missing (NaN): an output may be missing on test rows, and a row lacking
    an input is dropped only when that input is used (:func:`csv_dataset`). Columns that look like row
    identifiers (:func:`identifier_rule`) are listed in ``id_like``, with the rule in the note.
    """
    if not raw or not raw.strip():
        raise ValueError("The file is empty. Upload a CSV with a header row and numeric columns.")
    deadline = csv_file.Deadline()
    text, encoding = csv_file.decode(raw)
    lines = csv_file.lines_of(text)
    sep = csv_file.separator(lines)
    how = f"(read as {encoding} text with {CSV_SEPARATORS[sep]}-separated fields)"
    notes = [] if (encoding, sep) == ("UTF-8", ",") else [f"Read as {encoding} with "
                                                           f"{CSV_SEPARATORS[sep]}-separated fields."]
    try:
        names = csv_file.header_names(lines[0] if lines else "", sep, notes)
        frame, n_rows = csv_file.cells(lines, sep, names, notes)
    except (ValueError, csv.Error) as exc:
        raise ValueError(f"{exc} {how}") from None
    if len(frame) == 0:
        raise ValueError(f"The file has a header row ({', '.join(names[:8])}) but no data rows "
                         f"{how}. Add the data below the header.")
    numeric, dates, refused, ignored = _columns(frame, notes, deadline)
    if len(numeric) < 2:
        raise ValueError(f"The CSV needs at least two numeric columns (one or more inputs and an "
                         f"output); found {len(numeric)} {how}."
                         + (f" Refused (would be misread): {'; '.join(refused[:4])}. {csv_numbers.WAY_OUT}"
                            if refused else "")
                         + (f" Mostly non-numeric: {', '.join(ignored[:8])}." if ignored else ""))
    if n_rows < MIN_ROWS:
        raise ValueError(f"The file has only {n_rows} data rows {how}; at least {MIN_ROWS} are needed.")
    columns = list(numeric)
    values = np.column_stack([numeric[c] for c in columns])
    rules = {c: rule for c in columns if (rule := identifier_rule(c, numeric[c], n_rows))}
    missing = np.isnan(values).sum(axis=0)
    gaps = [f"{columns[j]} ({int(missing[j])} of {len(values)})" for j in np.argsort(-missing, kind="stable")
            if missing[j]]
    if gaps:
        notes.append(f"Empty cells in column(s) {', '.join(gaps[:8])}. A row without an output is still used for "
                     "the shift test and the weights, not to fit or score the models; a row without one of the "
                     "chosen inputs is left out.")
    if rules:
        notes.append("Not offered as inputs, as they look like row identifiers: "
                     + "; ".join(f"{c} ({rule})" for c, rule in rules.items())
                     + ". An identifier that follows the order of the file can make any split look like a shift. "
                       "Tick 'Offer identifier columns as inputs' to use them anyway.")
    return CsvTable(columns, values, notes, list(rules), dates)


def subsample(table, seed=0, max_rows=None):
    """The table with at most ``max_rows`` rows (default: the app's, :data:`teaching.budget.CSV_MAX_ROWS`), drawn
    at random with ``seed``, and a note saying so."""
    max_rows = CSV_MAX_ROWS if max_rows is None else int(max_rows)
    if len(table.values) <= max_rows:
        return table
    keep = np.sort(np.random.default_rng(seed).choice(len(table.values), max_rows, replace=False))
    note = (f"Used a random subset of {max_rows} of {len(table.values)} rows (seed {seed}): every method of the app "
            "handles that many within the time budget.")
    return CsvTable(table.columns, table.values[keep], [*table.notes, note], table.id_like,
                    {name: column[keep] for name, column in table.dates.items()})


def read_csv(raw, seed=0, max_rows=None):
    """:func:`parse_csv`, then :func:`subsample` to ``max_rows`` rows with ``seed`` (the app caches the two
    apart, so a new seed does not parse the file again)."""
    return subsample(parse_csv(raw), seed, max_rows)


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


def _day(stamp):
    return str(np.datetime_as_string(stamp, unit="D"))


def date_cutoff(table, column, text=""):
    """The date before which rows are training rows: ``text`` (a date, e.g. 2021-03-04) or, when empty, the
    median date of ``column`` (about half the dated rows train). ValueError naming the column or text, and
    the column's range when the date is not inside it (every row would train, or none)."""
    import pandas as pd

    stamps = table.dates[column]
    known = np.sort(stamps[~np.isnat(stamps)])
    if len(known) == 0:
        raise ValueError(f"The date column '{column}' has no dates.")
    if not str(text).strip():
        return known[len(known) // 2]
    typed = str(text).strip()
    between = f"type a date from {_day(known[1])} to {_day(known[-1])}, the dates of '{column}'"
    try:
        cutoff = pd.to_datetime(typed, errors="coerce", dayfirst=not typed[:4].isdigit())
    except (ValueError, OverflowError):  # pandas raises for some out-of-range spellings instead of coercing
        cutoff = None
    if cutoff is None or pd.isna(cutoff):
        raise ValueError(f"'{settings.shorten(typed)}' is not a date the app can read (years 1 to 9999); {between}, "
                         "written as 2021-03-04.")
    cutoff = np.datetime64(cutoff.to_datetime64(), "s")  # seconds: no wrap-around for years 1 to 9999
    if cutoff <= known[0] or cutoff > known[-1]:
        side = "training" if cutoff > known[-1] else "test"
        raise ValueError(f"The first test date {_day(cutoff)} is {'after the last' if side == 'training' else 'on or before the first'} "
                         f"date of '{column}' ({_day(known[-1] if side == 'training' else known[0])}): every row "
                         f"would be a {side} row. To split, {between}.")
    return cutoff


#: Words of a 0/1 split column's name that say the 1 rows are the test rows ("is_test", "TestSet", "holdout").
TEST_WORDS = {"test", "testing", "holdout", "unlabelled", "unlabeled"}
#: Words that say the 1 rows are the training rows ("train", "is_training", "labelled").
TRAIN_WORDS = {"train", "training", "source", "labelled", "labeled", "fit"}


def training_value(column, split, outputs_present):
    """(the value, 0 or 1, of the training rows in 0/1 split column ``column``; why). By the name first
    (:data:`TEST_WORDS`: "is_test" marks the test rows with 1; :data:`TRAIN_WORDS`), else by the outputs
    (when only the rows of one value have outputs, they train), else 1."""
    words = set(_words(column))
    if words & TEST_WORDS and not words & TRAIN_WORDS:
        return 0, "the name says 1 marks the test rows"
    if words & TRAIN_WORDS and not words & TEST_WORDS:
        return 1, "the name says 1 marks the training rows"
    labelled = {value: bool(outputs_present[split == value].any()) for value in (0, 1)}
    if labelled[0] and not labelled[1]:
        return 0, "only the rows marked 0 have outputs"
    return 1, "1 marks the training rows unless the name or the outputs say otherwise"


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
        return stamps < cutoff, ~np.isnat(stamps), f"rows dated before {_day(cutoff)} train ('{column}')"
    if column not in table.columns:
        raise ValueError(f"Unknown train/test column '{settings.shorten(str(column))}'; the file has "
                         f"{', '.join(table.columns)}.")
    split = table.values[:, table.columns.index(column)]
    present = np.isfinite(split)
    values, counts = np.unique(split[present], return_counts=True)
    if len(values) != 2 or not np.all(np.isin(values, [0, 1])):
        found = ", ".join(f"{v:g} ({c} rows)" for v, c in zip(values[:6], counts[:6])) + (" ..." if len(values) > 6 else "")
        what = ("one value only" if len(values) == 1 else f"{len(values)} different values" if len(values) else
                "no value")
        raise ValueError(f"The train/test column '{column}' holds {what}: {found or 'every cell is empty'}. A "
                         "train/test column holds 0 and 1 (one marks the training rows, the other the test rows); "
                         "a date column, 'rows without outputs' or selection bias can split too.")
    train_value, why = training_value(column, split, outputs_present)
    described = (f"'{column}' (1 = training, 0 = test" if train_value == 1 else f"'{column}' (1 = test, 0 = training")
    return split == train_value, present, f"{described}: {why})"


def csv_dataset(table, inputs, outputs, split_column=None, seed=0, standardise=True):
    """ShiftData from a parsed CSV, with every row that has all the chosen inputs.

    ``split_column``: None or "selection bias" (the selection-bias sampler, scaled to train about half the
    rows), :data:`MISSING_OUTPUTS`
    (rows without outputs are the test rows), a 0/1 column (which value trains: :func:`training_value`),
    a date column (rows dated before its median date train) or ``[date column, first test date]``.

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
    complete = _complete_inputs(table, inputs)
    constant = [(c, column[0]) for c, column in zip(inputs, X[complete].T) if len(column) and np.ptp(column) == 0]
    if constant:
        raise ValueError(f"Input column(s) {', '.join(c for c, _ in constant)} are constant (the same value in every "
                         f"row with all the chosen inputs: {', '.join(f'{c} = {v:g}' for c, v in constant)}): they "
                         "carry no information about the shift. Deselect them.")
    outputs_present = np.all(np.isfinite(Y), axis=1)
    train, usable, _ = _split_rows(table, split_column, outputs_present)
    usable &= _complete_inputs(table, inputs)
    _check_columns(X[usable], inputs, "input")
    _check_columns(Y, outputs, "output")
    if standardise:
        mean, scale = input_scaling(table, inputs)
        X = (X - mean) / scale
    X, Y = X[usable], Y[usable]
    if train is None:  # the sampler splits row numbers, so rows without outputs keep their NaN outputs
        rows = datasets.selection_bias(X, np.arange(len(X), dtype=float), n_tr=len(X) // 2, random_state=seed,
                                       name="uploaded CSV (selection bias)")  # about half train, in any dimension
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


def describe_rows(table, inputs, data, split_column=None, outputs=()):
    """Sentences for the Data and Check pages: how the rows are split (for a train/test column, which value
    trains and why), rows left out and why, and how many rows have outputs."""
    index = {c: i for i, c in enumerate(table.columns)}
    complete = _complete_inputs(table, inputs)
    sentences = []
    if split_column not in (None, "selection bias") and outputs:
        Y = table.values[:, [index[c] for c in outputs if c in index]]
        sentences.append(f"Train/test split: {_split_rows(table, split_column, np.all(np.isfinite(Y), axis=1))[2]}.")
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
