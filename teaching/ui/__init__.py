"""Thin Streamlit glue shared by the pages, split by job.

- :mod:`.state`: settings in session state and in the page address (a copied link reproduces the view);
- :mod:`.widgets`: widgets bound to settings, formatted tables;
- :mod:`.guard`: failures as one readable message;
- :mod:`.cache`: the view pipeline's cache (st.cache_data at one place) and the figure cache;
- :mod:`.session`: this session's :class:`teaching.view.View` (``ui.view()``), whose methods compute what a page shows;
- :mod:`.navigation`: lessons, claims, the sidebar; :mod:`.pages`: the list of pages;
- :mod:`.poll`: Ask the class (the instructor's poll on a lesson's stage, the students' join page), imported by
  the first poll (:func:`.navigation.ask_the_class`), not with the app: a first view has none.

What a server installs once (the step cache, the fit workers): :func:`teaching.serve.start`, called by app.py.

Settings and their domains live in :mod:`teaching.settings`; the computations in :mod:`teaching.view`.
"""

from teaching.ui.state import (DEFAULTS, apply, get, init, link_limits, link_notice, put, reset,  # noqa: F401
                               sync_url, through_app)
from teaching.ui.guard import PAGE_FAILED, guard, page_failed, quiet, refusal, run_each, show_warnings  # noqa: F401
from teaching.ui.widgets import show_table, widget  # noqa: F401
from teaching.ui.cache import chart, chart_config, content_key, device, figure, of_view, stage_height  # noqa: F401
from teaching.ui.session import (CSV_MISSING, csv_bytes, csv_missing, csv_table, current_data, data_name,  # noqa: F401
                              digest, stored_json, view)
from teaching.ui.pages import PAGES, pages  # noqa: F401
from teaching.ui.navigation import (active_lesson, apply_reveal, ask_the_class, claims, lesson_banner,  # noqa: F401
                                     lesson_query, lesson_summary, revealed, sidebar, stage_lesson)
