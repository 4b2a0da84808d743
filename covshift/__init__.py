"""covshift: covariate-shift adaptation for structured regression.

Importance weights w(x) = p_te(x) / p_tr(x) by KLIEP and its Frank-Wolfe solvers
(``covshift.weights``), data generators with known shift (``covshift.data``) and
model selection under shift (``covshift.model_selection``).
"""

from . import classification, data, kernels, metrics, model_selection, regression, weights
from .exceptions import ConvergenceWarning, NumericalWarning
from .weights import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS

__version__ = "0.1.0"
__all__ = ["classification", "data", "kernels", "metrics", "model_selection", "regression", "weights", "ConvergenceWarning",
           "NumericalWarning", "KLIEP", "FWCS", "AFWCS", "PFWCS", "FCFWCS"]
