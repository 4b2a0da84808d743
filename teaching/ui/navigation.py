"""Navigation: lessons and presets that open their page with every setting, the lesson's claims and banner, the sidebar."""

import streamlit as st

from teaching import catalog, lessons
from teaching.ui import presentation
from teaching.ui.state import apply, get, reset
from teaching.ui.widgets import widget

def open_lesson(title):
    """Every setting back to its default, then the lesson's settings; then its page.

    Starting from the defaults makes a lesson self-contained: clicking it after any other
    lesson gives the same view, URL and numbers as clicking it in a fresh session. Called
    from the script (not a button callback, where st.switch_page is not allowed) before the
    setting widgets of this run are drawn.
    """
    lesson = lessons.LESSONS[title]
    _open_view(lesson.settings, lesson.page)


def open_preset(label):
    """A sidebar preset, opened as a lesson is (:func:`open_lesson`): defaults, its settings, its page."""
    preset = catalog.PRESETS[label]
    changes = {"source": "built-in", **preset, **(catalog.paper_tgp_defaults(preset.get("dataset")) or {})}
    _open_view(changes, catalog.PRESET_PAGES[label])


def _open_view(settings_of_view, page):
    presentation = get("presentation")
    reset()
    apply({**settings_of_view, "presentation": presentation})
    st.switch_page(page, query_params=st.query_params.to_dict())


def active_lesson():
    """The lesson whose settings (except the seed) the current settings match, or None."""
    get("seed")  # a page run without app.py recovers here (see get)
    current = st.session_state.settings
    for lesson in lessons.LESSONS.values():
        if all(current.get(k) == v for k, v in lesson.settings.items() if k != "seed"):
            return lesson
    return None


def claims(figure):
    """Show the active lesson's claims about ``figure`` (each checked by tests/test_lessons.py),
    then an anchor the browser test scrolls to."""
    lesson = active_lesson()
    texts = lesson.claims_for(figure) if lesson is not None else []
    if texts:
        st.success(f"**{lesson.title}** (checked on seeds 0-2):\n" + "\n".join(f"- {t}" for t in texts),
                   icon=":material/check_circle:")
    st.markdown(f'<span id="view-{figure.replace(".", "-")}"></span>', unsafe_allow_html=True)


def lesson_banner():
    """Under a page title: which lesson the current settings are, if any."""
    lesson = active_lesson()
    if lesson is not None:
        st.info(f"**Lesson: {lesson.title}.** {lesson.summary} Its claims are the green boxes beside the figures.",
                icon=":material/school:")


def sidebar():
    """Shared sidebar: lessons, data set, seed, presentation switch, reset."""
    if presentation.on():
        _presentation_bar()  # before any setting widget: its lesson buttons reset them
    with st.sidebar:
        st.header("Lessons")
        _lesson_buttons("lesson")
        if catalog.PRESETS:
            st.header("More presets")
            for label in catalog.PRESETS:
                if st.button(label, key=f"preset.{label}", width="stretch",
                             help="Opens its page with these settings (every other setting back to its default)."):
                    open_preset(label)
        st.header("Data")
        widget(st.radio, "Source", "source", horizontal=True,
               help="Upload a CSV on the Data & shift page.")
        widget(st.selectbox, "Built-in data set", "dataset", format_func=lambda n: catalog.DATASETS[n][0])
        widget(st.number_input, "Seed", "seed",
               help="Draws new random data with the same settings; lesson claims are checked on seeds 0-2.")
        widget(st.toggle, "Presentation (projector)", "presentation",
               help="For a projector: the sidebar folds away (the arrow at the top left brings it back) and "
                    "every text, figure, line and marker is larger.")
        st.button("Reset to defaults", key="reset", width="stretch", on_click=reset)
        st.caption("Every setting is in the page address: copy the link to share exactly this view "
                   "(an uploaded CSV has to be uploaded again).")
    presentation.apply_mode()


def _lesson_buttons(prefix, tooltips=True):
    """One button per lesson (keys ``prefix.<lesson key>``): a click opens the lesson."""
    for title, lesson in lessons.LESSONS.items():
        if st.button(title, key=f"{prefix}.{lesson.key}", width="stretch",
                     help=lesson.summary if tooltips else None):
            open_lesson(title)


def _presentation_bar():
    """In presentation mode, above the page: the lessons and the way out, so that the folded
    sidebar need not be opened in front of the class."""
    lessons_column, leave_column, _ = st.columns([1, 1, 2])
    with lessons_column.popover("Lessons", icon=":material/school:", width="stretch"):
        _lesson_buttons("bar.lesson", tooltips=False)  # no tooltip left over the view
    leave_column.button("Leave presentation mode", key="presentation.leave", icon=":material/close_fullscreen:",
                        width="stretch", on_click=apply, args=({"presentation": False},))
