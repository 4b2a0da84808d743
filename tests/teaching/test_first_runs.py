"""A fresh server whose first page views all come at once (a class opening the link before anyone else did,
or the second replica behind nginx, which the teacher's first open never reached): every session's first run
draws its page, no exception on any. The loading frame's figure imported plotly and numpy beside start()'s
imports, and 4-5 of 20 pages showed "partially initialized module 'numpy'" (issue 40's replicas run)."""

import asyncio
import concurrent.futures
import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLASS = 20


def _bench(name):
    """A module of bench/ (bench/classroom.py imports its neighbours by name)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "bench"))


def test_a_class_opening_a_fresh_server_at_once_gets_every_page():
    classroom = _bench("classroom")
    keys = ["why-weights", "kliep-solvers", "estimators-disagree", "iw-smtgp"]
    opened, problems = [], []

    def record(step, seconds, size, errors, link):
        opened.append(seconds)
        if seconds is None or errors:
            problems.append((step, seconds, errors))

    async def everyone_at_once(url):
        together = asyncio.Barrier(CLASS)
        await asyncio.gather(*[classroom.student(url, classroom.lesson_link(keys[i % len(keys)]), [], (0, 0), None,
                                                 180, record, together) for i in range(CLASS)])

    with classroom.Server() as server:  # in a thread of its own: Playwright's tests leave an event loop running here
        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, everyone_at_once(server.url)).result()
    assert len(opened) == CLASS and not problems, problems
