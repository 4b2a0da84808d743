"""The server a benchmark starts and what it costs: ``streamlit run app.py`` on a free loopback port
(:class:`Server`), and the CPU seconds, resident (RSS) and proportional (PSS) memory of processes and their
children (:class:`Monitor`), for ``bench/classroom.py`` and ``bench/poll_class.py``."""

import os
import pathlib
import socket
import subprocess
import sys
import threading
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url, seconds=90):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not become healthy within {seconds} s")


class Server:
    """``streamlit run app.py`` on a free loopback port, for one class (``environ``: added to its environment);
    stopped on exit."""

    def __init__(self, environ=None, root=ROOT, profile=None):
        self.environ = {**os.environ, "PYTHONPATH": str(root), **(environ or {})}
        self.root, self.profile, self.spy = root, profile, None

    def __enter__(self):
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(port),
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=self.root, env=self.environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_healthy(self.url)
        except RuntimeError:
            self.__exit__()
            raise
        if self.profile:  # where the server's interpreter lock goes (py-spy: pip install py-spy)
            self.spy = subprocess.Popen(["py-spy", "record", "--gil", "--nonblocking", "-r", "100", "-f", "raw",
                                         "-o", str(self.profile), "--pid", str(self.process.pid)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return self

    def __exit__(self, *exc):
        if self.spy is not None:
            self.spy.send_signal(2)  # SIGINT: py-spy writes its file
            self.spy.wait(timeout=60)
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _tree(pids):
    """The processes ``pids`` and their children: (cpu seconds, rss bytes, pss bytes) summed.

    PSS (proportional set size) shares each page among the processes that map it: the sum over a
    server and its worker processes counts the libraries they all load once, as the machine does.
    """
    try:
        import psutil
    except ImportError:
        return _tree_proc(pids)
    cpu = rss = pss = 0
    for pid in pids:
        try:
            root = psutil.Process(pid)
            for process in [root, *root.children(recursive=True)]:
                times, memory = process.cpu_times(), process.memory_full_info()
                cpu += times.user + times.system
                rss += memory.rss
                pss += getattr(memory, "pss", memory.rss)
        except psutil.Error:
            continue
    return cpu, rss, pss


def _tree_proc(pids):
    """:func:`_tree` from /proc (no psutil), children from /proc/<pid>/task/*/children."""
    tick = os.sysconf("SC_CLK_TCK")
    cpu = rss = pss = 0
    seen, todo = set(), list(pids)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / tick
            rollup = dict(line.split(":", 1) for line in pathlib.Path(f"/proc/{pid}/smaps_rollup").read_text()
                          .splitlines()[1:])
            rss += int(rollup["Rss"].split()[0]) * 1024
            pss += int(rollup["Pss"].split()[0]) * 1024
            for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError, IndexError, KeyError):
            continue
    return cpu, rss, pss


class Monitor(threading.Thread):
    """Samples CPU seconds and resident memory of some processes (and their children) every 0.2 s."""

    def __init__(self, pids):
        super().__init__(daemon=True)
        self.pids, self.stopped = list(pids), threading.Event()
        self.cpu0, self.rss0, self.pss0 = _tree(self.pids)
        self.cpu, self.peak, self.peak_pss = self.cpu0, self.rss0, self.pss0

    def run(self):
        while not self.stopped.wait(0.2):
            self._sample()

    def _sample(self):
        cpu, rss, pss = _tree(self.pids)
        self.cpu, self.peak, self.peak_pss = max(self.cpu, cpu), max(self.peak, rss), max(self.peak_pss, pss)

    def stop(self):
        self.stopped.set()
        self.join()
        self._sample()
