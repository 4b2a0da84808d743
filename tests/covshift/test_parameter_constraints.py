"""Every estimator declares its parameters with scikit-learn's ``_parameter_constraints`` (issue 38).

scikit-learn's own ``check_param_validation`` (the check its estimators pass) sets every parameter to a
value of no valid type and to a valid type's invalid value, and requires ``fit`` to refuse each with an
``InvalidParameterError`` (a ValueError) naming the parameter and the estimator; it also requires one
constraint per constructor parameter. Booleans are no numbers here (``covshift._constraints.Number``).
"""

import pathlib

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

from covshift import (AFWCS, FCFWCS, FWCS, GPR, HSICKNN, KLIEP, KMM, KTAKNN, PFWCS, ULSIF, WKNN, DomainTransferSSVM,
                      EnsembleKMM, IntegratedShiftClassifier, KernelLogisticRegression, LogisticRatio, RuLSIF,
                      StructuredSVM, TwinGP, TwoStageShiftClassifier)
from covshift.pipeline import ImportanceReweighter, ReweightAdapter
from covshift.transfer import MulticlassProblem, MultilabelProblem, ResidualDeltaRegressor

LIBRARY = pathlib.Path(__file__).resolve().parents[2] / "covshift"

ESTIMATORS = [
    KLIEP(), FWCS(), AFWCS(), PFWCS(), FCFWCS(), KMM(), EnsembleKMM(), LogisticRatio(), RuLSIF(), ULSIF(),
    GPR(), TwinGP(), WKNN(), HSICKNN(), KTAKNN(),
    KernelLogisticRegression(), IntegratedShiftClassifier(), TwoStageShiftClassifier(),
    MulticlassProblem(2), MultilabelProblem(2), StructuredSVM(MulticlassProblem(2)),
    DomainTransferSSVM(StructuredSVM(MulticlassProblem(2)), MulticlassProblem(2)),
    ResidualDeltaRegressor(GPR()), ImportanceReweighter(KMM(), GPR()), ReweightAdapter(KMM()),
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_scikit_learn_param_validation(estimator):
    check_param_validation(type(estimator).__name__, estimator)


@pytest.mark.parametrize("estimator", [KMM(), GPR(), TwinGP(), KernelLogisticRegression()],
                         ids=lambda e: type(e).__name__)
def test_booleans_are_no_numbers(estimator):
    numeric = [name for name, value in estimator.get_params(deep=False).items()
               if isinstance(value, (int, float)) and not isinstance(value, bool)]
    assert numeric
    X = np.random.default_rng(0).normal(size=(12, 2))
    for name in numeric:
        with pytest.raises(InvalidParameterError, match=f"The '{name}' parameter of {type(estimator).__name__} "
                                                        "must be .* Got True instead"):
            clone(estimator).set_params(**{name: True}).fit(X, (X[:, 0] > 0).astype(int))


def test_no_hand_written_parameter_checks_are_left():
    assert len(list(LIBRARY.rglob("*.py"))) > 50  # the library itself is searched
    hits = [str(path.relative_to(LIBRARY)) for path in LIBRARY.rglob("*.py") if "def _check_params" in path.read_text()]
    assert not hits, hits
