"""Thin Streamlit glue shared by the pages, split by job.

- :mod:`.state`: settings in session state and in the page address (a copied link reproduces the view);
- :mod:`.widgets`: widgets bound to settings, formatted tables;
- :mod:`.guard`: failures as one readable message;
- :mod:`.cache`: the view pipeline's cache (st.cache_data at one place) and the figure cache;
- :mod:`.data`: this session's data, weights and predictions through :mod:`teaching.views`;
- :mod:`.navigation`: lessons, claims, the sidebar; :mod:`.pages`: the list of pages.

Settings and their domains live in :mod:`teaching.settings`; the computations in :mod:`teaching.views`.
"""

from teaching.ui import cache as _cache  # noqa: F401  first: one BLAS thread per computation (see there)
from teaching.ui.state import (DEFAULTS, apply, get, init, link_notice, put, reset, sync_url,  # noqa: F401
                               through_app)
from teaching.ui.guard import PAGE_FAILED, guard, page_failed, quiet, run_each, show_warnings  # noqa: F401
from teaching.ui.widgets import show_table, widget  # noqa: F401
from teaching.ui.cache import chart, content_key, figure  # noqa: F401
from teaching.ui.data import (CSV_MISSING, csv_bytes, csv_missing, csv_table, current_data, data_name,  # noqa: F401
                              data_spec, digest, few_labels, load_data, prediction, refused_at_size, replay,
                              shared_sigma, sigma_setting, weighting_by_width, weighting_effect, weights)
from teaching.ui.data import (column_shift, cv_errors, inputs_in_units, model_hyper, output_names,  # noqa: F401
                              shift_test, weight_check)
from teaching.ui.data import csv_rows  # noqa: F401
from teaching.ui.pages import PAGES, pages  # noqa: F401
from teaching.ui.navigation import active_lesson, claims, lesson_banner, lesson_query, sidebar  # noqa: F401
