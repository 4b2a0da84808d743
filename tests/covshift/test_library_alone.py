"""`pip install covshift` (no extra) installs numpy, scipy, scikit-learn, cvxopt and joblib only:
the library must import and fit without the app's streamlit, plotly and pandas (issue 32, item 4)."""

import os
import pathlib
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
APP_ONLY = ("streamlit", "plotly", "pandas", "sqlalchemy", "psycopg", "segno")  # the last three: the poll store

#: Run in a fresh interpreter in which the app's packages cannot be imported (as after `pip install .`).
WITHOUT_THE_APP = f"""
import importlib, importlib.abc, pkgutil, sys


class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {APP_ONLY!r}:
            raise ImportError(f"No module named {{name!r}}")  # as if not installed
        return None


sys.meta_path.insert(0, NotInstalled())
import covshift
for module in pkgutil.walk_packages(covshift.__path__, "covshift."):
    importlib.import_module(module.name)
import numpy as np
from covshift import FCFWCS, GPR
X_tr, X_te = np.linspace(0, 1, 30)[:, None], np.linspace(0.3, 1, 20)[:, None]
w = FCFWCS(sigma=0.3).fit(X_tr, X_te).weights_
GPR().fit(X_tr, np.sin(3 * X_tr[:, 0]), sample_weight=w).predict(X_te)
print("ok", sorted(m for m in {APP_ONLY!r} if sys.modules.get(m) is not None))
"""


def test_the_library_imports_and_fits_without_the_apps_packages():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", WITHOUT_THE_APP], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["ok", "[]"]


def test_the_dependencies_are_the_librarys_and_the_app_comes_with_an_extra():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {d.split(">")[0].split("<")[0].split("=")[0].split("[")[0] for d in project["dependencies"]}
    assert names == {"numpy", "scipy", "scikit-learn", "cvxopt", "joblib", "numba"}  # numba: the Frank-Wolfe loop
    app = {d.split(">")[0].split("[")[0] for d in project["optional-dependencies"]["app"]}
    assert app == set(APP_ONLY)
    assert "covshift[app]" in project["optional-dependencies"]["test"]  # .ci/run's ".[test]" gets the app
