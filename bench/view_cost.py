"""Where a lesson view's server CPU goes: computation, figure building, serialisation, script (issue 24).

For each lesson, an AppTest session (app.py around the page, as the server runs it) opens the
lesson's link with a seed no lesson uses, so its view is new to every cache. Three runs of the same
view, in process CPU seconds (every thread; other processes on the machine do not count):

- *cold*: every cache empty (new data, sigma, fits, figures), what a student's seed change costs;
- *figures*: the view pipeline's cache kept, the figure cache emptied: figures + warm;
- *warm*: every cache kept: running the script and serialising the figures.

The scripts are compiled once, as the server's runtime does (AppTest alone compiles them for every run;
``--compile-every-run`` keeps that).

So computation = cold - figures, figure building = figures - warm; the warm run is split into
serialisation (the script thread's CPU time inside ``st.plotly_chart``, which turns figures into
JSON and protobuf) and the rest of the script.

    python bench/view_cost.py [--lessons why-weights ...] [--seed 7] [--repeats 3] [--output view_cost]
"""

import argparse
import importlib.util
import os
import pathlib
import statistics
import sys
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[1]
# AppTest runs the app in a Streamlit runtime, which would send the fits to worker processes whose CPU
# this process does not count: time the views computed here (the server's workers share the same code).
os.environ.setdefault("COVSHIFT_WORKERS", "0")
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from _host import reference_sentence  # noqa: E402
from _table import markdown_table, update_section  # noqa: E402

import streamlit as st  # noqa: E402
from streamlit.elements.plotly_chart import PlotlyMixin  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from teaching import lessons, settings  # noqa: E402

_spec = importlib.util.spec_from_file_location("bench_app", ROOT / "bench" / "app.py")
bench_app = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_app)


def _share_script_cache():
    """AppTest compiles app.py and the page anew for every run (a new ScriptCache per run for the script runner and
    another for the pages' manager, with Streamlit's "magic" AST pass: ~0.02-0.04 CPU-s each); the server compiles
    them once (one ScriptCache per runtime). One cache for every run here, so a warm run costs what the server's
    does (before issue 40's second session the page itself was still compiled for every run)."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    shared = ScriptCache()
    local_script_runner.ScriptCache = lambda: shared
    app_test.ScriptCache = lambda: shared  # the pages' manager of each run: the page itself (~0.035 CPU-s a run)


def _cpu(fn):
    start = time.process_time()
    fn()
    return time.process_time() - start


def _opened(lesson, seed):
    """An AppTest session on the lesson's link with ``seed``, on its page, caches emptied (not yet run)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    query = settings.to_query({**settings.defaults(), **lesson.settings, "seed": seed})
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    if lesson.page != "pages/home.py":
        at.switch_page(lesson.page)
    return at


_CHART_SECONDS = []


def _time_plotly_chart():
    """Count the CPU time of the script thread inside st.plotly_chart (figure -> JSON -> protobuf)."""
    def timer(original):
        def timed(*args, **kwargs):
            start = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                _CHART_SECONDS.append(time.thread_time() - start)
        return timed

    PlotlyMixin.plotly_chart = timer(PlotlyMixin.plotly_chart)  # st.container().plotly_chart, columns
    st.plotly_chart = timer(st.plotly_chart)  # st.plotly_chart: a method bound when streamlit was imported


def _chart_seconds(at):
    """CPU seconds of one run inside st.plotly_chart (serialisation)."""
    _CHART_SECONDS.clear()
    at.run()
    return sum(_CHART_SECONDS)


def measure(lesson, seed, repeats):
    """Median over ``repeats`` of the cold / figures / warm CPU seconds of the lesson's view at ``seed``."""
    rows = []
    for repeat in range(repeats):
        at = _opened(lesson, seed + repeat)
        st.cache_data.clear()
        st.cache_resource.clear()
        cold = _cpu(at.run)
        problems = len(at.exception)
        st.cache_resource.clear()
        figures = _cpu(at.run)
        warm = _cpu(at.run)
        chart = _chart_seconds(at)
        rows.append((cold, figures, warm, chart, problems))
    cold, figures, warm, chart = (statistics.median(r[i] for r in rows) for i in range(4))
    return {"lesson": lesson.key, "page": lesson.page, "cold": cold, "compute": max(cold - figures, 0.0),
            "figures": max(figures - warm, 0.0), "serialise": chart, "script": max(warm - chart, 0.0),
            "warm": warm, "exceptions": sum(r[4] for r in rows)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", nargs="*", help="lesson keys (default: every lesson)")
    parser.add_argument("--seed", type=int, default=7, help="first seed (no lesson uses it); one more per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compile-every-run", action="store_true",
                        help="AppTest's own behaviour: app.py and the page compiled for every run (before issue 40)")
    parser.add_argument("--section", help="write the table as this section of bench/results/view_cost.md")
    args = parser.parse_args()
    host = reference_sentence()  # before the runs: the host's speed in this hour
    print(host, flush=True)
    warnings.filterwarnings("ignore")
    if not args.compile_every_run:
        _share_script_cache()
    bench_app.run_app_py_on_every_page()
    _time_plotly_chart()
    chosen = [lesson for lesson in lessons.LESSONS.values() if not args.lessons or lesson.key in args.lessons]
    rows = []
    for lesson in chosen:
        row = measure(lesson, args.seed, args.repeats)
        rows.append(row)
        print(f"{row['lesson']:20s} cold {row['cold']:5.2f} = compute {row['compute']:5.2f} + figures "
              f"{row['figures']:5.2f} + warm {row['warm']:5.2f} (serialise {row['serialise']:5.2f}, script "
              f"{row['script']:5.2f})  exceptions {row['exceptions']}", flush=True)
    header = ["lesson", "page", "cold view CPU (s)", "computation", "figure building", "warm view CPU (s)",
              "of which serialisation", "of which script", "exceptions"]
    body = markdown_table(header, [[r["lesson"], r["page"], r["cold"], r["compute"], r["figures"], r["warm"],
                                    r["serialise"], r["script"], r["exceptions"]] for r in rows])
    if args.section:
        intro = (f"Process CPU seconds, median of {args.repeats} seeds from {args.seed} (AppTest, app.py around "
                 "the page). Cold: every cache empty; computation = cold - (run with the pipeline cache kept); "
                 "figure building = that - warm; warm = script + serialisation (inside st.plotly_chart). The server adds the websocket send and its message cache on top (bench/classroom.py).")
        load = " ".join(f"{v:.2f}" for v in os.getloadavg())
        threads = os.environ.get("COVSHIFT_BLAS_THREADS", "1")
        update_section("view_cost", args.section, f"{intro} BLAS threads per computation: {threads}. Load average "
                       f"at the end: {load} on {os.cpu_count()} cores. {host}\n\n{body}")
    else:
        print(body)


if __name__ == "__main__":
    main()
