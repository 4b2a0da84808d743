"""Every ```python block of README.md runs on its own: a fresh ``python -W error`` process (warnings are
errors), nothing from the other blocks, from the repository root so this checkout's packages are imported."""

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

import covshift
from covshift import weights

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"^```python\n(.*?)^```", README, flags=re.S | re.M)


def _first_line(code):
    return next(line for line in code.splitlines() if line.strip() and not line.startswith("#"))[:60]


def _missing_exports(code):
    """Names a block imports from ``covshift`` that covshift does not export yet but covshift.weights does
    (the exports arrive with another branch; once merged this is always empty)."""
    names = [alias.name for node in ast.walk(ast.parse(code)) if isinstance(node, ast.ImportFrom)
             and node.module == "covshift" for alias in node.names]
    return [n for n in names if not hasattr(covshift, n) and hasattr(weights, n)]


def test_readme_has_its_python_blocks():
    assert len(BLOCKS) >= 6  # weights, the estimator table, Dask, regression, classification, transfer


@pytest.mark.parametrize("code", BLOCKS, ids=[_first_line(b) for b in BLOCKS])
def test_readme_block_runs_alone_without_warnings(code):
    if "dask" in code:
        pytest.importorskip("distributed", reason="the Dask block needs pip install -e '.[dask]'")
    missing = _missing_exports(code)
    if missing:
        pytest.skip(f"covshift does not export {missing} yet (the exports land with another branch)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-W", "error", "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"README block failed:\n{code}\n--- stderr ---\n{done.stderr[-3000:]}"
    assert "Warning" not in done.stderr, done.stderr[-3000:]


def test_readme_gives_the_install_run_and_test_commands_and_ci_runs_that_test_command():
    """A new user's commands stand in README's bash blocks (install the app, run it; install the
    test tools, test), and .ci/run ends with the same test command (CI runs exactly what README
    tells a user to run)."""
    bash = "\n".join(re.findall(r"```bash\n(.*?)```", README, flags=re.S))
    for command in ('pip install -e ".[app]"', "streamlit run app.py", 'pip install -e ".[test]"', "pytest"):
        assert any(line.strip() == command for line in bash.splitlines()), command
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert ci[-1] == "pytest"
