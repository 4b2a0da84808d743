"""A class follows the lessons: N students, each opening every lesson's link in turn and setting a seed of their own
on it, over Streamlit's own protocol (issues 24 and 30).

The default scenario (issue 30, ``--scenario follow``): the instructor walks through three lessons
(Why weights, KLIEP and its Frank-Wolfe solvers, Estimators disagree) and the class follows: three
rounds, in each of which every student opens the lesson's link (a fresh page load) and, after 2-5 s
of thinking, sets a new seed, distinct for every student and round (so every seed change is a
view nobody computed before). ``--scenario burst`` (issue 40): the same three rounds without thinking time,
everyone at once: the whole class opens the round's link in the same instant and, when every page is
open ("now try your own seed"), sets its seed in the same instant. ``--scenario link``: everyone opens
one link and changes its seed ``--rounds`` times (issue 24). ``--scenario poll``: the class votes on a lesson's question while the
instructor's stage refreshes its tally (issue 36, ``bench/poll_class.py``; results in bench/results/poll.md).

Each student is one websocket on ``/_stcore/stream`` speaking what the browser speaks: a
``BackMsg.rerun_script`` with the link's page and query string opens the lesson; the sidebar's
*Seed* number input (widget ``w.seed``, its id read from the page's deltas) is then set to a new
value, ``rounds`` times with 2-5 s of thinking in between. A step is timed from the message sent
to the server's ``script_finished``; the client keeps the hashes of the messages it received and
reports them as the browser's message cache does. The browser's own rendering (0.5-1 s) is not
included. Beside the summary it prints each step's p50 / p95 / max per lesson: which round of a burst is
the slow one. Every student gets its own seeds (never a lesson's own), so every seed change is a view
nobody computed before.

Without ``--url`` it starts ``streamlit run app.py`` on a free loopback port, fresh for every
class size, and samples the server's CPU time and resident memory (psutil if installed, else
/proc), summed over its worker processes. With ``--url`` it measures a running deployment (e.g. ``deploy/serve.sh``); give
``--pids`` to sample its processes. Bounded: at most 40 students, a step gives up after
``--step-timeout`` seconds and a class after ``--class-timeout``; it stops by itself.

    python bench/classroom.py                      # N = 1, 10, 20, 40 -> bench/results/classroom.md
    python bench/classroom.py --quick              # N = 1, 5, printed only (a smoke test)
    python bench/classroom.py --scenario link --lessons estimators-disagree --sizes 20   # issue 24's class
    python bench/classroom.py --scenario burst --sizes 20 --section "Burst, N = 20"     # issue 40's burst
    python bench/classroom.py --url http://127.0.0.1:8600 --sizes 20 --section "Two replicas behind nginx"
    python bench/classroom.py --scenario poll --sizes 40 100       # Ask the class, one server with SQLite
"""

import argparse
import asyncio
import os
import pathlib
import random
import statistics
import sys
import time
import urllib.request

import websockets

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from _host import reference_sentence  # noqa: E402
from _table import markdown_table, update_section, write_report  # noqa: E402
from served import Monitor, Server  # noqa: E402,F401 (bench/poll_class.py uses classroom.Server)

from streamlit.proto.Alert_pb2 import Alert  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from teaching import lessons, settings  # noqa: E402

SIZES, QUICK_SIZES, MAX_STUDENTS = (1, 10, 20, 40), (1, 5), 40
#: The lessons the class follows, in the instructor's order (issue 30).
FOLLOWED = ("why-weights", "kliep-solvers", "estimators-disagree")
#: N = 20 on 2 cores (issue 30): p95 of opening a link and of a seed change (s), peak RSS of server + workers.
TARGETS = {"open": 2.0, "seed": 3.0, "rss_mb": 1024}
#: Issue 40: N = 40 following the lessons (open and seed-change p95, s); N = 20 in a burst; both also peak PSS
#: (server and workers) <= TARGETS["rss_mb"].
TARGETS_FORTY = {"open": 3.0, "seed": 5.0}
TARGETS_BURST = {"open": 3.0, "seed": 4.0}
SEED_WIDGET = "w.seed"


# ------------------------------------------------------------------ the links the sidebar produces
def lesson_link(key):
    """(page url name, query string) of the lesson ``key`` as its sidebar button leaves the address."""
    lesson = next(item for item in lessons.LESSONS.values() if item.key == key)
    page = pathlib.Path(lesson.page).stem
    return ("" if page == "home" else page), settings.query_string({**settings.defaults(), **lesson.settings})


# ------------------------------------------------------------------ one student = one browser session
class Session:
    """One websocket session: sends reruns as the browser does, reads ForwardMsgs to the end of the run."""

    def __init__(self, socket_):
        self.socket = socket_
        self.hashes = set()  # the browser's message cache: the server then sends references
        self.page_hash = ""
        self.query = ""
        self.seed_id = None
        self.errors = []

    async def rerun(self, page_name="", widget_states=None, timeout=120.0):
        """Send one rerun, wait for its script_finished; (seconds, bytes received)."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        state.page_script_hash = self.page_hash
        state.page_name = page_name
        state.cached_message_hashes.extend(sorted(self.hashes))
        for widget_state in widget_states or []:
            state.widget_states.widgets.append(widget_state)
        start = time.perf_counter()
        await self.socket.send(msg.SerializeToString())
        received = 0
        deadline = start + timeout
        while True:
            data = await asyncio.wait_for(self.socket.recv(), max(0.01, deadline - time.perf_counter()))
            received += len(data)
            if self._read(data):
                return time.perf_counter() - start, received

    def _read(self, data):
        """Take what the browser keeps from one ForwardMsg; True once the run finished for good."""
        msg = ForwardMsg()
        msg.ParseFromString(data)
        if msg.hash:
            self.hashes.add(msg.hash)
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self.page_hash = msg.new_session.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            shown = element.WhichOneof("type")
            if shown == "number_input" and element.number_input.id.endswith(SEED_WIDGET):
                self.seed_id = element.number_input.id
            elif shown == "exception":
                self.errors.append(f"exception: {element.exception.message[:120]}")
            elif shown == "alert" and element.alert.format == Alert.ERROR:
                self.errors.append(f"error box: {element.alert.body[:120]}")
        elif kind == "script_finished":
            return msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
        return False

    def seed_change(self, seed):
        """The widget state the browser sends when the sidebar's seed is set to ``seed``."""
        if self.seed_id is None:
            raise RuntimeError("the page showed no sidebar seed input (w.seed)")
        state = BackMsg().rerun_script.widget_states.widgets.add()
        state.id = self.seed_id
        state.int_value = int(seed)
        return [state]


async def student(url, link, seeds, think, rng, timeout, record, together=None):
    """Open ``link`` (page, query), then set each of ``seeds`` after thinking; record (step, seconds).
    ``together`` (an asyncio.Barrier of the class): every step waits for the whole class instead (a burst)."""
    page, query = link
    ws_url = url.replace("http", "ws", 1).rstrip("/") + "/_stcore/stream"
    if together is None:
        await asyncio.sleep(rng.uniform(0, 1))  # the class does not click within the same millisecond
    cookies = await asyncio.to_thread(_page_cookies, f"{url.rstrip('/')}/{page}?{query}")
    async with websockets.connect(ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=timeout,
                                  ping_interval=None, additional_headers={"Cookie": cookies}) as socket_:
        session = Session(socket_)
        session.query = query
        steps = [("open", None)] + [("seed", seed) for seed in seeds]
        for step, seed in steps:
            if together is not None:
                await together.wait()
            elif step == "seed":
                await asyncio.sleep(rng.uniform(*think))
            states = session.seed_change(seed) if seed is not None else None
            try:
                seconds, size = await session.rerun(page if step == "open" else "", states, timeout)
            except asyncio.TimeoutError:
                record(step, None, 0, [f"{step} not done within {timeout:g} s"], link)
                return
            if seed is not None and f"seed={seed}" not in session.query.split("&"):
                session.errors.append(f"the address after the seed change is ?{session.query}")
            record(step, seconds, size, session.errors, link)
            session.errors = []


async def follower(url, links, seeds, think, rng, timeout, record):
    """One student following the lessons: round r opens ``links[r]`` (a fresh page load) and sets ``seeds[r]``
    after thinking; the rounds are apart by another thinking time."""
    for index, (link, seed) in enumerate(zip(links, seeds)):
        if index:
            await asyncio.sleep(rng.uniform(*think))
        await student(url, link, [seed], think, rng, timeout, record)


class _Counted:
    """A student's side of the class's barrier, counting its waits (a student that failed keeps arriving)."""

    def __init__(self, barrier):
        self.barrier, self.waits = barrier, 0

    async def wait(self):
        self.waits += 1
        await self.barrier.wait()


async def burst_follower(url, links, seeds, timeout, record, barrier):
    """One student of a burst: round r opens ``links[r]`` when the whole class does, then sets ``seeds[r]`` when
    the whole class does (``barrier``: asyncio.Barrier of the class size)."""
    together = _Counted(barrier)
    try:
        for link, seed in zip(links, seeds):
            await student(url, link, [seed], (0, 0), None, timeout, record, together)
    finally:  # a step that failed or timed out: the others do not wait for this student forever
        while together.waits < 2 * len(links):
            await together.wait()


def warm(url, timeout=300.0):
    """Open every lesson's link once on ``url`` (a fresh server's start-up): {lesson key: seconds}."""
    times = {}
    for lesson in lessons.LESSONS.values():
        async def once(key=lesson.key):
            await student(url, lesson_link(key), [], (0, 0), random.Random(0), timeout,
                          lambda step, seconds, size, problems, link: times.update({key: seconds}))
        asyncio.run(once())
    return times


def _page_cookies(address):
    """The cookies a browser keeps from loading the page (a proxy's sticky-session cookie, the XSRF one)."""
    with urllib.request.urlopen(address, timeout=30) as response:
        response.read()
        return "; ".join(c.split(";", 1)[0] for c in response.headers.get_all("Set-Cookie") or [])


# ------------------------------------------------------------------ one class, every class size
def settle(pids, seconds, idle=0.1, window=2.0, quiet_windows=3):
    """Wait (at most ``seconds``) until ``pids`` and their children use less than ``idle`` cores in ``quiet_windows``
    windows of ``window`` s in a row: the server's start-up (its fit workers, started 2 s after the first run, importing
    the library and compiling, the background warming of the lessons) over. One quiet window is not enough: the
    first one after the instructor's open can fall before the workers start. Returns the seconds waited."""
    start = time.perf_counter()
    before, quiet = Monitor(pids).cpu0, 0
    while time.perf_counter() - start < seconds:
        time.sleep(window)
        now = Monitor(pids).cpu0
        quiet = quiet + 1 if now - before < idle * window else 0
        if quiet >= quiet_windows:
            break
        before = now
    return time.perf_counter() - start


def play_class(url, n, links, rounds, think, seed_base, step_timeout, class_timeout, pids, follow=True,
               burst=False, settle_seconds=0.0):
    """N students at once on ``url``; the steps, the errors and the server's CPU and memory.

    ``follow``: every student follows ``links`` in turn, one seed per link (issue 30); with ``burst`` all of
    them at once, step by step (issue 40); else student i opens ``links[i % len(links)]`` and sets ``rounds``
    seeds on it. ``settle_seconds``: after the instructor's first open, wait at most so long for the server to go idle
    (:func:`settle`) before the class comes and its CPU is counted."""
    if not 1 <= n <= MAX_STUDENTS:
        raise ValueError(f"students must be in 1..{MAX_STUDENTS}, got {n}")
    steps, errors, by_link = [], [], {}

    def record(step, seconds, size, problems, link=None):
        steps.append((step, seconds, size))
        by_link.setdefault((step, link), []).append(seconds)
        errors.extend(problems)

    async def everyone():
        if burst:
            barrier = asyncio.Barrier(n)
            tasks = [burst_follower(url, links, [seed_base + i * len(links) + r for r in range(len(links))],
                                    step_timeout, record, barrier) for i in range(n)]
        elif follow:
            tasks = [follower(url, links, [seed_base + i * len(links) + r for r in range(len(links))], think,
                              random.Random(seed_base + i), step_timeout, record) for i in range(n)]
        else:
            tasks = [student(url, links[i % len(links)], [seed_base + i * rounds + r for r in range(rounds)],
                             think, random.Random(seed_base + i), step_timeout, record) for i in range(n)]
        done, pending = await asyncio.wait([asyncio.ensure_future(t) for t in tasks], timeout=class_timeout)
        for task in pending:
            task.cancel()
        for task in done:
            if task.exception() is not None:
                errors.append(f"{type(task.exception()).__name__}: {task.exception()}")
        return len(pending)

    async def instructor():  # the projected view: opened before the class is told the link
        instructor_steps = []
        await student(url, links[0], [], think, random.Random(0), step_timeout,
                      lambda step, s, size, problems, link: instructor_steps.append((s, problems)))
        return instructor_steps[0]

    first, problems = asyncio.run(instructor())
    errors.extend(problems)
    settled = settle(pids, settle_seconds) if settle_seconds and pids else 0.0
    monitor = Monitor(pids)
    monitor.start()
    start, load0 = time.perf_counter(), os.getloadavg()[0]
    cut = asyncio.run(everyone())
    wall = time.perf_counter() - start
    monitor.stop()
    planned = n * 2 * len(links) if follow else n * (1 + rounds)
    return {"n": n, "burst": burst, "first": first, "wall": wall, "steps": steps, "missing": planned - sum(s is not None for _, s, _ in steps),
            "cut": cut, "errors": errors, "cpu": monitor.cpu - monitor.cpu0, "rss0": monitor.rss0,
            "peak": monitor.peak, "pss0": monitor.pss0, "peak_pss": monitor.peak_pss, "load": (load0, os.getloadavg()[0]),
            "settled": settled, "by_link": by_link}


def percentiles(values):
    """(p50, p95, max) of ``values`` (nearest rank), or Nones."""
    if not values:
        return None, None, None
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(0.95 * len(ordered) + 0.5) - 1))
    return statistics.median(ordered), ordered[rank], ordered[-1]


def summary(result):
    row = {"n": result["n"]}
    for step in ("open", "seed"):
        times = [s for kind, s, _ in result["steps"] if kind == step and s is not None]
        row[step] = percentiles(times)
        sizes = [b for kind, s, b in result["steps"] if kind == step and s is not None]
        row[f"{step}_kb"] = statistics.median(sizes) / 1e3 if sizes else None
    row["cores"] = result["cpu"] / result["wall"]
    done = sum(s is not None for _, s, _ in result["steps"])
    row["cpu_per_view"] = result["cpu"] / done if done else None  # the background warming of the lessons included
    row["rss_mb"] = result["peak"] / 2**20
    row["pss_mb"] = result["peak_pss"] / 2**20
    row["per_student_mb"] = (result["peak_pss"] - result["pss0"]) / 2**20 / result["n"]  # above the instructor's
    return row


def verdict(row, result):
    """Against the targets of issue 40 (a burst; N = 40: open and seed change) and of issue 30 (N = 20: open,
    seed change, peak RSS)."""
    misses = []
    if result.get("burst") or result["n"] == 40:
        targets = TARGETS_BURST if result.get("burst") else TARGETS_FORTY
        for step in ("open", "seed"):
            if row[step][1] is None or row[step][1] > targets[step]:
                misses.append(f"{step} p95 > {targets[step]:g} s")
        if row["pss_mb"] > TARGETS["rss_mb"]:
            misses.append(f"peak PSS > {TARGETS['rss_mb']} MB")
    else:
        if row["open"][1] is None or row["open"][1] > TARGETS["open"]:
            misses.append(f"open p95 > {TARGETS['open']:g} s")
        if row["seed"][1] is None or row["seed"][1] > TARGETS["seed"]:
            misses.append(f"seed p95 > {TARGETS['seed']:g} s")
        if row["rss_mb"] > TARGETS["rss_mb"]:
            misses.append(f"peak RSS > {TARGETS['rss_mb']} MB")
    if result["errors"] or result["missing"]:
        misses.append("errors or steps not done")
    return "met" if not misses else "missed: " + ", ".join(misses)


def table(rows_results, pids_known):
    header = ["students", "instructor's first open (s)", "open p50 / p95 / max (s)", "KB", "seed change p50 / p95 / max (s)", "KB",
              "steps not done", "errors", "server CPU (s)", "CPU s / view", "cores busy", "peak RSS (MB)", "peak PSS (MB)", "PSS MB / student",
              "load avg start/end", "verdict (N = 20: issue 30's targets; N = 40, a burst: issue 40's)"]
    rows = []
    for row, result in rows_results:
        cells = [" / ".join("-" if v is None else f"{v:.2f}" for v in row[step]) for step in ("open", "seed")]
        memory = ([result["cpu"], row["cpu_per_view"], row["cores"], row["rss_mb"], row["pss_mb"], row["per_student_mb"]]
                  if pids_known else ["-"] * 6)
        rows.append([row["n"], result["first"], cells[0], row["open_kb"], cells[1], row["seed_kb"], result["missing"],
                     len(result["errors"]), *memory, "{:.1f} / {:.1f}".format(*result["load"]),
                     verdict(row, result)])
    return markdown_table(header, rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running deployment (default: start streamlit run app.py per class)")
    parser.add_argument("--pids", type=int, nargs="*", default=[], help="with --url: processes to sample")
    parser.add_argument("--sizes", type=int, nargs="*", help=f"class sizes (default {SIZES})")
    parser.add_argument("--quick", action="store_true", help=f"class sizes {QUICK_SIZES}, printed only")
    parser.add_argument("--scenario", choices=["follow", "burst", "link", "poll"], default="follow",
                        help="follow: every student follows the lessons, one seed each (default); burst: the same "
                             "with everyone at once, step by step, no thinking time; link: one link, "
                             "--rounds seed changes; poll: the class votes on the Why-weights question "
                             "(bench/poll_class.py; sizes 40 and 100 by default)")
    parser.add_argument("--polls-url", help="with --scenario poll --url: the deployment's poll store (SQLAlchemy URL)")
    parser.add_argument("--lessons", nargs="*", default=list(FOLLOWED),
                        help=f"lesson keys (default {' '.join(FOLLOWED)}); with --scenario link handed out "
                             "round-robin; 'all' for every lesson")
    parser.add_argument("--rounds", type=int, default=3, help="with --scenario link: seed changes per student")
    parser.add_argument("--think", type=float, nargs=2, default=(2.0, 5.0), help="thinking time range (s)")
    parser.add_argument("--seed-base", type=int, help="first student seed (default: from the clock, so no "
                                                      "cache of an earlier run answers)")
    parser.add_argument("--step-timeout", type=float, default=120.0)
    parser.add_argument("--class-timeout", type=float, default=900.0)
    parser.add_argument("--settle", type=float, default=0.0,
                        help="after the instructor's first open, wait at most this many seconds for the server to go "
                             "idle (its workers started, the lessons warmed) before the class comes and CPU is counted")
    parser.add_argument("--root", default=str(ROOT), help="the checkout whose app.py is served (before/after)")
    parser.add_argument("--py-spy", help="record the server's interpreter-lock time with py-spy into this file "
                                         "(raw stacks; bench/script_time.py reads it)")
    parser.add_argument("--output", help="results file without .md (default: classroom for a full run)")
    parser.add_argument("--section", help="add the table as this section of bench/results/classroom.md")
    args = parser.parse_args()
    host = reference_sentence()  # before the class: the host's speed in this hour
    print(host, flush=True)
    if args.scenario == "poll":
        import poll_class

        return poll_class.run(args, time.perf_counter())
    keys = [lesson.key for lesson in lessons.LESSONS.values()] if args.lessons == ["all"] else args.lessons
    links = [lesson_link(key) for key in keys]
    sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    seed_base = args.seed_base if args.seed_base is not None else 100 + int(time.time()) % 5000
    burst = args.scenario == "burst"
    follow = args.scenario in ("follow", "burst")
    began = time.perf_counter()
    results = []
    for index, n in enumerate(sizes):
        seeds = seed_base + 200 * index  # each class its own seeds: with --url the server is not fresh
        if args.url:
            result = play_class(args.url, n, links, args.rounds, args.think, seeds, args.step_timeout,
                                args.class_timeout, args.pids, follow, burst, args.settle)
        else:
            with Server(root=args.root, profile=args.py_spy and f"{args.py_spy}.{n}") as server:
                result = play_class(server.url, n, links, args.rounds, args.think, seeds, args.step_timeout,
                                    args.class_timeout, [server.process.pid], follow, burst, args.settle)
        row = summary(result)
        results.append((row, result))
        print(f"N={n:2d} open {row['open']} seed {row['seed']} missing {result['missing']} "
              f"errors {len(result['errors'])} cpu {result['cpu']:.1f} s ({row['cpu_per_view'] or 0:.3f} s/view) peak RSS {row['rss_mb']:.0f} MB PSS "
              f"{row['pss_mb']:.0f} MB "
              f"load {result['load']}" + (f" (settled {result['settled']:.0f} s first)" if args.settle else ""), flush=True)
        for (step, link), times in sorted(result["by_link"].items(), key=lambda item: (item[0][0], links.index(item[0][1]))):
            done = [t for t in times if t is not None]
            print(f"    {step:4s} {keys[links.index(link)]:22s} p50 / p95 / max "
                  + (" / ".join(f"{t:.2f}" for t in percentiles(done)) if done else "-"))
        for problem in sorted(set(result["errors"]))[:5]:
            print("   ", problem)
    pids_known = bool(args.pids) or not args.url
    body = table(results, pids_known)
    where = args.url or "one `streamlit run app.py` per class size, fresh"
    what = (f"A burst: every student follows the lessons {', '.join(keys)} ({where}) all at once: in each of "
            f"{len(keys)} rounds the whole class opens the lesson's link in the same instant and, once every page is "
            f"open, sets the sidebar seed in the same instant (no thinking time); every student its own" if burst else
            f"Every student follows the lessons {', '.join(keys)} ({where}): in each of {len(keys)} rounds the "
            f"lesson's link opened (a fresh page load), then, after {args.think[0]:g}-{args.think[1]:g} s thinking, "
            f"the sidebar seed set once; rounds apart by another thinking time; every student its own" if follow else
            f"{', '.join(keys)} opened by every student ({where}); then the sidebar seed set "
            f"{args.rounds} times with {args.think[0]:g}-{args.think[1]:g} s thinking, every student its own")
    if args.settle:
        what += (f" (the class comes once the server has gone idle after the instructor's open, at most {args.settle:g} s "
                 "later: its workers started, the lessons warmed)")
    intro = (f"{what} "
             f"seeds from {seed_base}. Before the class, the instructor opens the first link once (the projected view, timed apart; the server then warms the lessons in the background). Times from the message sent to the server's script_finished (no browser "
             f"rendering). Server CPU, RSS and PSS are summed over the server process and its children (the fit workers); the memory target (issue 30) is checked on peak RSS; PSS counts the libraries the processes share once. Load average of the machine at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())} "
             f"on {os.cpu_count()} cores. {host}")
    if args.section:
        update_section("classroom", args.section, intro + "\n\n" + body)
    elif args.output or not (args.quick or args.sizes):
        write_report(args.output or "classroom", "A class follows the lessons" if follow else "A class at once", intro,
                     [("Class sizes", body)])
    else:
        print(body)
    print(f"bench/classroom.py took {time.perf_counter() - began:.0f} s", flush=True)


if __name__ == "__main__":
    main()
