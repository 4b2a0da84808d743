"""Presentation (projector) mode as a mode of the whole page: text of the main area at >= 20 px, the sidebar
collapsed; and the page style of both modes (a compact top, readable captions, a visible keyboard focus, the
highlight of the lesson the view is)."""

import streamlit as st

from teaching.ui.state import get

#: The smallest font size (CSS px) of any text of the main area in presentation mode.
MIN_TEXT_PX = 20

# Both modes. The page starts under Streamlit's header bar (3.75rem) instead of 6rem down, so that a lesson's
# stage (figure, claim, control) fits a 1280 x 800 screen; captions and widget help in the body's text colour
# (Streamlit's faded grey is ~3.9:1 on white, below WCAG's 4.5:1) and keyboard focus drawn on links and buttons.
# Lesson links: Streamlit highlights every link to the current page; only the lesson the view is stays
# highlighted (its container's key says "active", see navigation._lesson_links). On a phone a figure's title
# (SVG text, which does not wrap) is set at 14 px, so that the longest (~50 characters) fits its ~360 px.
_BASE_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.75rem !important; padding-bottom: 4rem !important; }
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] *,
[data-testid="stWidgetLabel"] *, [data-testid="stMarkdownContainer"] small { color: inherit !important; opacity: 1 !important; }
[data-testid="stSidebar"] a:focus-visible, [data-testid="stMain"] a:focus-visible,
[data-testid="stPopoverBody"] a:focus-visible, button:focus-visible {
  outline: 3px solid #0072B2 !important; outline-offset: 2px !important; }
[class*="st-key-lesson-"][class*="-other-"] a[data-testid="stPageLink-NavLink"] { background-color: transparent !important; }
[class*="st-key-lesson-"][class*="-other-"] a[data-testid="stPageLink-NavLink"] p { font-weight: 400 !important; }
[class*="st-key-lesson-"][class*="-active-"] a[data-testid="stPageLink-NavLink"] {
  background-color: rgba(0, 114, 178, 0.14) !important; }
[class*="st-key-lesson-"][class*="-active-"] a[data-testid="stPageLink-NavLink"] p { font-weight: 700 !important; }
@media (max-width: 640px) { [data-testid="stMain"] .js-plotly-plot .gtitle { font-size: 14px !important; } }
</style>"""

# Every element of the main area at least MIN_TEXT_PX (max(1em, ...) keeps headings larger);
# headings keep their larger sizes; plotly's SVG text is left alone: teaching.figures.presentation sizes and lays it out.
_CSS = f"""<style>
[data-testid="stMain"] *:not(svg, svg *, h1, h1 *, h2, h2 *, h3, h3 *, h4, h4 *),
[data-testid="stPopoverBody"] * {{ font-size: max(1em, {MIN_TEXT_PX}px) !important; }}
[data-testid="stMain"] [data-testid="stTable"] td, [data-testid="stMain"] [data-testid="stTable"] th {{
  padding: 0.25rem 0.5rem !important; }}
[data-testid="stMain"] h1 {{ font-size: 2.4rem !important; padding: 0.5rem 0 0.75rem 0 !important; }}
</style>"""

# Run once when the view becomes another lesson: the page back at its top, and no link keeps the focus (or its
# tooltip) over the figure.
_TO_TOP = """<script>
(() => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (main) main.scrollTo({top: 0});
  window.scrollTo({top: 0});
  if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
})();
</script>"""


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
    st.html(_BASE_CSS)
    if on():
        st.html(_CSS)


def to_top():
    """Scroll the page to its top and take the focus off the clicked link (a lesson was chosen)."""
    counter = st.session_state.get("to_top", 0) + 1  # a new element each time, so that the script runs again
    st.session_state.to_top = counter
    st.html(f"{_TO_TOP}<!-- {counter} -->", unsafe_allow_javascript=True)
