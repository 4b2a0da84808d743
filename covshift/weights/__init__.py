"""Importance-weight estimators w(x) = p_te(x) / p_tr(x)."""

from ._base import WeightEstimator
from .discriminative import LogisticRatio
from .frank_wolfe import AFWCS, FCFWCS, FWCS, PFWCS, FrankWolfeHistory
from .kliep import KLIEP
from .kmm import KMM, EnsembleKMM
from .lsif import ULSIF, RuLSIF

__all__ = ["WeightEstimator", "KLIEP", "FWCS", "AFWCS", "PFWCS", "FCFWCS", "FrankWolfeHistory",
           "KMM", "EnsembleKMM", "LogisticRatio", "ULSIF", "RuLSIF"]
