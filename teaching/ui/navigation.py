"""Navigation: lessons that open their page with every setting, the lesson's claims and banner, the sidebar."""

import streamlit as st

from teaching import catalog, lessons, settings
from teaching.ui import presentation
from teaching.ui.state import DEFAULTS, apply, get, reset
from teaching.ui.widgets import widget

def lesson_query(title):
    """The address (query parameters) of a lesson: every setting at its default but the lesson's,
    the presentation switch as it is. A fresh open of this address is the lesson."""
    return _view_query(lessons.LESSONS[title].settings)


def _view_query(settings_of_view):
    return settings.to_query({**DEFAULTS, **settings_of_view, "presentation": presentation.on()})


#: Settings that do not change what a lesson shows: the projector switch.
_NOT_THE_VIEW = ("presentation",)
#: Seeds on which every lesson's claims are checked (tests/test_lessons.py).
CHECKED_SEEDS = (0, 1, 2)


def _differences(lesson, current):
    """{setting: (the lesson's value, the current value)} for the settings of the view that
    differ from the lesson's (every other setting at its default); a seed in 0-2 is the lesson."""
    wanted = {**DEFAULTS, **lesson.settings}
    return {k: (wanted[k], current.get(k)) for k in wanted
            if k not in _NOT_THE_VIEW and current.get(k) != wanted[k]
            and not (k == "seed" and current.get(k) in CHECKED_SEEDS)}


def active_lesson():
    """The lesson whose view the current settings are (every setting equal to the lesson's,
    the others at their defaults, a seed in 0-2), or None."""
    get("seed")  # a page run without app.py recovers here (see get)
    current = st.session_state.settings
    for lesson in lessons.LESSONS.values():
        if not _differences(lesson, current):
            return lesson
    return None


def _nearest_lesson(page):
    """(lesson, differences) of the lesson of ``page`` the current settings are closest to, if they
    are closer to it than to the defaults, or None: the lesson this view probably started from."""
    current = st.session_state.settings
    from_defaults = sum(1 for k, v in DEFAULTS.items() if k not in _NOT_THE_VIEW and current.get(k) != v)
    near = [(lesson, _differences(lesson, current)) for lesson in lessons.LESSONS.values() if lesson.page == page]
    near = [pair for pair in near if len(pair[1]) < from_defaults]
    return min(near, key=lambda pair: len(pair[1])) if near else None


def claims(figure):
    """Show the active lesson's claims about ``figure`` (each checked by tests/test_lessons.py),
    then an anchor the browser test scrolls to."""
    lesson = active_lesson()
    shown = [claim for claim in lesson.claims if claim.figure == figure] if lesson is not None else []
    if shown:
        run = lessons.LessonRun(lesson, seed=st.session_state.settings["seed"])
        lines = [f"- {claim.text} {_measured(claim, run)}" for claim in shown]
        st.success(f"**{lesson.title}** (checked on seeds 0-2):\n" + "\n".join(lines),
                   icon=":material/check_circle:")
    st.markdown(f'<span id="view-{figure.replace(".", "-")}"></span>', unsafe_allow_html=True)


def _measured(claim, run):
    """The numbers behind ``claim``, computed by its own check on this view's data (the view pipeline's
    cache holds the fits the page drew, so this costs nothing more), as "(measured here: ...)"."""
    try:
        finding = claim.check(run)
    except ValueError as error:  # the time budget refused a fit the check needs
        return f"(not measured here: {error})"
    verdict = "" if finding.holds else " **: does not hold on this view**"
    numbers = lessons.describe(finding.numbers).replace("|", "\\|")  # a "|" would start a Markdown table
    return f"*(measured here: {numbers}){verdict}*"


def lesson_banner(page):
    """Under the title of ``page`` (its file, pages/<name>.py): which lesson the current settings are; or, when they differ from a
    lesson of this page in a few settings, that the view is no longer that lesson and what changed."""
    lesson = active_lesson()
    if lesson is not None:
        st.info(f"**Lesson: {lesson.title}.** {lesson.summary} Its claims are the green boxes beside the figures.",
                icon=":material/school:")
        return
    near = _nearest_lesson(page)
    if near is not None:
        lesson, changed = near
        listed = "; ".join(f"{name}: {_shown(now)} (lesson: {_shown(was)})" for name, (was, now) in changed.items())
        st.caption(f"This view started from the lesson *{lesson.title}* and differs from it in {listed}; the "
                   "lesson's claims are not shown, since they were checked on the lesson's settings. Its button "
                   "in the sidebar opens the lesson again.")


def _shown(value):
    return ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def sidebar():
    """Shared sidebar: lessons, data set, seed, presentation switch, reset."""
    if presentation.on():
        _presentation_bar()
    with st.sidebar:
        st.header("Lessons")
        _lesson_buttons()
        st.header("Data")
        widget(st.radio, "Source", "source", horizontal=True,
               help="Upload a CSV on the Data & shift page.")
        widget(st.selectbox, "Built-in data set", "dataset", format_func=lambda n: catalog.DATASETS[n][0])
        widget(st.number_input, "Seed", "seed",
               help="Draws new random data with the same settings; lesson claims are checked on seeds 0-2.")
        st.page_link("pages/check.py", label="Check this data", icon=":material/troubleshoot:",
                     help="Is there a shift, where, what the weights cost; a downloadable report.")
        widget(st.toggle, "Presentation (projector)", "presentation",
               help="For a projector: the sidebar folds away (the arrow at the top left brings it back) and "
                    "every text, figure, line and marker is larger.")
        st.button("Reset to defaults", key="reset", width="stretch", on_click=reset)
        st.caption("Every setting is in the page address: copy the link to share exactly this view "
                   "(an uploaded CSV has to be uploaded again).")
    presentation.apply_mode()


def _lesson_buttons(tooltips=True):
    """One link per lesson: its page at the lesson's address (:func:`lesson_query`), one browser
    history entry, the same view as a fresh open of that address."""
    for title, lesson in lessons.LESSONS.items():
        st.page_link(lesson.page, label=title, query_params=lesson_query(title), icon=":material/school:",
                     help=lesson.summary if tooltips else None)


def _presentation_bar():
    """In presentation mode, above the page: the lessons and the way out, so that the folded
    sidebar need not be opened in front of the class."""
    lessons_column, leave_column, _ = st.columns([1, 1, 2])
    with lessons_column.popover("Lessons", icon=":material/school:", width="stretch"):
        _lesson_buttons(tooltips=False)  # no tooltip left over the view
    leave_column.button("Leave presentation mode", key="presentation.leave", icon=":material/close_fullscreen:",
                        width="stretch", on_click=apply, args=({"presentation": False},))
