"""The teacher's first impression: from ``streamlit run app.py`` to the first lesson's figure drawn in a browser (issue 40).

Each run starts a fresh ``streamlit run app.py`` on a free loopback port (every cache empty, as after a
restart; numba's compiled loops come from their on-disk cache, as after the first start of an
installation) with a Chromium already open (Playwright, Debian's ``/usr/bin/chromium``), polls the
server's health check every 50 ms, opens ``/`` as soon as it answers and records, counted from the
moment the process was started:

- *health*: the health check answers (Streamlit's own start-up is done; app.py runs when the page connects);
- *plotly code asked*: the browser asks for Streamlit's plotly component (the loading frame of the server's
  first run, :func:`teaching.serve.loading`, or else the first figure);
- *heading*: the Home page's title is in the page (the first script run got that far);
- *figure*: the first lesson's figure is drawn: a plotly ``.main-svg`` in the Home page's stage
  (``st.container(key="stage")``) with at least one trace drawn in it;

and the CPU seconds spent by then (which a loaded machine changes less than the seconds): the server's, the
server's and its fit workers', and Chromium's from the page's opening. ``--py-spy FILE`` records where the
server's interpreter lock goes until the figure (``py-spy record --gil``, raw stacks), ``--log FILE`` keeps
the server's output.

*Busy* runs the same with ``--busy-load`` processes spinning on the CPU for the whole run (two on a
2-core machine: every core has another process to share it with, a machine used by others). The
modes alternate run by run (idle, busy, idle, ...) so that both see the same outside load; the load
average is written beside every run. Bounded: a run gives up after ``--timeout`` seconds.

    python bench/first_figure.py                         # 3 idle and 3 busy runs -> printed
    python bench/first_figure.py --section "After"       # ... and written to bench/results/first_figure.md
    python bench/first_figure.py --roots /tmp/before .   # two checkouts' apps, run by run in turn (before/after)
"""

import argparse
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from _host import reference_sentence  # noqa: E402
from _table import markdown_table, update_section  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
#: Issue 40's targets (s from the process start to the figure): an idle 2-core machine, and a busy one.
TARGETS = {"idle": 5.0, "busy": 10.0}
#: The first lesson's figure, drawn: a trace inside a plotly SVG inside the Home page's stage.
DRAWN = ("() => { const svg = document.querySelector('.st-key-stage .js-plotly-plot .main-svg');"
         " return !!(svg && svg.querySelector('.trace')); }")
HEADING = "() => !!document.querySelector('h1')"
#: Streamlit's plotly component (with plotly.js), which the browser loads when the page's first figure comes
#: (or the loading frame of the server's first run, teaching.serve.loading).
PLOTLY_CODE = "/PlotlyChart."
SPIN = "import time\nend = time.time() + {seconds}\nwhile time.time() < end: pass\n"


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url):
    try:
        return urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok"
    except OSError:
        return False


def _cpu_seconds(pid):
    """(the server's, the server's and its fit workers') user + system CPU seconds, from /proc: ``pid`` and every
    process below it (the workers are started by one of its threads); a profiler that started the server
    (``--py-spy``: its one child is the server) is not counted."""
    tick = os.sysconf("SC_CLK_TCK")
    server, seconds = None, {}
    for one in _descendants_of(pid):
        try:
            comm = pathlib.Path(f"/proc/{one}/comm").read_text().strip()
            fields = pathlib.Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if comm == "py-spy":
            server = server or next(iter(_children(one)), None)
            continue
        seconds[one] = (int(fields[11]) + int(fields[12])) / tick
    return seconds.get(server or pid, 0.0), sum(seconds.values())


def _browser_seconds():
    """User + system CPU seconds of the Chromium this benchmark started (its browser, renderer, GPU... processes)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for one in _descendants_of(os.getpid()):
        try:
            if pathlib.Path(f"/proc/{one}/comm").read_text().startswith("chrom"):
                fields = pathlib.Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            continue
    return total


def _children(pid):
    """The processes ``pid``'s threads started."""
    try:
        return [int(child) for task in pathlib.Path(f"/proc/{pid}/task").iterdir()
                for child in (task / "children").read_text().split()]
    except OSError:
        return []


def _raise_priority(niceness):
    """For a child process: run at ``niceness`` (below 0 needs root; its children inherit it)."""
    return (lambda: os.setpriority(os.PRIO_PROCESS, 0, niceness)) if niceness is not None else None


def one_run(browser, root, timeout, busy, environ, niceness=None, profile=None, log=None):
    """Seconds from the process start to health, heading and figure; the server's (and its workers') CPU seconds
    by then. ``profile``: a file py-spy writes the server's stacks into (raw, 100 samples per second) from its
    start to the figure. ``log``: a file the server's output is written into."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN.format(seconds=timeout + 30)],
                                 preexec_fn=_raise_priority(niceness)) for _ in range(busy)]
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    began = time.perf_counter()
    spy = ["py-spy", "record", "--gil", "-r", "100", "-f", "raw", "-o", str(profile), "--"] if profile else []
    process = subprocess.Popen(
        spy + [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.port", str(port), "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=root, env=environ, stdout=subprocess.DEVNULL,
        stderr=open(log, "w") if log else subprocess.DEVNULL, preexec_fn=_raise_priority(niceness))
    row = {"load": load, "busy": busy}
    try:
        deadline = began + timeout
        while not _healthy(url):
            if time.perf_counter() > deadline or process.poll() is not None:
                raise RuntimeError(f"the server was not healthy within {timeout:g} s (exit code {process.poll()})")
            time.sleep(0.05)
        row["health"] = time.perf_counter() - began
        row["cpu_health"] = _cpu_seconds(process.pid)[0]
        browser_before = _browser_seconds()
        tab.on("request", lambda request: row.setdefault("plotly_code", time.perf_counter() - began)
               if PLOTLY_CODE in request.url else None)
        tab.goto(url + "/", wait_until="commit", timeout=timeout * 1000)
        left = lambda: max(1.0, (deadline - time.perf_counter()) * 1000)  # noqa: E731
        tab.wait_for_function(HEADING, timeout=left(), polling=20)
        row["heading"] = time.perf_counter() - began
        tab.wait_for_function(DRAWN, timeout=left(), polling=20)
        row["figure"] = time.perf_counter() - began
        row["cpu_server"], row["cpu"] = _cpu_seconds(process.pid)
        row["cpu_browser"] = _browser_seconds() - browser_before
        row["exceptions"] = tab.locator("[data-testid='stException']").count()
    finally:
        context.close()
        if profile:  # py-spy writes its file on SIGINT; the server, its child, is stopped here
            for child in _children(process.pid):
                os.kill(child, 15)
            process.send_signal(2)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    return row


def _renice_chromium(niceness):
    """Set every running chromium process (this benchmark's: Chromium is started by it) to ``niceness``; the
    renderers it starts later inherit it from their zygote."""
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip().startswith("chrom") and \
                        int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) in _descendants_of(os.getpid()):
                    os.setpriority(os.PRIO_PROCESS, int(entry.name), niceness)
            except (OSError, ValueError, IndexError):
                continue


def _descendants_of(pid):
    """``pid`` and every process below it (from /proc/<pid>/task/*/children)."""
    seen, todo = set(), [pid]
    while todo:
        one = todo.pop()
        if one in seen:
            continue
        seen.add(one)
        todo += _children(one)
    return seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per mode (idle, busy), alternating")
    parser.add_argument("--busy-load", type=int, default=os.cpu_count() or 2,
                        help="processes spinning on the CPU during a busy run (default: one per core)")
    parser.add_argument("--modes", nargs="*", default=["idle", "busy"], choices=["idle", "busy"])
    parser.add_argument("--roots", nargs="+", default=[str(ROOT)],
                        help="the checkouts whose app.py is started, run by run in turn (before/after under one load)")
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds a run may take")
    parser.add_argument("--niceness", type=int,
                        help="run the server (and its workers), Chromium and the spinners at this niceness, e.g. -10 "
                             "(root): on a machine shared with others' work, a proxy for an idle machine (the others "
                             "then get the cores only when these leave them); say so beside the numbers")
    parser.add_argument("--py-spy", dest="profile",
                        help="record each run's server with py-spy (pip install py-spy) from its start to the figure "
                             "into FILE.<app>.<mode>.<run> (the interpreter lock's holder, raw stacks, 100 per second; "
                             "bench/script_time.py sums the script threads')")
    parser.add_argument("--log", help="write each run's server output into LOG.<app>.<mode>.<run>")
    parser.add_argument("--section", help="write the table as this section of bench/results/first_figure.md")
    args = parser.parse_args()
    host = reference_sentence()  # before the runs: the host's speed in this hour
    print(host, flush=True)
    from playwright.sync_api import sync_playwright

    for root in args.roots:
        # numba's compiled loops into their on-disk cache (a new checkout compiles them once, ~18 CPU-s): what the
        # first start of an installation pays, not what this benchmark measures
        subprocess.run([sys.executable, "-c", "from covshift import compiled; compiled.warm_up()"], cwd=root,
                       env={**os.environ, "PYTHONPATH": root}, check=True)
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        if args.niceness is not None:  # Chromium's processes: the browser's own and its renderers, started later
            _renice_chromium(args.niceness)
        for run in range(args.runs):
            for mode, root in [(mode, root) for mode in args.modes for root in args.roots]:
                suffix = f".{pathlib.Path(root).name}.{mode}.{run + 1}"
                row = one_run(browser, root, args.timeout, args.busy_load if mode == "busy" else 0,
                              {**os.environ, "PYTHONPATH": root}, args.niceness, args.profile and args.profile + suffix,
                              args.log and args.log + suffix)
                row.update(mode=mode, run=run + 1, app=pathlib.Path(root).name)
                rows.append(row)
                print(f"{row['app']} {mode:4s} run {run + 1}: health {row['health']:5.2f} s "
                      f"(CPU {row['cpu_health']:4.2f} s), "
                      f"plotly code asked {row.get('plotly_code', float('nan')):5.2f} s, heading {row['heading']:5.2f} s, "
                      f"figure {row['figure']:5.2f} s, CPU by then: server {row['cpu_server']:4.2f} s, "
                      f"with workers {row['cpu']:5.2f} s, Chromium {row['cpu_browser']:4.2f} s, exceptions "
                      f"{row['exceptions']}  (load average before: {row['load']})", flush=True)
        browser.close()
    header = ["app", "mode", "run", "load average before", "health (s)", "server CPU at health (s)",
              "plotly code asked (s)", "heading (s)",
              "figure (s)", "server CPU by then (s)", "server + workers CPU by then (s)",
              "Chromium CPU from the page's opening (s)", "exceptions"]
    body = markdown_table(header, [[r["app"], r["mode"], r["run"], r["load"], r["health"], r["cpu_health"],
                                    r.get("plotly_code", float("nan")), r["heading"],
                                    r["figure"], r["cpu_server"], r["cpu"], r["cpu_browser"], r["exceptions"]]
                                   for r in rows])
    summary = []
    for mode, root in [(mode, root) for mode in args.modes for root in args.roots]:
        figures = [r["figure"] for r in rows if r["mode"] == mode and r["app"] == pathlib.Path(root).name]
        summary.append(f"{pathlib.Path(root).name} {mode}: median {statistics.median(figures):.2f} s, worst {max(figures):.2f} s "
                       f"(target {TARGETS[mode]:g} s)")
    print(body)
    print("; ".join(summary))
    if args.section:
        priority = (f"Server, workers, Chromium and spinners ran at niceness {args.niceness} (a proxy for an idle "
                    "machine on a machine shared with others' work). " if args.niceness is not None else "")
        intro = (f"Seconds from starting `streamlit run app.py` to the first lesson's figure drawn in Chromium "
                 f"(a trace in the plotly SVG of the Home page's stage); health: the health check answers; heading: "
                 f"the page's title is shown. Busy: {args.busy_load} processes spinning on the CPU beside the "
                 f"run; idle and busy runs, and the apps, alternate. {os.cpu_count()} cores. {priority}Load average "
                 f"at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}. {host}")
        update_section("first_figure", args.section, f"{intro}\n\n{body}\n\n" + "; ".join(summary) + ".")


if __name__ == "__main__":
    main()
