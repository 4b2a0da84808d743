"""Tiny helpers shared by the benchmarks: print a table and write it as Markdown."""

import pathlib
import platform
import time

import numpy as np

RESULTS = pathlib.Path(__file__).parent / "results"


def fmt(value, digits=3):
    """Format a number for a table cell (scientific when very small or large)."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, str):
        return value
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e5):
        return f"{value:.{digits - 1}e}"
    return f"{value:.{digits}g}"


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_report(name, title, intro, sections):
    """Write bench/results/<name>.md: a title, an intro paragraph and (heading, table) sections."""
    RESULTS.mkdir(exist_ok=True)
    machine = f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}"
    parts = [f"# {title}", "", intro, "", f"Run {time.strftime('%Y-%m-%d %H:%M')} on {machine}.", ""]
    for heading, table in sections:
        parts += [f"## {heading}", "", table, ""]
    path = RESULTS / f"{name}.md"
    path.write_text("\n".join(parts))
    print(f"wrote {path}")


def update_section(name, heading, body):
    """Replace (or append) the section ``## heading`` of bench/results/<name>.md, keeping the rest."""
    path = RESULTS / f"{name}.md"
    text = path.read_text() if path.exists() else f"# {name}\n"
    start = text.find(f"## {heading}\n")
    section = f"## {heading}\n\n{body.strip()}\n\n"
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    path.write_text(text.rstrip("\n") + "\n")
    print(f"updated section '{heading}' of {path}")


def median_time(fn, repeats=3):
    """Median wall time of ``repeats`` calls of fn(), and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result
