"""Regression models with importance weights: GPR, Twin GPs, weighted kNN, HSIC-/KTA-KNN.

The delta-function regressor moved to :mod:`covshift.transfer` (``ResidualDeltaRegressor``)."""

from .gpr import GPR, tuned_gpr
from .kernel_dependence import HSICKNN, KTAKNN
from .knn import WKNN
from .tgp import TwinGP, rho_from_paper

__all__ = ["GPR", "tuned_gpr", "TwinGP", "WKNN", "HSICKNN", "KTAKNN", "rho_from_paper"]
