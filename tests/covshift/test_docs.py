"""The documentation site (docs/): every public name has an API page, and the site builds with
warnings as errors (README's command), its gallery examples run and draw their figures.

The build test skips, with its reason, when the ``docs`` extra is not installed; ``.ci/run``
installs it, so in CI a warning, a broken cross-reference or a gallery example that raises fails.
"""

import importlib
import importlib.util
import inspect
import pathlib
import re
import subprocess
import sys
import time

import pytest

import covshift

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Modules whose public names the API reference lists (covshift.__all__'s modules and the public
#: modules users import from: README's ``covshift.transfer.data``, the guide's replay data).
MODULES = ["covshift.weights", "covshift.weights.replay", "covshift.model_selection", "covshift.diagnostics",
           "covshift.pipeline", "covshift.regression", "covshift.classification", "covshift.transfer",
           "covshift.transfer.data", "covshift.data", "covshift.metrics", "covshift.kernels",
           "covshift.exceptions"]
GALLERY_MINIMUM = 8


def _documented():
    """(module, name) of every entry of an autosummary table in docs/api.rst."""
    entries, module = [], None
    for line in (DOCS / "api.rst").read_text().splitlines():
        if match := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = match.group(1)
        elif module and (match := re.match(r"   ([A-Za-z_]\w*)$", line)):
            entries.append((module, match.group(1)))
    return entries


def _public_names(module_name):
    """``__all__``, or the public classes and functions the module defines itself."""
    module = importlib.import_module(module_name)
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, value in vars(module).items() if not name.startswith("_")
            and (inspect.isclass(value) or inspect.isfunction(value)) and value.__module__ == module_name]


def test_api_reference_lists_every_public_name():
    documented = _documented()
    pages = {id(getattr(importlib.import_module(module), name)) for module, name in documented
             if not isinstance(getattr(importlib.import_module(module), name), (int, float, str, tuple, dict))}
    names = {(module, name) for module, name in documented}
    missing = [f"covshift.{name}" for name in covshift.__all__
               if not inspect.ismodule(getattr(covshift, name)) and ("covshift", name) not in names]
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in _public_names(module_name):
            value = getattr(module, name)
            if (module_name, name) not in names and id(value) not in pages:
                missing.append(f"{module_name}.{name}")
    assert not missing, f"public names without an API page (add them to docs/api.rst): {missing}"


def test_api_reference_pages_are_not_listed_twice():
    documented = _documented()
    assert len(documented) == len(set(documented))
    objects = [getattr(importlib.import_module(module), name) for module, name in documented]
    classes_and_functions = [id(o) for o in objects if inspect.isclass(o) or inspect.isfunction(o)]
    assert len(classes_and_functions) == len(set(classes_and_functions)), "one object, two pages"


DOCS_PACKAGES = ["sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme", "matplotlib"]


@pytest.mark.slow
@pytest.mark.skipif(any(importlib.util.find_spec(p) is None for p in DOCS_PACKAGES),
                    reason='the documentation build needs the docs extra: pip install -e ".[docs]"')
def test_site_builds_without_warnings(tmp_path):
    """README's command into a temporary folder: -W turns every warning into an error (numpydoc's
    docstring checks, unresolved cross-references, a gallery example that raises)."""
    started = time.perf_counter()
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q",
                            str(DOCS), str(tmp_path / "html"), "-d", str(tmp_path / "doctrees")],
                           cwd=ROOT, capture_output=True, text=True, timeout=1200)
    seconds = time.perf_counter() - started
    assert build.returncode == 0, f"the documentation build failed:\n{build.stderr[-6000:]}"
    html = tmp_path / "html"
    assert (html / "index.html").exists()
    pages = [html / "generated" / f"{module}.{name}.html" for module, name in _documented()]
    assert not [p.name for p in pages if not p.exists()], "API pages missing from the build"
    examples = sorted((DOCS / "examples").glob("plot_*.py"))
    assert len(examples) >= GALLERY_MINIMUM
    for example in examples:
        page = html / "auto_examples" / f"{example.stem}.html"
        assert page.exists(), f"{example.name} has no page"
        assert re.search(rf'src="[^"]*sphx_glr_{example.stem}_\d+\.png"', page.read_text()), \
            f"{example.name} drew no figure"
    print(f"documentation built in {seconds:.0f} s: {len(pages)} API pages, {len(examples)} gallery examples")
