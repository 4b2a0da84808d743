"""Domain transfer with a few target labels.

* :class:`DomainTransferSSVM`: domain transfer structured output learning (Wang), a delta
  function w' Psi(x, y) on a source structured predictor, learned by Algorithm 1.
* :class:`StructuredSVM`: the generic 1-slack margin-rescaled structural SVM (cutting planes).
* :class:`MulticlassProblem`, :class:`MultilabelProblem`: output structures (0/1, Hamming loss).
* :class:`ResidualDeltaRegressor`: a regression analogue of the delta idea (not the paper's method).
* :mod:`covshift.transfer.data`: digits with a visible domain shift (source vs transformed target).
"""

from .problems import MulticlassProblem, MultilabelProblem, StructuredProblem
from .residual import ResidualDeltaRegressor
from ._working_set import CuttingPlaneHistory, cutting_plane
from .ssvm import DomainTransferSSVM, StructuredSVM

__all__ = ["DomainTransferSSVM", "StructuredSVM", "StructuredProblem", "MulticlassProblem",
           "MultilabelProblem", "ResidualDeltaRegressor", "CuttingPlaneHistory", "cutting_plane"]
