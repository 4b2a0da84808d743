"""deploy/: the nginx configuration N replicas are served with is valid for Debian's nginx, and a small class
follows the lessons through nginx and two replicas (deploy/serve.py with bench/classroom.py)."""

import importlib.util
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _serve():
    spec = importlib.util.spec_from_file_location("serve", ROOT / "deploy" / "serve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_config_proxies_the_websocket_to_every_replica_with_sticky_sessions(tmp_path):
    text = _serve().nginx_config(tmp_path, "127.0.0.1:18600", [18601, 18602, 18603])
    assert [line.strip() for line in text.splitlines() if line.strip().startswith("server 127")] == [
        "server 127.0.0.1:18601;", "server 127.0.0.1:18602;", "server 127.0.0.1:18603;"]
    assert "hash $replica_key consistent;" in text
    assert "proxy_set_header Upgrade $http_upgrade;" in text
    assert "proxy_set_header Connection $connection_upgrade;" in text


def _require_nginx():
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not pathlib.Path(nginx).exists():
        pytest.skip("nginx is not installed (apt-get install nginx)")
    return nginx


def test_nginx_accepts_the_config(tmp_path):
    nginx = _require_nginx()
    (tmp_path / "nginx.conf").write_text(_serve().nginx_config(tmp_path, "127.0.0.1:18600", [18601, 18602]))
    checked = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_a_small_class_follows_the_lessons_through_nginx_and_two_replicas():
    # README's deployment, end to end: two `streamlit run app.py` replicas behind Debian's nginx (sticky
    # sessions, the websocket proxied), and three students following the three lessons over Streamlit's own
    # protocol: every page load and every seed change answered, no error
    _require_nginx()
    done = subprocess.run([sys.executable, "deploy/serve.py", "--replicas", "2", "--", sys.executable,
                           "bench/classroom.py", "--url", "{url}", "--pids", "{pids}", "--sizes", "3",
                           "--think", "0.5", "1.5", "--step-timeout", "240"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("N= 3 ")]
    assert len(lines) == 1, done.stdout[-3000:]
    assert " missing 0 errors 0 " in lines[0], lines[0]


def test_a_small_class_votes_through_nginx_and_two_replicas_into_postgresql():
    # Ask the class (issue 36) as README deploys it: two replicas behind nginx sharing a PostgreSQL poll store
    # (deploy/serve.py --postgres), three students voting over Streamlit's protocol while the stage refreshes its
    # tally (bench/classroom.py --scenario poll): every vote acknowledged and stored, the stage's tally caught up
    _require_nginx()
    done = subprocess.run([sys.executable, "deploy/serve.py", "--replicas", "2", "--postgres", "--", sys.executable,
                           "bench/classroom.py", "--scenario", "poll", "--url", "{url}", "--polls-url", "{polls}",
                           "--sizes", "3", "--output", "-"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    if done.returncode == 3 and "PostgreSQL unavailable" in done.stderr:
        pytest.skip(done.stderr.strip().splitlines()[-1])
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("N=  3 ")]
    assert len(lines) == 1, done.stdout[-3000:]
    assert " stored 3/3 errors 0 " in lines[0] and " tally None " not in lines[0], lines[0]
