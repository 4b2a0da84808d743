"""ARCHITECTURE.md's walk of sigma is counted from the code (issue 38): a move of the sigma slider on the
Importance weights page is traced, and the app modules that see the number are exactly the ones the walk
names (carriers in its numbered list, readers in its "Read back" paragraph)."""

import os
import pathlib
import re
import sys
import threading

from teaching import steps
from tests.teaching.app.helpers import no_exception, open_link

ROOT = pathlib.Path(__file__).resolve().parents[2]
MARK = 0.4321  # a width no default, lesson or page shows


def _walk():
    """(carriers, in between, readers) as ARCHITECTURE.md's walk of sigma names them."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    section = text[text.index("### The walk of sigma"):text.index("## Glossary")]
    listed, read_back = section.split("Read back, not carried:")
    items = re.findall(r"^\d+\. (.*?)(?=^\d+\. |\Z)", listed, re.M | re.S)
    carriers = {re.search(r"`([\w/]+\.py)`", item).group(1) for item in items}
    between = {path for item in items for path in re.findall(r"`([\w/]+\.py)`", item)} - carriers
    return carriers, between, set(re.findall(r"`([\w/]+\.py)`", read_back))


def _holds(value, depth=0):
    if isinstance(value, float):
        return abs(value - MARK) < 1e-12
    if isinstance(value, str):
        return value == f"{MARK}"
    if depth > 1 or isinstance(value, type) or callable(value):
        return False
    if isinstance(value, dict):
        return any(_holds(v, depth + 1) for v in list(value.values())[:200])
    if isinstance(value, (list, tuple)):
        return any(_holds(v, depth + 1) for v in value[:20])
    fields = getattr(type(value), "__dataclass_fields__", None)  # the class's (a proxy may answer anything)
    return isinstance(fields, dict) and any(_holds(getattr(value, f, None), depth + 1) for f in fields)


def test_the_walk_of_sigma_names_every_module_the_width_reaches():
    carriers, between, readers = _walk()
    assert len(carriers) == 10 and all((ROOT / path).is_file() for path in carriers | between | readers)
    at = open_link({"sigma_mode": "manual", "sigma": "0.3", "estimators": "FCFWCS"})
    at = no_exception(at.switch_page("pages/weights.py").run())
    slider = next(s for s in at.slider if s.key and s.key.endswith("sigma"))
    seen, app = set(), (str(ROOT / "teaching"), str(ROOT / "pages"))

    def trace(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(app):
            if any(_holds(v) for v in list(frame.f_locals.values())):
                seen.add(os.path.relpath(frame.f_code.co_filename, ROOT))

    previous = steps.use_executor(None)  # the fit in this process, so that its modules are traced too
    sys.setprofile(trace), threading.setprofile(trace)
    try:
        slider.set_value(MARK)
        at = no_exception(at.run())
    finally:
        sys.setprofile(None), threading.setprofile(None)
        steps.use_executor(previous)
    assert seen <= carriers | between | readers, f"not in ARCHITECTURE.md's walk: {sorted(seen - carriers - readers)}"
    # every carrier is on the way (the page's widget call keeps the number in Streamlit's state, not a local)
    assert carriers - {"pages/weights.py"} <= seen, f"named but not reached: {sorted(carriers - seen)}"
