"""An uploaded CSV file's text and shape, checked before any parsing: encoding, separator, header, row lengths.

Everything here is bounded by the shape of the file, checked first: the header has at most
:data:`MAX_COLUMNS` fields, a line at most :data:`MAX_LINE_CHARS` characters, and at most
:data:`MAX_PARSED_ROWS` data rows (fewer for wide files: :data:`MAX_PARSED_CELLS`) are parsed; a longer
file is read from rows drawn at random once (the same rows for every seed). Repeated header names and
rows with another number of fields than the header get a sentence naming them and where they are.
The rows are split by Python's :mod:`csv` reader (quotes, separators inside quotes) into a DataFrame of
stripped strings; :mod:`teaching.uploads` reads numbers and dates from it.
"""

import collections
import csv
import time

import numpy as np
import pandas as pd

#: Encodings tried in order after UTF-16 (recognised by its byte-order mark or its NUL bytes):
#: UTF-8 (a byte-order mark is removed) and Latin-1, which decodes any byte, so a file that is
#: neither is read with visible mojibake, not refused.
CSV_ENCODINGS = (("utf-8-sig", "UTF-8"), ("latin-1", "Latin-1"))
#: Separators recognised, with the names used in messages.
CSV_SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}
#: Most columns (header fields) a file may have: the pages offer every column in a menu and test each.
MAX_COLUMNS = 200
#: Longest line (characters) of a file.
MAX_LINE_CHARS = 100_000
#: Most data rows parsed; a longer file is read from this many rows drawn at random (once, for every seed).
#: The app uses fewer rows (:data:`teaching.budget.CSV_MAX_ROWS`).
MAX_PARSED_ROWS = 30_000
#: Most cells parsed (rows x columns): a wide file is read from fewer rows.
MAX_PARSED_CELLS = 300_000
#: Cells read as empty: pandas' default missing-value markers (read_csv's na_values), and the empty cell.
MISSING_CELLS = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
                 "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
#: CPU seconds of the server's thread the reading of one file may take (checked between columns).
PARSE_SECONDS = 3.0


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


def decode(raw):
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


def lines_of(text):
    """The lines of ``text`` (split at line feeds only, as CSV is: not at the other characters
    ``str.splitlines`` breaks at; blank lines are dropped when the rows are read), checked against
    :data:`MAX_LINE_CHARS`."""
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    longest = max(map(len, lines), default=0)
    if longest > MAX_LINE_CHARS:
        where = next(i for i, line in enumerate(lines) if len(line) == longest)
        raise ValueError(f"{'The header' if where == 0 else f'Line {where + 1}'} has {longest:,} characters; lines "
                         f"of at most {MAX_LINE_CHARS:,} characters are read. Upload a file with fewer or shorter "
                         "columns.")
    return lines


def separator(lines):
    """The field separator: csv.Sniffer on the first lines (at most 20 000 characters), else the most frequent
    candidate in the header, else a comma."""
    sample, size = [], 0
    for line in lines[:50]:
        if size + len(line) > 20_000 and sample:
            break
        sample.append(line)
        size += len(line)
    try:
        return csv.Sniffer().sniff("\n".join(sample), delimiters="".join(CSV_SEPARATORS)).delimiter
    except csv.Error:
        header = lines[0] if lines else ""
        counts = {sep: header.count(sep) for sep in CSV_SEPARATORS}
        best = max(counts, key=counts.get)
        return best if counts[best] else ","


def header_names(header, sep, notes):
    """The column names of the header line, each its own: a name repeated (or empty) is renamed by its
    column number, with a note saying which and where. ValueError above :data:`MAX_COLUMNS` fields."""
    fields = [name.strip() for name in next(csv.reader([header], delimiter=sep, skipinitialspace=True), [])]
    if len(fields) > MAX_COLUMNS:
        counts = collections.Counter(fields).most_common(1)
        repeated = (f"; the name '{counts[0][0]}' alone appears {counts[0][1]:,} times" if counts and counts[0][1] > 1
                    else "")
        raise ValueError(f"The header has {len(fields):,} fields{repeated}. At most {MAX_COLUMNS} columns are read: "
                         "keep the columns you need (a few inputs, an output, a train/test column).")
    seen = collections.Counter(fields)
    names, renamed, taken = [], [], set(fields)
    for position, name in enumerate(fields, start=1):
        if name and seen[name] == 1:
            names.append(name)
            continue
        new = f"{name or 'unnamed'} (column {position})"
        while new in taken:
            new += "'"
        taken.add(new)
        names.append(new)
        renamed.append((name, position, new))
    empty = [str(position) for name, position, _ in renamed if not name]
    twice = collections.defaultdict(list)
    for name, position, _ in renamed:
        if name:
            twice[name].append(str(position))
    if twice:
        listed = "; ".join(f"'{name}' at columns {', '.join(where[:6])}" + (" ..." if len(where) > 6 else "")
                           for name, where in list(twice.items())[:4])
        notes.append(f"Repeated column names ({listed}): each is read as its own column, named by its position "
                     "(e.g. 'name (column 4)'). Give every column its own name to choose it by name.")
    if empty:
        notes.append(f"Column(s) {', '.join(empty[:8])} have no name in the header; read as 'unnamed (column N)'.")
    return names


def _drawn_rows(n_rows, n_columns, notes):
    """Indices (sorted) of the data rows to parse: all of them, or a draw fixed for the file (seed 0), so that
    the parse does not depend on the view's seed."""
    most = int(min(MAX_PARSED_ROWS, max(1, MAX_PARSED_CELLS // max(n_columns, 1))))
    if n_rows <= most:
        return None
    notes.append(f"The file has {n_rows:,} data rows; {most:,} of them, drawn at random once (the same for every "
                 f"seed), are read ({MAX_PARSED_CELLS:,} cells at most).")
    return np.sort(np.random.default_rng(0).choice(n_rows, most, replace=False))


def cells(lines, sep, names, notes):
    """(the data rows as a DataFrame of stripped strings (None where a cell is empty), one column per name;
    the number of data rows in the file).

    Rows with more fields than the header are refused naming the first ones (their line numbers in the
    file); rows with fewer fields are read with their last cells empty, with a note naming them."""
    body = lines[1:]
    drawn = _drawn_rows(len(body), len(names), notes)
    numbers = np.arange(2, len(body) + 2) if drawn is None else drawn + 2  # line numbers in the file
    rows = list(csv.reader(body if drawn is None else [body[i] for i in drawn], delimiter=sep,
                           skipinitialspace=True))
    if len(rows) != len(numbers):  # a quoted field spans lines: numbers no longer follow the lines
        numbers = np.arange(2, len(rows) + 2)
    filled = [i for i, row in enumerate(rows) if any(cell.strip() for cell in row)]  # blank lines are no rows
    if len(filled) < len(rows):
        rows, numbers = [rows[i] for i in filled], numbers[filled]
    lengths = np.fromiter((len(row) for row in rows), int, len(rows))
    long_rows, short_rows = numbers[lengths > len(names)], numbers[lengths < len(names)]
    if len(long_rows):
        raise ValueError(f"{len(long_rows)} row(s) have more fields than the header's {len(names)} (line(s) "
                         f"{', '.join(map(str, long_rows[:5]))}{' ...' if len(long_rows) > 5 else ''}, e.g. "
                         f"{int(lengths[lengths > len(names)][0])} fields): a separator inside a value, or a "
                         "missing header name. Quote values that contain the separator, or name every column.")
    if len(short_rows):
        notes.append(f"{len(short_rows)} row(s) have fewer fields than the header's {len(names)} (line(s) "
                     f"{', '.join(map(str, short_rows[:5]))}{' ...' if len(short_rows) > 5 else ''}): their last "
                     "cells are read as empty.")
        rows = [row + [""] * (len(names) - len(row)) for row in rows]
    frame = pd.DataFrame(rows, columns=range(len(names)), dtype=object) if rows else \
        pd.DataFrame(columns=range(len(names)), dtype=object)
    frame.columns = names
    frame = frame.apply(lambda column: column.str.strip())
    return frame.where(~frame.isin(MISSING_CELLS), None), len(rows) if drawn is None else len(body)


class Deadline:
    """The server thread's CPU time spent reading one file: :meth:`check` refuses past :data:`PARSE_SECONDS`."""

    def __init__(self):
        self.start = time.thread_time()

    def check(self, done, total):
        spent = time.thread_time() - self.start
        if spent > PARSE_SECONDS:
            raise ValueError(f"Reading this file stopped after {spent:.1f} s of the server's time ({done} of {total} "
                             f"columns read; the limit is {PARSE_SECONDS:g} s). Upload fewer columns or rows.")
