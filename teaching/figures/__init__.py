"""Figures of the app, one module per page: pure functions, results in, plotly ``go.Figure`` out.

Every method has one style (:mod:`.base`), reused by every figure: a colour (Okabe-Ito and Paul
Tol's colour-blind-safe palettes), a marker symbol and a line dash, so methods stay
distinguishable in grey-scale and for colour-blind readers. Figures are sized for a
projector at 1280 x 800 (base font 15 px, legends below the plot so they never cover the
title); :func:`presentation` enlarges fonts, lines and markers further.
"""

from teaching.figures.base import (TRAIN, TEST, TRUTH, METHOD_STYLES, STEP_MARKERS, BASE_FONT, TITLE_FONT,
                                   LAYOUT, HEIGHT, STYLE, color, METHOD_COLORS, style, line_style,
                                   marker_style, clean_log_axis, decades, finish, new_figure, coinciding,
                                   format_p, format_number)  # noqa: F401
from teaching.figures.screens import presentation, fit_height, phone  # noqa: F401
from teaching.figures.data import (first_component, density, input_densities, data_scatter, output_plane,
                                   shift_overview, error_by_width)  # noqa: F401
from teaching.figures.weights import (weights_vs_truth, weights_on_points, weight_histogram, alpha_stems,
                                      duality_gaps, active_set_sizes, inner_iterations, convergence,
                                      cv_curve)  # noqa: F401
from teaching.figures.replay import replay_height, replay_html, replay_payload  # noqa: F401
from teaching.figures.regression import (regression_fits, error_vs_certainty, error_by_certainty_bin,
                                         predicted_vs_true, digits_grid, scaling)  # noqa: F401
from teaching.figures.reproduction import (VERDICT_MARKS, reproduction_bars, reproduction_curve,
                                           reproduction_gaps, row_figure)  # noqa: F401
from teaching.figures.classification import CLASS_COLORS, classification_map, fig3_curves  # noqa: F401
from teaching.figures.transfer import (transfer_curves, transfer_digit_grid,
                                       cutting_plane_progress)  # noqa: F401
from teaching.figures.check import STATISTIC_LABELS, null_distribution, shifted_inputs  # noqa: F401
