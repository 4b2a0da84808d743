"""Warnings stay with their call: the library only raises them; the app records its own calls' (issue 9 item 4,
issue 28 item 4)."""

import pathlib
import re
import threading
import warnings

import numpy as np
import pytest

from teaching.outcomes import recorded, run_with_warnings, silenced
from covshift.exceptions import NumericalWarning
from covshift.weights import FWCS, KLIEP

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _in_threads(*functions):
    """Run each function in its own thread under the app's warning capture, all started together; their messages."""
    barrier = threading.Barrier(len(functions))
    results = [None] * len(functions)

    def run(i):
        barrier.wait(timeout=30)  # every thread starts its capture at the same moment
        results[i] = run_with_warnings(functions[i])[2]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(functions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def test_two_threads_fitting_different_estimators_never_see_each_others_warnings():
    rng = np.random.default_rng(0)
    X_tr, X_te = rng.normal(size=(60, 1)), rng.normal(0.3, 0.5, size=(40, 1))
    far = np.vstack([X_te, [[50.0]]])  # one test point outside the training support
    for _ in range(3):
        fw, kliep = _in_threads(lambda: FWCS(sigma=0.5, max_iter=1, tol=1e-12).fit(X_tr, X_te),
                                lambda: KLIEP(sigma=0.5, n_centers=None).fit(X_tr, far))
        assert any("FWCS stopped" in m for m in fw)
        assert not any("centres" in m for m in fw)
        assert any("1 of 41 Gaussian centres" in m for m in kliep)
        assert not any("FWCS" in m for m in kliep)


def _warn_same(text):
    warnings.warn(text, NumericalWarning)  # one source location for every caller


def test_the_same_warning_in_two_threads_reaches_both_recorders():
    # a "default"/"once" filter would record the location as shown and drop the second one
    for _ in range(3):
        first, second = _in_threads(lambda: _warn_same("same text"), lambda: _warn_same("same text"))
        assert first == ["same text"] and second == ["same text"]


def test_silenced_warnings_are_dropped_and_recorded_ones_kept():
    with silenced():
        _warn_same("discarded")
    with recorded() as caught:
        _warn_same("kept")
    assert [str(w.message) for w in caught] == ["kept"]
    assert caught[0].category is NumericalWarning


def test_recording_leaves_global_warning_state_as_it_was():
    before, shown = list(warnings.filters), warnings.showwarning
    with recorded():
        _warn_same("inside")
    assert warnings.filters == before and warnings.showwarning is shown
    with pytest.warns(NumericalWarning, match="after"):
        _warn_same("after")


def test_the_library_only_raises_warnings():
    """No module of covshift replaces warnings.showwarning or calls a private function of warnings."""
    for path in (ROOT / "covshift").rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"warnings\.showwarning\s*=|showwarning\s*=", text), path
        assert not re.search(r"warnings\._[a-z]", text), path


def test_convergence_warning_is_caught_by_a_filter_for_scikit_learns():
    from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning

    from covshift.exceptions import ConvergenceWarning

    assert issubclass(ConvergenceWarning, SklearnConvergenceWarning)
    assert issubclass(NumericalWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", SklearnConvergenceWarning)  # the user's filter for sklearn's
        KLIEP(sigma=0.5, max_iter=1).fit(np.linspace(0, 1, 30)[:, None], np.linspace(0.2, 0.8, 20)[:, None])
    with pytest.warns(SklearnConvergenceWarning, match="KLIEP stopped"):
        KLIEP(sigma=0.5, max_iter=1).fit(np.linspace(0, 1, 30)[:, None], np.linspace(0.2, 0.8, 20)[:, None])


def test_every_estimator_of_the_readme_table_imports_from_covshift():
    import covshift
    from covshift import (AFWCS, FCFWCS, FWCS, GPR, KLIEP, KMM, PFWCS, ULSIF, WKNN, EnsembleKMM,  # noqa: F401
                          LogisticRatio, RuLSIF, TwinGP)
    from covshift import weights

    for name in ["KLIEP", "FWCS", "AFWCS", "PFWCS", "FCFWCS", "KMM", "EnsembleKMM", "LogisticRatio", "ULSIF",
                 "RuLSIF", "GPR", "TwinGP", "WKNN", "KernelLogisticRegression", "DomainTransferSSVM"]:
        assert name in covshift.__all__ and hasattr(covshift, name)
    assert KMM is weights.KMM
