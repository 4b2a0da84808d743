"""Warnings raised by covshift.

Bad input raises :class:`ValueError`; numerical trouble that the code can work
around (underflowing kernels, an iteration budget that ran out) emits one of the
warnings below and returns a finite, sane result.
"""


class ConvergenceWarning(UserWarning):
    """An iterative solver stopped at its iteration budget before its tolerance."""


class NumericalWarning(UserWarning):
    """Numerical trouble was detected and worked around (see the message)."""


class SolverError(RuntimeError):
    """An optimisation library (cvxopt) failed; the message says what to change."""
