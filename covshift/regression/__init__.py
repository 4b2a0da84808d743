"""Regression models with importance weights: GPR, Twin GPs, weighted kNN, delta adaptation."""

from .gpr import GPR, tuned_gpr
from .kernel_dependence import HSICKNN, KTAKNN
from .knn import WKNN
from .tgp import TwinGP, rho_from_paper
from .transfer import DeltaAdapter

__all__ = ["GPR", "tuned_gpr", "TwinGP", "WKNN", "HSICKNN", "KTAKNN", "DeltaAdapter", "rho_from_paper"]
