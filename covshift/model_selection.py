"""Model selection under covariate shift: the KLIEP width and importance-weighted cross-validation.

- :func:`kliep_sigma`, :func:`default_sigma_grid`: one kernel width for the whole KLIEP family
  (implemented in ``covshift.weights.sigma``, with the KLIEP solvers).
- :func:`iwcv_score`: importance-weighted cross-validation (Sugiyama, Krauledat and
  Mueller 2007) of a regression model, unbiased under covariate shift
  (``covshift.cross_validation``).
"""

from .cross_validation import held_out_log_likelihood, iwcv_score
from .weights.sigma import default_sigma_grid, kliep_sigma

__all__ = ["kliep_sigma", "default_sigma_grid", "iwcv_score", "held_out_log_likelihood"]
