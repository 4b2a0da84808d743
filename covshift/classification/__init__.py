"""Classification under covariate shift (discriminative-covariate-shift, Bickel, Brueckner and Scheffer).

- :class:`KernelLogisticRegression`: the iid baseline and the second stage of two-stage methods.
- :class:`TwoStageShiftClassifier`: any covshift weight estimator, then a weighted classifier.
- :class:`IntegratedShiftClassifier`: classifier and selector learned jointly (Optimization Problem 1).
"""

from ._newton import NewtonHistory
from ._objectives import joint_objective, weighted_logistic_objective
from .integrated import IntegratedShiftClassifier
from .logistic import KernelLogisticRegression
from .two_stage import TwoStageShiftClassifier

__all__ = ["KernelLogisticRegression", "TwoStageShiftClassifier", "IntegratedShiftClassifier",
           "NewtonHistory", "joint_objective", "weighted_logistic_objective"]
