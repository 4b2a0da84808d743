"""How the page is shown on this device: presentation (projector) mode as a mode of the whole page (text of the
main area at >= 20 px, the sidebar collapsed), never on a phone (:func:`phone`: figures laid out for its width);
the students' link, which carries the lesson and never the device's mode; and the page style of both modes (a
compact top, readable captions, a visible keyboard focus, the highlight of the lesson the view is, spinners
where a figure is not drawn yet, one history entry per run of arrow keys on a slider)."""

import re
from urllib import parse

import streamlit as st

from teaching import settings
from teaching.ui.state import DEFAULTS, get

#: The smallest font size (CSS px) of any text of the main area in presentation mode.
MIN_TEXT_PX = 20

# Both modes. The page starts under Streamlit's header bar (3.75rem) instead of 6rem down, so that a lesson's
# stage (figure, claim, control) fits a 1280 x 800 screen; captions and widget help in the body's text colour
# (Streamlit's faded grey is ~3.9:1 on white, below WCAG's 4.5:1) and keyboard focus drawn on links and buttons.
# Lesson links: Streamlit highlights every link to the current page; only the lesson the view is stays
# highlighted (its container's key says "active", see navigation._lesson_links). On a phone a figure's title
# (SVG text, which does not wrap) is set at 14 px, so that the longest (~50 characters) fits its ~360 px, and an
# expander's figure gets nearly the whole width (its 1 rem padding left a plot area 275 px wide).
# Keyboard: every control of the main area draws a 3 px focus ring (#0072B2: 5.2:1 on white, WCAG asks 3:1), a
# slider's on its thumb (its input is visually hidden; Streamlit's own ring, half-transparent, is ~2:1);
# a folded sidebar (presentation mode) is hidden, so that Tab skips its controls instead of walking them
# unseen. Waiting: a chart not drawn yet, and a stage's figure column while the script runs and has not put a figure
# (or a refusal) there, show a grey area with a spinner.
_BASE_CSS = """<style>
/* covshift page style */
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
@media (max-width: 640px) { [data-testid="stMain"] .js-plotly-plot .gtitle { font-size: 14px !important; }
  [data-testid="stMain"] [data-testid="stExpanderDetails"] { padding-left: 0.25rem !important; padding-right: 0.25rem !important; } }
[data-testid="stMain"] input:focus-visible, [data-testid="stMain"] [role="slider"]:focus-visible,
[data-testid="stMain"] [role="combobox"]:focus-visible, [data-testid="stMain"] [role="radio"]:focus-visible,
[data-testid="stMain"] [role="checkbox"]:focus-visible, [data-testid="stMain"] [role="switch"]:focus-visible,
[data-testid="stMain"] label:has(input:focus-visible), [data-testid="stMain"] [tabindex="0"]:focus-visible,
[data-testid="stMain"] div:has(> div > input[type="range"]:focus-visible) {
  outline: 3px solid #0072B2 !important; outline-offset: 2px !important; }
[data-testid="stSidebar"][aria-expanded="false"] { visibility: hidden !important; }
body:has([data-testid="stStatusWidget"]) .st-key-stage [data-testid="stColumn"]:first-child:not(:has(.main-svg, iframe, [data-testid="stAlert"])),
[data-testid="stPlotlyChart"]:not(:has(.main-svg)) {
  min-height: 320px; position: relative; background: #f6f7f9; border-radius: 8px; }
body:has([data-testid="stStatusWidget"]) .st-key-stage [data-testid="stColumn"]:first-child:not(:has(.main-svg, iframe, [data-testid="stAlert"]))::after,
[data-testid="stPlotlyChart"]:not(:has(.main-svg))::after {
  content: ""; position: absolute; left: calc(50% - 22px); top: calc(50% - 22px); width: 36px; height: 36px;
  border: 4px solid #c9d3de; border-top-color: #0072B2; border-radius: 50%; animation: covshift-spin 0.9s linear infinite; }
body:has([data-testid="stStatusWidget"]) .st-key-stage [data-testid="stColumn"]:first-child:not(:has(.main-svg, iframe, [data-testid="stAlert"]))::before,
[data-testid="stPlotlyChart"]:not(:has(.main-svg))::before {
  content: "Drawing the figure…"; position: absolute; left: 0; right: 0; top: calc(50% + 30px); text-align: center;
  color: #262730; }
@keyframes covshift-spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .st-key-stage [data-testid="stColumn"]:first-child::after,
  [data-testid="stPlotlyChart"]::after { animation-duration: 3s; } }
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


#: User agents of phones (MDN: "Mobi" in the user agent), and of touch screens without a mouse to hover with.
_PHONE_AGENT = re.compile(r"Mobi|iPhone|iPod|Android.+Mobile")
_TOUCH_AGENT = re.compile(r"Mobi|iPhone|iPod|iPad|Android|Tablet")


def _user_agent():
    """The browser's User-Agent header, read once per session (a session is one browser tab: the header of its
    first request is the header of all): ``st.context.headers`` builds the request's headers anew at each call,
    and a lesson's run asks ~12 times (0.1 ms each)."""
    agent = st.session_state.get("user_agent")
    if agent is None:
        try:
            agent = st.context.headers.get("User-Agent", "") or ""
        except Exception:  # noqa: BLE001  no request (a test calling the page's code without a browser)
            return ""
        st.session_state["user_agent"] = agent
    return agent


def phone():
    """Whether the browser of this session is a phone's (its User-Agent header, st.context.headers).

    The device decides the layout of the figures, not the link: plotly lays out a figure's margins, legend
    rows and panel heights in the server, before it reaches the browser, so CSS alone (a media query) could
    only restyle text that plotly has already measured, and Streamlit has no public way to learn the
    viewport's width before the first figure is drawn; the user agent comes with the first request."""
    return bool(_PHONE_AGENT.search(_user_agent()))


def touch():
    """Whether the browser is a phone's or a tablet's: no pointer hovers, so plotly's toolbar would stay
    over the figure's title (it is not drawn there)."""
    return bool(_TOUCH_AGENT.search(_user_agent()))


#: Never in a link for the students: the projector's mode (a property of the screen, not of the view) and the
#: poll the instructor runs (its key controls the poll: Ask the class).
NOT_FOR_STUDENTS = ("presentation", "poll", "poll_key")


def students_query(lesson=None):
    """The query of the link for the students: with ``lesson`` (the lesson on the stage), its settings and
    the seed of this view, every other setting at its default (each student starts from the lesson and moves
    its controls); without, this view's settings. Never the presentation switch nor the poll
    (:data:`NOT_FOR_STUDENTS`)."""
    values = dict(st.session_state.settings)
    if lesson is not None:
        values = {**DEFAULTS, **lesson.settings, "seed": values.get("seed", DEFAULTS["seed"])}
    return settings.to_query({**values, **{name: DEFAULTS[name] for name in NOT_FOR_STUDENTS}})


def students_link(lesson=None):
    """The whole address of the students' link (:func:`students_query`) on this server and page."""
    here = parse.urlsplit(st.context.url or "")
    return parse.urlunsplit((here.scheme or "http", here.netloc, here.path or "/",
                             parse.urlencode(students_query(lesson), doseq=True), ""))


def students_link_box(lesson=None, where=None):
    """The students' link on the screen, with its copy button (st.code's), and what it is for."""
    where = where or st
    where.code(students_link(lesson), language=None, wrap_lines=True)
    where.caption(("It opens the lesson at its start, with this seed" if lesson is not None else
                   "It opens this view") + ", on any device: a phone gets figures laid out for its width. "
                  "It never carries presentation mode, which belongs to this screen.")


def on():
    """Whether presentation mode is on in this run (the switch's state, which is new before the
    switch is drawn in the run that its click started). Never on a phone: presentation belongs to the
    projector's device, not to a link (a copied presentation link opened on a phone gets the phone's layout)."""
    return bool(st.session_state.get("w.presentation", get("presentation"))) and not phone()


# One browser history entry per run of key presses (or drag) on a slider: Streamlit pushes an entry for every
# address the script writes, i.e. for every value an arrow key passes; a push that belongs to the same run of
# key presses on the same slider (no pause longer than 2 s) as the previous push replaces that entry instead.
_HISTORY = """<script>
(() => {
  if (window.covshiftHistory) return;
  window.covshiftHistory = true;
  const KEYS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End"];
  const slider = (e) => e.target.closest && e.target.closest('[role="slider"], input[type="range"]');
  let run = 0, target = null, last = -Infinity, pushed = -1;
  document.addEventListener("keydown", (e) => {
    const s = slider(e);
    if (!s || !KEYS.includes(e.key)) { if (!["Tab", "Shift"].includes(e.key)) last = -Infinity; return; }
    const now = performance.now();
    if (s !== target || now - last > 2000) run++;
    target = s; last = now;
  }, true);
  document.addEventListener("pointerdown", (e) => {  // a drag is one run; a click elsewhere ends the run
    const s = slider(e);
    if (s) { run++; target = s; last = Infinity; } else last = -Infinity;
  }, true);
  document.addEventListener("pointerup", () => { if (last === Infinity) last = performance.now(); }, true);
  const push = history.pushState.bind(history);
  history.pushState = (state, title, url) => {
    const current = performance.now() - last < 15000 ? run : -1;  // a push up to 15 s after the run's last key
    if (current > 0 && current === pushed) return history.replaceState(state, title, url);
    pushed = current;
    return push(state, title, url);
  };
})();
</script>"""


def apply_mode():
    """Lay out this run for the mode: with it on, the sidebar starts collapsed (also when a link
    with the mode on is opened fresh) and the main area's text is enlarged; with it off, the sidebar
    is shown again. Called on every run after the presentation switch has been drawn.

    Streamlit keeps a sidebar state that the viewer chose by hand (its collapse button) in the
    browser's local storage, and that choice wins over the page's initial state.
    """
    st.set_page_config(initial_sidebar_state="collapsed" if on() else "auto")
    st.html(_BASE_CSS)
    with st.sidebar:
        st.html(_HISTORY, unsafe_allow_javascript=True)
    st.html(_CSS if on() else "<style></style>")  # drawn in both modes: the elements after it keep their places


def to_top():
    """Scroll the page to its top and take the focus off the clicked link (a lesson was chosen)."""
    counter = st.session_state.get("to_top", 0) + 1  # a new element each time, so that the script runs again
    st.session_state.to_top = counter
    # at the end of the sidebar: an element that only some runs draw would shift every element after it, and
    # Streamlit re-creates an element whose place changed (a slider on the stage would lose the keyboard focus)
    with st.sidebar:
        st.html(f"{_TO_TOP}<!-- {counter} -->", unsafe_allow_javascript=True)
