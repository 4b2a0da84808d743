"""The docstrings' Examples sections are doctests, run here so that README's ``pytest`` runs them
(``pytest --doctest-modules covshift`` runs the same examples). Outputs are printed as rounded
numbers, shapes or booleans, so they hold on any machine."""

import doctest
import importlib
import pkgutil
import warnings

import pytest

import covshift

MODULES = sorted(info.name for info in pkgutil.walk_packages(covshift.__path__, "covshift.")
                 if not any(part.startswith("_") for part in info.name.split(".")))


def _examples(module_name):
    module = importlib.import_module(module_name)
    return [test for test in doctest.DocTestFinder(exclude_empty=True).find(module, module_name)
            if test.examples]


WITH_EXAMPLES = [name for name in MODULES if _examples(name)]


def test_at_least_twenty_docstring_examples():
    count = sum(len(_examples(name)) for name in MODULES)
    assert count >= 20, f"only {count} docstrings have doctest examples"


def test_every_estimator_of_covshift_has_an_example():
    classes = [getattr(covshift, name) for name in covshift.__all__
               if isinstance(getattr(covshift, name), type) and not issubclass(getattr(covshift, name), Warning)]
    missing = [cls.__name__ for cls in classes if ">>>" not in (cls.__doc__ or "")]
    assert not missing, f"estimators without a doctest example: {missing}"


def test_every_estimator_names_its_paper_and_its_relatives():
    """Each estimator of ``covshift.__all__`` has a References section (its paper; the equation is named
    in the text) and a See Also section pointing to the related estimators."""
    classes = [getattr(covshift, name) for name in covshift.__all__
               if isinstance(getattr(covshift, name), type) and not issubclass(getattr(covshift, name), Warning)]
    lacking = {cls.__name__: [section for section in ("See Also", "References")
                              if f"\n    {section}\n    ---" not in (cls.__doc__ or "")] for cls in classes}
    assert not {name: sections for name, sections in lacking.items() if sections}


@pytest.mark.parametrize("module_name", WITH_EXAMPLES)
def test_docstring_examples_run(module_name):
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an example that warns shows a user a warning: say so in it
        for test in _examples(module_name):
            runner.run(test, out=lambda text: None)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples of {module_name} failed " \
                                f"(run: pytest --doctest-modules {module_name.replace('.', '/')}.py)"
