"""Sphinx configuration of covshift's documentation (built offline: no intersphinx, no downloads).

Build with ``python -m sphinx -W -b html docs docs/_build/html`` (README); ``tests/covshift/test_docs.py`` runs
the same build in CI, so a warning, a broken cross-reference or a gallery example that raises fails it.
"""

import os
import sys
import warnings

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)  # the checked-out library, also without an editable install

import covshift  # noqa: E402

project = "covshift"
author = "covshift developers"
copyright = "covshift developers (MIT)"
version = release = covshift.__version__

# no sphinx.ext.mathjax: it loads MathJax from the network; equations are written as text
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
]

exclude_patterns = ["_build", "examples", "Thumbs.db", ".DS_Store"]  # examples/: the gallery's sources
templates_path = ["_templates"]
root_doc = "index"

# API reference: one page per public name, generated from the docstrings at every build
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
add_module_names = False

# numpydoc: the docstrings are checked, and a check that fails is a warning (so an error under -W)
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_validation_checks = {
    "GL06", "GL07", "GL08",                          # known sections, in order; every name has a docstring
    "SS01",                                          # a summary
    "PR01", "PR02", "PR03", "PR04", "PR06", "PR07",  # every parameter documented, in order, typed, described
    "RT01",                                          # a Returns section where something is returned
    "YD01",                                          # a Yields section for a generator
}
numpydoc_validation_exclude = {
    r"\.__init__$",
    # constants: numpydoc would check the docstring of their type (int, dict); theirs is a #: comment
    r"\.(MAX_TEST_POINTS|DEFAULT_PERMUTATIONS|CORRECTIONS|MASKED_CLASS_LABEL|ARM_LINKS|CLASSIFICATION_TASKS"
    r"|MAX_PARAMETER)$",
    # the output structures' overrides show (and are checked as) StructuredProblem's docstrings
    r"\.Multi(class|label)Problem\.\w+$",
}

# cross-references must resolve: a reference to a covshift name that does not exist is a warning;
# names of other libraries are plain text here (no network for their inventories)
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sklearn|joblib|dask|cvxopt|skada|matplotlib)(\..*)?"),
    (r"py:.*", r"(optional|default|callable|array-like|ndarray|float|int|str|bool|None|dict|list|tuple|object)"),
]

# gallery: every example runs at build time; one that raises fails the build
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "min_reported_time": 1,
    "write_computation_times": False,  # its page loads a table script from a CDN; the site stays offline
    "doc_module": (),
    "backreferences_dir": None,
    "capture_repr": (),
    "first_notebook_cell": None,
    "plot_gallery": "True",
}

# the user guide's static figures (``.. plot::``), drawn at build time from the library's own runs
plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]
plot_rcparams = {"figure.dpi": 100}

html_theme = "pydata_sphinx_theme"
html_title = f"covshift {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": True,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "guide/choosing": []}  # the estimator table gets the page's width
html_theme_options["header_links_before_dropdown"] = 3
html_show_sourcelink = False

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OMP_NUM_THREADS", "1")
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")


def _skip_foreign_member(app, what, name, obj, skip, options):
    """Document covshift's own methods only: scikit-learn's inherited ones (score of its mixins,
    the generated ``set_*_request`` of metadata routing) are documented by scikit-learn."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    module = getattr(obj, "__module__", None) or ""
    if module.startswith("sklearn"):
        return True
    return None


def _resolve_by_name(app, env, node, contnode):
    """Resolve a Python cross-reference that names a covshift object by another path.

    Each object has one page (``covshift.GPR``, not also ``covshift.regression.GPR``), while the
    docstrings name objects as their own module sees them (``GPR``, ``WeightEstimator``). A
    reference that Sphinx cannot resolve is resolved here when exactly one documented object has
    that last name; otherwise it stays unresolved and, under ``nitpicky`` and ``-W``, fails the build.
    """
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    if not (target.startswith("covshift.") or "." not in target):
        return None
    domain = env.get_domain("py")
    last = target.rsplit(".", 1)[-1]
    matches = [name for name, entry in domain.objects.items()  # an aliased entry is a page's canonical path
               if name.rsplit(".", 1)[-1] == last and name.startswith("covshift") and not entry.aliased]
    if len(matches) != 1:
        return None
    found = domain.resolve_any_xref(env, node["refdoc"], app.builder, matches[0], node, contnode)
    return found[0][1] if found else None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_member)
    app.connect("missing-reference", _resolve_by_name)
