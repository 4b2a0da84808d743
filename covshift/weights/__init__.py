"""Importance-weight estimators w(x) = p_te(x) / p_tr(x)."""

from ._base import WeightEstimator
from .frank_wolfe import AFWCS, FCFWCS, FWCS, PFWCS, FrankWolfeHistory
from .kliep import KLIEP

__all__ = ["WeightEstimator", "KLIEP", "FWCS", "AFWCS", "PFWCS", "FCFWCS", "FrankWolfeHistory"]
