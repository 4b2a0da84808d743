"""Serve a class from several app servers on one or more cores: N `streamlit run app.py` replicas behind nginx.

Starts ``--replicas`` app servers on free loopback ports (each with its own pool of fit
workers, COVSHIFT_WORKERS = cores / replicas unless set), writes an nginx configuration from
``nginx.conf.template`` beside this file (sticky sessions by cookie, the websocket proxied) into a
run directory and starts Debian's nginx on it. Then it either runs a command with ``{url}``,
``{pids}`` and ``{polls}`` (the poll store's URL) filled in (e.g. the class benchmark) and stops everything, or serves until
``--for`` seconds have passed or it is interrupted (Ctrl-C, SIGTERM). Every process it started is
stopped by its id.

    python deploy/serve.py --replicas 2 --port 8600 --warm                   # serve until Ctrl-C
    python deploy/serve.py --replicas 2 -- python bench/classroom.py --url {url} --pids {pids} --sizes 20

With ``--postgres`` the replicas share one poll store (Ask the class) in a throw-away PostgreSQL
(``deploy/postgres.py``: Debian's initdb and pg_ctl, as the ``postgres`` user when run as root), whose
URL they get as COVSHIFT_POLL_URL; without it they share the SQLite file of COVSHIFT_POLL_DB (WAL mode
lets processes of one machine write it), or COVSHIFT_POLL_URL if it is set.

    python deploy/serve.py --replicas 2 --postgres -- python bench/classroom.py --scenario poll --url {url} \\
        --polls-url {polls} --sizes 40 --section "Two replicas behind nginx, PostgreSQL"

On several machines: run ``streamlit run app.py`` on each (with COVSHIFT_DASK_SCHEDULER if the
fits go to a Dask cluster) and list them in the ``upstream`` block of the template.
"""

import argparse
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "deploy"))
import classroom  # noqa: E402  (warm: the class benchmark's own client)
from served import free_port, wait_healthy  # noqa: E402
import postgres  # noqa: E402  (LocalPostgres: the replicas' shared poll store)

NGINX = os.environ.get("NGINX", shutil.which("nginx") or "/usr/sbin/nginx")


def start_replica(port, workers, polls_url=None):
    environ = {**os.environ, "COVSHIFT_WORKERS": os.environ.get("COVSHIFT_WORKERS", str(workers))}
    if polls_url:
        environ["COVSHIFT_POLL_URL"] = polls_url
    return subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def nginx_config(run, listen, ports):
    servers = "\n".join(f"        server 127.0.0.1:{port};" for port in ports)
    template = (pathlib.Path(__file__).parent / "nginx.conf.template").read_text()
    return template.format(run=run, listen=listen, servers=servers)


def stop(process, seconds=15):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _sqlite_polls():
    """The SQLite poll store the replicas share without --postgres (the app's own default)."""
    sys.path.insert(0, str(ROOT))
    from teaching import polls  # noqa: E402  (imported here: only this line needs the app's packages)

    return polls.database_url()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--port", type=int, help="nginx's port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--warm", action="store_true", help="open every lesson once on each replica first")
    parser.add_argument("--postgres", action="store_true",
                        help="start a throw-away PostgreSQL for the replicas' shared poll store (Ask the class)")
    parser.add_argument("--for", dest="seconds", type=float, help="stop after this many seconds")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="run this, then stop ({url}, {pids}, {polls} filled in)")
    args = parser.parse_args()
    if not 1 <= args.replicas <= 16:
        raise SystemExit(f"--replicas must be in 1..16, got {args.replicas}")
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    workers = max(1, (os.cpu_count() or 1) // args.replicas)
    database = None
    if args.postgres:
        try:
            database = postgres.LocalPostgres().__enter__()
        except postgres.PostgresUnavailable as why:
            print(f"PostgreSQL unavailable: {why}", file=sys.stderr, flush=True)
            return 3
    polls_url = database.url if database else os.environ.get("COVSHIFT_POLL_URL") or _sqlite_polls()
    run = pathlib.Path(tempfile.mkdtemp(prefix="covshift-serve-"))
    ports = [free_port() for _ in range(args.replicas)]
    replicas = [start_replica(port, workers, database.url if database else None) for port in ports]
    proxy = None
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # run the finally below
    try:
        for port in ports:
            wait_healthy(f"http://127.0.0.1:{port}")
        listen = f"127.0.0.1:{args.port or free_port()}"
        (run / "nginx.conf").write_text(nginx_config(run, listen, ports))
        proxy = subprocess.Popen([NGINX, "-p", str(run), "-c", str(run / "nginx.conf"), "-g", "daemon off;"])
        url = f"http://{listen}"
        wait_healthy(url, 30)
        if args.warm:
            for port in ports:
                print(f"warmed 127.0.0.1:{port}:", classroom.warm(f"http://127.0.0.1:{port}"), flush=True)
        pids = [p.pid for p in replicas] + [proxy.pid]
        (run / "pids").write_text(" ".join(map(str, pids)))
        print(f"serving {url} ({args.replicas} replicas on ports {ports}, {workers} fit worker(s) each); "
              f"pids {' '.join(map(str, pids))}; run directory {run}; url={url} polls={polls_url}", flush=True)
        if command:
            filled = []
            for part in command:
                filled += [str(pid) for pid in pids] if part == "{pids}" else [
                    part.replace("{url}", url).replace("{polls}", polls_url)]
            return subprocess.run(filled, cwd=ROOT).returncode
        deadline = time.time() + args.seconds if args.seconds else None
        while deadline is None or time.time() < deadline:
            if any(p.poll() is not None for p in [*replicas, proxy]):
                raise SystemExit("a replica or nginx stopped; stopping the rest")
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        if proxy is not None:
            stop(proxy)
        for replica in replicas:
            stop(replica)
        if database is not None:
            database.__exit__()
        shutil.rmtree(run, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
