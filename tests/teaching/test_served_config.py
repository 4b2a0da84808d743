"""The server's Streamlit options, as `streamlit run app.py` reads them from .streamlit/config.toml (issue 40)."""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

_READ = """
import json
from streamlit import config
config.get_config_options(force_reparse=True)
print(json.dumps({name: config.get_option(name) for name in
                  ("runner.postScriptGC", "server.fileWatcherType", "server.maxUploadSize")}))
"""


def test_streamlit_reads_the_servers_options_from_the_repository():
    """No full garbage collection after every script run (57 % of a class's interpreter-lock time with it), no
    source watcher (it doubled a burst's server CPU), uploads up to 20 MB: what Streamlit itself reads in the
    repository's root, where README's `streamlit run app.py` starts."""
    out = subprocess.run([sys.executable, "-c", _READ], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {
        "runner.postScriptGC": False, "server.fileWatcherType": "none", "server.maxUploadSize": 20}
