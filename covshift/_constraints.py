"""The estimators' hyper-parameter constraints, in scikit-learn's declarative vocabulary.

Every estimator declares ``_parameter_constraints`` (one entry per constructor parameter) with
scikit-learn's ``Interval``, ``StrOptions``, ``HasMethods``, types and ``None``, and decorates
``fit`` with ``sklearn.base._fit_context``, which checks them before anything else: a bad value
is scikit-learn's ``InvalidParameterError`` (a ``ValueError``) naming the parameter, the
estimator, what it must be and what it got. Checks across parameters, which constraints cannot
express, stay as small code in ``fit`` with a ValueError of their own.

The one addition to scikit-learn's vocabulary is :class:`Number`: its ``Interval`` accepts
booleans (``True`` is the integer 1), and here ``True`` is not a width, a tolerance or a count.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ._validation import AUTO

__all__ = ["Number", "POSITIVE", "NON_NEGATIVE", "UNIT_OPEN", "count", "KERNEL_WIDTH", "RANDOM_STATE",
           "N_JOBS"]


class Number(Interval):
    """scikit-learn's ``Interval`` without booleans (``True`` and ``False`` satisfy no ``Number``)."""

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


#: A finite number > 0 (a tolerance, a penalty, a width).
POSITIVE = Number(Real, 0, None, closed="neither")
#: A finite number >= 0.
NON_NEGATIVE = Number(Real, 0, None, closed="left")
#: A number strictly between 0 and 1.
UNIT_OPEN = Number(Real, 0, 1, closed="neither")


def count(minimum=1):
    """An integer >= ``minimum`` (a number of iterations, neighbours, centres, folds)."""
    return Number(Integral, minimum, None, closed="left")


#: A kernel width: a positive number, or "auto" (the estimator's documented rule); None is not a width.
KERNEL_WIDTH = [POSITIVE, StrOptions({AUTO})]
#: scikit-learn's random_state, plus numpy's Generator: None, a seed in [0, 2**32 - 1] (what numpy's
#: RandomState takes), a RandomState, a Generator.
RANDOM_STATE = [None, Number(Integral, 0, 2**32 - 1, closed="both"), np.random.RandomState, np.random.Generator]
#: joblib's n_jobs: None (one), a positive number of workers, or a negative one (-1: all cores).
N_JOBS = [None, count(1), Number(Integral, None, -1, closed="right")]
