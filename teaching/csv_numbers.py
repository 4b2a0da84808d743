"""How the cells of an uploaded CSV become numbers and dates without misreading any: the file's decimal mark, its thousands separators, and the columns that cannot be read safely.

A file's decimal mark is decided by the cells that can be read only one way: "12,5", "0,750" or
"1.234,5" only with a decimal comma, "3.14", "0.125" or "1,234.5" only with a decimal point. The other
mark is then the thousands separator ("3.750" = 3750 in a decimal-comma file), accepted only between
groups of three digits. A column with a cell that would be read differently under the two conventions
("3.750" in a file where no cell settles the mark: 3.75 or 3750?), or that uses the thousands mark
elsewhere ("3.75" in a decimal-comma file), is refused by name with the way out, never guessed.
"""

import re

import numpy as np
import pandas as pd

#: Share of a column's non-empty cells that must read as numbers (or as dates) for it to count as one.
NUMERIC_SHARE = 0.9

#: How to write the file so that it is read as meant (the way out of every refusal here).
WAY_OUT = ("Save the file with one decimal mark and no thousands separators (in a spreadsheet: format the "
           "column as a plain number, then save as CSV), or deselect the column.")


def _other(mark):
    return "," if mark == "." else "."


def _grouped(thousands, decimal):
    """A number with thousands separators: "3.750", "12.345.678,9" (thousands ".", decimal ",")."""
    return r"^[-+]?[1-9]\d{0,2}(?:" + re.escape(thousands) + r"\d{3})+(?:" + re.escape(decimal) + r"\d*)?$"


def _integer_grouped(mark):
    """An integer with ``mark`` between groups of three digits: "3.750" (could be 3.75 with a decimal point)."""
    return r"^[-+]?[1-9]\d{0,2}(?:" + re.escape(mark) + r"\d{3})+$"


def _only_decimal(cells, decimal):
    """Mask of the cells that can be read only with ``decimal`` as the decimal mark."""
    other = _other(decimal)
    single = cells.str.match(r"^[-+]?\d*" + re.escape(decimal) + r"\d+$") & ~cells.str.match(_integer_grouped(decimal))
    both = cells.str.contains(decimal, regex=False) & cells.str.contains(other, regex=False)
    last_is_decimal = cells.str.rfind(decimal) > cells.str.rfind(other)
    return single | (both & last_is_decimal & cells.str.match(_grouped(other, decimal)))


def file_decimal(columns):
    """The decimal mark ("." or ",") the cells of the file settle, or None when none does.

    ``columns``: pandas Series of stripped, non-empty cells (strings), one per column.
    """
    evidence = {mark: sum(int(_only_decimal(cells, mark).sum()) for cells in columns) for mark in (".", ",")}
    if evidence["."] == evidence[","] == 0:
        return None
    return "," if evidence[","] > evidence["."] else "."


def read_numbers(cells, decimal):
    """(values, thousands_used, problem) of one column's stripped, non-empty ``cells`` (a Series of strings).

    ``decimal``: the file's decimal mark, or None when no cell of the file settles it. ``values``: floats,
    NaN where a cell is not a number. ``problem``: None, or a sentence quoting a cell that would be misread;
    then the column must not be used.
    """
    if decimal is None:
        ambiguous = cells.str.match(_integer_grouped(".")) | cells.str.match(_integer_grouped(","))
        if ambiguous.any():
            cell = cells[ambiguous].iloc[0]
            mark = "." if "." in cell else ","
            reading = float(cell.replace(",", ".")) if cell.count(mark) == 1 else None
            meant = f"{reading:g} or {cell.replace(mark, '')}" if reading is not None else f"{cell.replace(mark, '')}"
            return None, False, (f"'{cell}' could be {meant} ('{mark}' as a decimal mark or as a thousands "
                                 "separator), and no cell of the file shows which mark is the decimal one")
        decimal = "."
    thousands = _other(decimal)
    with_thousands = cells.str.contains(thousands, regex=False)
    misplaced = with_thousands & ~cells.str.match(_grouped(thousands, decimal))
    if misplaced.any():
        cell = cells[misplaced].iloc[0]
        return None, False, (f"'{cell}' uses '{thousands}', but the file's decimal mark is '{decimal}' and "
                             f"'{thousands}' is accepted only as a thousands separator, between groups of three digits")
    plain = cells.str.replace(thousands, "", regex=False)
    if decimal == ",":
        plain = plain.str.replace(",", ".", regex=False)
    values = pd.to_numeric(plain, errors="coerce").to_numpy(dtype=float)
    numeric = ~np.isnan(values)
    return values, bool((with_thousands.to_numpy() & numeric).any()), None


def read_dates(cells):
    """(datetime64[s] values, NaT where not a date; the share of cells that are dates) of a column's
    stripped, non-empty ``cells``: ISO 8601 ("2021-03-04") first, else day-first ("04.03.2021")."""
    best, share = None, 0.0
    for options in ({"format": "ISO8601"}, {"format": "mixed", "dayfirst": True}):
        try:
            parsed = pd.to_datetime(cells, errors="coerce", **options)
        except (ValueError, TypeError, OverflowError):
            continue
        ok = float(parsed.notna().mean()) if len(cells) else 0.0
        if ok > share:
            best, share = parsed, ok
    if best is None:
        return None, 0.0
    return best.to_numpy(dtype="datetime64[s]"), share  # seconds: years 1 to 9999, no nanosecond wrap-around
