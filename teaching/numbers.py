"""Numbers as the app writes them: one formatter for tables, captions, reasons and p-values."""

import numpy as np


def format_number(value, spec=".3g", missing=""):
    """A number for people: ``missing`` for None and non-finite values, "yes"/"no" for booleans,
    text unchanged, else ``format(value, spec)``. ``spec="auto"``: 3 significant digits, or
    scientific notation below 1e-3 (duality gaps, tolerances); ``spec="plain"`` (``"plain2"``): 3 (2)
    significant digits without an exponent between 1e-4 and 1e6 (2890, not 2.89e+03)."""
    if value is None or (isinstance(value, (float, np.floating)) and not np.isfinite(value)):
        return missing
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if spec == "auto":
        spec = ".2e" if 0 < abs(value) < 1e-3 else ".3g"
    if spec.startswith("plain"):  # "plain" / "plain2": 3 / 2 significant digits, no exponent from 1e-4 to 1e6
        return f"{float(format(value, f'.{spec[5:] or 3}g')):g}"
    return format(value, spec)


def format_p(p):
    """A p-value for people: 2 significant digits, or "< 1e-4"."""
    if p is None or not np.isfinite(p):
        return ""
    return "< 1e-4" if p < 1e-4 else f"{p:.2g}"
