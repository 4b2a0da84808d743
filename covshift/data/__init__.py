"""Seeded data generators with a known covariate shift, each returning a :class:`ShiftData`.

- ``covshift.data.shift``: the container, selection by the inputs, the sinc data;
- ``covshift.data.toys``: the Twin-GP papers' toys (S-shape, double S, circle) and the shifted digits;
- ``covshift.data.arm``: the planar arm (HumanEva stand-in);
- ``covshift.data.classification``: binary classification under sample-selection bias.
"""

from .arm import ARM_LINKS, arm_forward, arm_pose
from .classification import CLASSIFICATION_TASKS, classification_boundary, classification_task, shift_classification_2d
from .shift import (MAX_PARAMETER, GaussianRatio, SelectionRatio, ShiftData, gaussian_ratio, selection_bias,
                    sinc_function, sinc_shift)
from .toys import circle_outputs, digits_center, double_s, s_shape

__all__ = ["ShiftData", "GaussianRatio", "SelectionRatio", "gaussian_ratio", "sinc_function", "sinc_shift",
           "selection_bias", "s_shape", "double_s", "circle_outputs", "digits_center", "arm_forward", "arm_pose",
           "ARM_LINKS", "shift_classification_2d", "classification_boundary", "classification_task",
           "CLASSIFICATION_TASKS", "MAX_PARAMETER"]
