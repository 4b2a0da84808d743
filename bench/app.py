"""How fast the app answers, driven as a class would drive it (issue 12, item 1).

For the default view and every lesson/preset button of the sidebar, and for every page that
computes something, it opens the page in a fresh AppTest session with cleared caches (first
run), runs it again (warm rerun), then times a widget change that needs new weights or
predictions (the seed). The replay's Step/Back/Next/Play/slider run in the browser (replay.js
on the run's sparse history, sent once with the page), so they cost the server nothing and are
not timed here (bench/replay.py times them in Chromium). Server-side times: the browser adds
its own rendering on top.

    python bench/app.py [--pages weights regression] [--views "(defaults)" ...] [--output app-subset]

Targets (reference machine, 2 cores): first run <= 1.0 s (digits <= 2 s), warm rerun <= 0.3 s,
a widget change that needs new results on toy sizes <= 1 s.
"""

import argparse
import os
import pathlib
import statistics
import sys
import time
import warnings
from urllib import parse

# AppTest runs the app in a Streamlit runtime, which would send the fits to worker processes whose CPU
# this process does not count: time the views computed here (the server's workers share the same code).
os.environ.setdefault("COVSHIFT_WORKERS", "0")
sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _table import markdown_table, write_report  # noqa: E402

import streamlit as st  # noqa: E402
from streamlit.runtime.pages_manager import PagesManager  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
STATIC_PAGES = {"theory.py"}  # pages that compute nothing worth timing
FIRST_RUN_TARGET, DIGITS_TARGET, WARM_TARGET, CHANGE_TARGET = 1.0, 2.0, 0.3, 1.0


def run_app_py_on_every_page():
    """Time what the server runs: app.py (settings, sidebar, address sync) around the page.

    AppTest builds a new PagesManager for every run, which sees the ``pages/`` folder and runs a
    switched-to page on its own (multipage v1), skipping app.py. The server runs app.py on every
    run once st.navigation has been called; keep the flag as the server has it (as
    tests/teaching/app/conftest.py does).
    """
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init


def _fresh_app():
    st.cache_data.clear()
    st.cache_resource.clear()
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()


def _view_labels():
    """The default view and every lesson and preset of the sidebar (page links to their address)."""
    probe = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
    return ["(defaults)"] + [link.proto.label for link in probe.sidebar.get("page_link")
                             if link.proto.query_string]


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _timed_cpu(fn):
    """Wall and process-CPU seconds of fn() (CPU counts every thread: AppTest runs the script in one)."""
    cpu = time.process_time()
    wall = _timed(fn)
    return wall, time.process_time() - cpu


def _open(label, page):
    """A fresh session with cleared caches showing ``label``, switched to ``page`` (not yet run)."""
    at = _fresh_app()
    if label != "(defaults)":  # follow the sidebar's link as the browser does: its page at its address
        [link] = [link for link in at.sidebar.get("page_link") if link.proto.label == label]
        at.query_params.clear()
        at.query_params.update(parse.parse_qs(link.proto.query_string))
        at.switch_page(f"pages/{link.proto.page or 'home'}.py").run()
    st.cache_data.clear()  # the runs above computed Home or the lesson's own page
    st.cache_resource.clear()
    return at.switch_page(f"pages/{page}")


def _seed_change(at):
    """Move the sidebar's seed by one, as a student does: new data, so new weights and predictions."""
    seed = at.sidebar.number_input(key="w.seed")
    seed.set_value(int(seed.value) + 1)
    return _timed_cpu(at.run)


def _warm(at, repeats):
    """Median wall and process-CPU time of ``repeats`` reruns of the page as it stands."""
    times = [_timed_cpu(at.run) for _ in range(repeats)]
    return statistics.median(w for w, _ in times), statistics.median(c for _, c in times)


def measure(label, page, repeats=3):
    at = _open(label, page)
    first, first_cpu = _timed_cpu(at.run)
    problems = len(at.exception)
    warm, warm_cpu = _warm(at, repeats)
    change, change_cpu = _seed_change(at)
    problems += len(at.exception)
    return {"view": label, "page": page, "data": at.session_state["settings"].get("dataset", "?"), "first": first,
            "first_cpu": first_cpu, "warm": warm, "warm_cpu": warm_cpu, "change": change, "change_cpu": change_cpu,
            "exceptions": problems}


def verdict(row):
    first_target = DIGITS_TARGET if row["data"] == "digits" else FIRST_RUN_TARGET
    misses = []
    if row["first"] > first_target:
        misses.append(f"first > {first_target:g} s")
    if row["warm"] > WARM_TARGET:
        misses.append(f"warm > {WARM_TARGET:g} s")
    if row["change"] is not None and row["data"] != "digits" and row["change"] > CHANGE_TARGET:
        misses.append(f"change > {CHANGE_TARGET:g} s")
    if row["exceptions"]:
        misses.append("exception shown")
    return "met" if not misses else "missed: " + ", ".join(misses)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", help="page files without .py (default: every computing page)")
    parser.add_argument("--views", nargs="*", help="view labels (default: defaults and every lesson button)")
    parser.add_argument("--page-alone", action="store_true",
                        help="run the page file without app.py (AppTest's default; not what the server does)")
    parser.add_argument("--repeats", type=int, default=3, help="warm reruns per page (the median is reported)")
    parser.add_argument("--output", help="results file name without .md (default: app for a full run; "
                                         "a subset run only prints unless given)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    if not args.page_alone:
        run_app_py_on_every_page()
    pages = sorted(p.name for p in (ROOT / "pages").glob("*.py") if p.name not in STATIC_PAGES)
    if args.pages:
        pages = [p for p in pages if p[:-3] in args.pages]
    views = args.views or _view_labels()
    rows = []
    for label in views:
        for page in pages:
            row = measure(label, page, args.repeats)
            row["verdict"] = verdict(row)
            rows.append(row)
            print(f"{label[:45]:45s} {page:18s} first {row['first']:5.2f} (cpu {row['first_cpu']:5.2f})  "
                  f"warm {row['warm']:5.2f} (cpu {row['warm_cpu']:5.2f})  "
                  f"change {row['change']:5.2f} (cpu {row['change_cpu']:5.2f})  {row['verdict']}", flush=True)
    output = args.output or (None if args.pages or args.views else "app")
    if output is None:
        return
    header = ["view", "page", "data", "first run (s)", "CPU (s)", f"warm rerun (s, median of {args.repeats})",
              "CPU (s)", "seed change (s)", "CPU (s)", "verdict"]
    table = markdown_table(header, [[r["view"], r["page"], r["data"], r["first"], r["first_cpu"], r["warm"],
                                     r["warm_cpu"], r["change"], r["change_cpu"], r["verdict"]] for r in rows])
    load = os.getloadavg()
    mode = ("the page file alone (--page-alone)" if args.page_alone else
            "app.py (settings, sidebar, address sync) around the page, as the server runs it")
    intro = ("Server-side times from streamlit.testing.v1.AppTest, each run executing " + mode + ": a fresh "
             "session with cleared caches per row (first run), the same page again (warm rerun; the median "
             "of the repeats), and the sidebar's seed moved by one "
             f"(new data, so new weights and predictions). Targets: first run <= {FIRST_RUN_TARGET:g} s "
             f"(digits <= {DIGITS_TARGET:g} s), warm <= {WARM_TARGET:g} s, "
             f"a change needing new results on toy sizes <= {CHANGE_TARGET:g} s; the verdict uses the wall "
             "times. Each time has the process CPU time beside it (all threads), which another process on "
             "the machine does not inflate. Load average at the end: "
             f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}. The replay (Step/Back/Next/Play/slider) runs in the "
             "browser from the run's sparse history sent with the page: no server round trip (bench/replay.py).")
    write_report(output, "App response times", intro, [("Every view and computing page", table)])


if __name__ == "__main__":
    main()
