"""Regression models with importance weights: GPR, Twin GPs, weighted kNN.

The delta-function regressor moved to :mod:`covshift.transfer` (``ResidualDeltaRegressor``)."""

from .gpr import GPR
from .knn import WKNN
from .tgp import TwinGP, rho_from_paper

__all__ = ["GPR", "TwinGP", "WKNN", "rho_from_paper"]
