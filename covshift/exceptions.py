"""The warnings and errors covshift raises: bad input is a ValueError, trouble worked around a warning.

Bad input raises :class:`ValueError`; numerical trouble that the code can work around
(underflowing kernels, an iteration budget that ran out) emits one of the warnings below and
returns a finite, sane result. The library only raises them, as scikit-learn does: a caller that
wants them as data records them with ``warnings.catch_warnings`` (``record=True``) around its
own calls (the teaching app: ``teaching.outcomes``).
"""

from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning


class ConvergenceWarning(_SklearnConvergenceWarning):
    """An iterative solver stopped at its iteration budget before its tolerance.

    A subclass of scikit-learn's ``ConvergenceWarning`` (itself a UserWarning), so that a
    filter for scikit-learn's warning (``warnings.simplefilter("ignore", ConvergenceWarning)``
    with sklearn's class) also catches covshift's.
    """


class NumericalWarning(UserWarning):
    """Numerical trouble was detected and worked around (see the message)."""


class SolverError(RuntimeError):
    """An optimisation library (cvxopt) failed; the message says what to change."""
