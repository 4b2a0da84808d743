"""covshift: covariate-shift adaptation for structured regression.

Importance weights w(x) = p_te(x) / p_tr(x) by KLIEP and its Frank-Wolfe solvers
(``covshift.weights``), data generators with known shift (``covshift.data``) and
model selection under shift (``covshift.model_selection``); domain transfer of structured
predictors with a few target labels (``covshift.transfer``).
"""

from . import classification, data, diagnostics, kernels, metrics, model_selection, pipeline, regression, transfer, weights
from .classification import IntegratedShiftClassifier, KernelLogisticRegression, TwoStageShiftClassifier
from .exceptions import ConvergenceWarning, NumericalWarning
from .regression import GPR, HSICKNN, KTAKNN, WKNN, TwinGP
from .transfer import DomainTransferSSVM, StructuredSVM
from .weights import AFWCS, FCFWCS, FWCS, KLIEP, KMM, PFWCS, ULSIF, EnsembleKMM, LogisticRatio, RuLSIF

__version__ = "0.1.0"
__all__ = ["classification", "data", "diagnostics", "kernels", "metrics", "model_selection", "pipeline", "regression",
           "transfer",
           "weights", "ConvergenceWarning", "NumericalWarning",
           # every estimator of README's table, importable as ``from covshift import KMM``
           "KLIEP", "FWCS", "AFWCS", "PFWCS", "FCFWCS", "KMM", "EnsembleKMM", "LogisticRatio", "ULSIF", "RuLSIF",
           "GPR", "TwinGP", "WKNN", "HSICKNN", "KTAKNN",
           "KernelLogisticRegression", "TwoStageShiftClassifier", "IntegratedShiftClassifier",
           "StructuredSVM", "DomainTransferSSVM"]
