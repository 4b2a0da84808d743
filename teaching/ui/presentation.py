"""Presentation (projector) mode as a mode of the whole page: text of the main area at >= 20 px, the sidebar collapsed."""

import streamlit as st

from teaching.ui.state import get

#: The smallest font size (CSS px) of any text of the main area in presentation mode.
MIN_TEXT_PX = 20

# Every element of the main area at least MIN_TEXT_PX (max(1em, ...) keeps headings larger);
# headings keep their larger sizes; plotly's SVG text is left alone: teaching.figures.presentation sizes and lays it out.
_CSS = f"""<style>
[data-testid="stMain"] *:not(svg, svg *, h1, h1 *, h2, h2 *, h3, h3 *, h4, h4 *),
[data-testid="stPopoverBody"] * {{ font-size: max(1em, {MIN_TEXT_PX}px) !important; }}
[data-testid="stMain"] [data-testid="stTable"] td, [data-testid="stMain"] [data-testid="stTable"] th {{
  padding: 0.25rem 0.5rem !important; }}
</style>"""


def on():
    """Whether presentation mode is on in this run (the switch's state, which is new before the
    switch is drawn in the run that its click started)."""
    return bool(st.session_state.get("w.presentation", get("presentation")))


def apply_mode():
    """Lay out this run for the mode: with it on, the sidebar starts collapsed (also when a link
    with the mode on is opened fresh) and the main area's text is enlarged; with it off, the sidebar
    is shown again. Called on every run after the presentation switch has been drawn.

    Streamlit keeps a sidebar state that the viewer chose by hand (its collapse button) in the
    browser's local storage, and that choice wins over the page's initial state.
    """
    st.set_page_config(initial_sidebar_state="collapsed" if on() else "auto")
    if on():
        st.html(_CSS)
