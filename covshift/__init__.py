"""covshift: covariate-shift adaptation for structured regression.

Importance weights w(x) = p_te(x) / p_tr(x) by KLIEP and its Frank-Wolfe solvers
(``covshift.weights``), data generators with known shift (``covshift.data``) and
model selection under shift (``covshift.model_selection``); domain transfer of structured
predictors with a few target labels (``covshift.transfer``).
"""

from . import classification, data, diagnostics, kernels, metrics, model_selection, regression, transfer, weights
from .exceptions import ConvergenceWarning, NumericalWarning
from .weights import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS

__version__ = "0.1.0"
__all__ = ["classification", "data", "diagnostics", "kernels", "metrics", "model_selection", "regression", "transfer", "weights", "ConvergenceWarning",
           "NumericalWarning", "KLIEP", "FWCS", "AFWCS", "PFWCS", "FCFWCS"]
