"""Navigation: lessons that open their page with every setting, the lesson's claims and banner, the sidebar."""

import streamlit as st

from teaching import catalog, glossary, lessons, settings
from teaching.ui import presentation
from teaching.ui.pages import PAGES
from teaching.ui.state import DEFAULTS, apply, get, replace_all, reset
from teaching.ui.widgets import widget

def lesson_query(title):
    """The address (query parameters) of a lesson: every setting at its default but the lesson's,
    the presentation switch as it is. A fresh open of this address is the lesson."""
    return dict(_LESSON_QUERIES[title, presentation.on()])


def _view_query(settings_of_view, presentation_on):
    return settings.to_query({**DEFAULTS, **settings_of_view, "presentation": presentation_on})


#: Every lesson's address, presentation off and on: constants (the sidebar draws every lesson's link on every run of
#: every page, 14 encodings of ~80 settings each time).
_LESSON_QUERIES = {(title, on): _view_query(lesson.settings, on) for title, lesson in lessons.LESSONS.items()
                   for on in (False, True)}


#: Settings that do not change what a lesson computes: the projector switch, the poll asked on it (Ask the
#: class), the replay's position and whether the KLIEP lesson's stage shows the replay or the gaps (where the
#: eye is, not what is claimed).
_NOT_THE_VIEW = ("presentation", "poll", "poll_key", "step", "weights_stage")
#: Seeds on which every lesson's claims are checked (tests/teaching/test_lessons.py).
CHECKED_SEEDS = (0, 1, 2)
#: The page of each figure key's prefix (claims name their figure, e.g. "weights.gap").
_FIGURE_PAGES = {"home": "pages/home.py", "weights": "pages/weights.py", "regression": "pages/regression.py",
                 "classification": "pages/classification.py"}


def _compared(lesson, name):
    """Whether setting ``name`` decides if a view is ``lesson`` (not the projector switch, not a setting the
    lesson invites the student to change, and one its page reads)."""
    if name in _NOT_THE_VIEW or name in lesson.invites:
        return False
    return not lesson.compares or name.startswith(lesson.compares)


def _differences(lesson, current):
    """{setting: (the lesson's value, the current value)} for the settings of the view that
    differ from the lesson's (every other setting at its default); a seed in 0-2 is the lesson."""
    return {k: (value, current.get(k)) for k, value in _wanted(lesson)
            if current.get(k) != value and not (k == "seed" and current.get(k) in CHECKED_SEEDS)}


#: id(lesson) -> (lesson, :func:`_wanted`'s pairs): every run of a page asks which lesson its view is about ten times,
#: each over every lesson's ~80 settings.
_WANTED = {}


def _wanted(lesson):
    """[(setting, the lesson's value)] of the settings that decide whether a view is ``lesson`` (:func:`_compared`),
    in the order of DEFAULTS then the lesson's own: worked out once per lesson (its settings are constants)."""
    found = _WANTED.get(id(lesson))
    if found is None or found[0] is not lesson:
        wanted = {**DEFAULTS, **lesson.settings}
        found = _WANTED[id(lesson)] = (lesson, [(k, v) for k, v in wanted.items() if _compared(lesson, k)])
    return found[1]


def changes(lesson, current=None):
    """{setting: (the lesson's value, the current value)} of the settings the lesson invites the student
    to change that the view has changed."""
    current = st.session_state.settings if current is None else current
    wanted = {**DEFAULTS, **lesson.settings}
    return {k: (wanted[k], current.get(k)) for k in lesson.invites if current.get(k) != wanted[k]}


def active_lesson(page=None):
    """The lesson whose view the current settings are (every setting it compares equal to the lesson's,
    the others at their defaults, a seed in 0-2; the settings it invites to change may differ), or None.
    ``page``: only a lesson of this page (its file) counts; None: the page this run draws (see
    :func:`current_page`)."""
    get("seed")  # a page run without app.py recovers here (see get)
    page = page or current_page()
    current = st.session_state.settings
    for lesson in lessons.LESSONS.values():
        if (page is None or lesson.page == page) and not _differences(lesson, current):
            return lesson
    return None


def current_page():
    """The file of the page this run draws (set by :func:`sidebar` from app.py's navigation), or None."""
    return st.session_state.get("current_page")


def _nearest_lesson(page):
    """(lesson, differences) of the lesson of ``page`` the current settings are closest to, if they
    are closer to it than to the defaults, or None: the lesson this view probably started from."""
    current = st.session_state.settings
    from_defaults = sum(1 for k, v in DEFAULTS.items() if k not in _NOT_THE_VIEW and current.get(k) != v)
    near = [(lesson, _differences(lesson, current)) for lesson in lessons.LESSONS.values() if lesson.page == page]
    near = [pair for pair in near if len(pair[1]) < from_defaults]
    return min(near, key=lambda pair: len(pair[1])) if near else None


def stage_lesson(page):
    """The lesson whose stage ``page`` lays out: the active lesson, else the lesson this view started
    from (:func:`_nearest_lesson`), else None (the page's own first screen)."""
    lesson = active_lesson(page)
    if lesson is None:
        near = _nearest_lesson(page)
        lesson = near[0] if near else None
    return lesson


def revealed(lesson, current=None):
    """Whether the view has ``lesson``'s reveal applied: every setting of the reveal at the reveal's value."""
    current = st.session_state.settings if current is None else current
    return lesson.reveal is not None and all(current.get(k) == v for k, v in lesson.reveal.changes.items())


def apply_reveal(lesson):
    """Apply ``lesson``'s reveal (what its banner invites: :attr:`teaching.lessons.Lesson.reveal`): its one or two
    settings take the reveal's values, every other setting stays, so the view stays the lesson (a reveal changes
    only settings the lesson invites). The address is written once: one browser history entry, which Back undoes.

    Call it as a button's ``on_click`` callback (before the widgets are drawn), as the stage's "Show me" does:
    ``st.button("Show me", on_click=apply_reveal, args=(lesson,))``."""
    replace_all({**st.session_state.settings, **lesson.reveal.changes})


def _back_to_lesson(lesson):
    """Undo ``lesson``'s reveal: the reveal's settings back at the lesson's values (one history entry)."""
    replace_all({**st.session_state.settings, **{k: lesson.settings[k] for k in lesson.reveal.changes}})


def claims(figure):
    """Show the active lesson's claims about ``figure`` (each checked by tests/teaching/test_lessons.py over seeds 0-2),
    re-checked here on this view's data, also after a change the lesson invites; after its reveal, the reveal's
    claims first. A claim that holds here is shown under a check mark, with its numbers; a claim this view does
    not bear out is shown apart, in its own style, with the sentence that says why (the setting it was checked
    for). Then an anchor the browser test scrolls to."""
    lesson = active_lesson(_FIGURE_PAGES.get(figure.split(".")[0]))
    if lesson is not None:
        if figure == lesson.main_view:  # on the stage, beside the figure: the words its claims use
            _words(lesson)
        shown = ([claim for claim in lesson.reveal.claims if claim.figure == figure] if revealed(lesson) else []) \
            + [claim for claim in lesson.claims if claim.figure == figure]
        if shown:
            _claim_boxes(lesson, shown, figure)
    st.markdown(f'<span id="view-{figure.replace(".", "-")}"></span>', unsafe_allow_html=True)


def _claim_boxes(lesson, shown, figure):
    """The claims ``shown`` of ``lesson`` checked on this view: those that hold in one box under a check mark,
    those that do not (or could not be measured) in a box of their own, with the reason (:func:`_why_not`)."""
    changed = changes(lesson)
    run = lessons.LessonRun(lesson, seed=st.session_state.settings["seed"],
                            changes={k: now for k, (_, now) in changed.items()})
    checked = [(claim, *_finding(claim, run)) for claim in shown]
    holding = [f"- {claim.text} *(measured here: {numbers})*" for claim, finding, numbers in checked
               if finding is not None and finding.holds]
    if holding:
        where = ("checked on seeds 0-2" if not changed else
                 f"checked on seeds 0-2; re-checked here with {_values(changed, 1)}")
        after = ", after *Show me*" if revealed(lesson) else ""
        st.success(f"**{lesson.title}**{after} ({where}):\n" + "\n".join(holding), icon=":material/check_circle:")
    failing = [(claim, finding, numbers) for claim, finding, numbers in checked if finding is None or not finding.holds]
    if failing:
        with st.container(border=True, key=f"claims-not-holding-{figure.replace('.', '-')}"):
            st.markdown(":material/block: **Not on this view.** " + _why_not(lesson, changed) + "\n"
                        + "\n".join(f"- {claim.text} *({'measured here: ' if finding else ''}{numbers})*"
                                     for claim, finding, numbers in failing))


def _why_not(lesson, changed):
    """The sentence that says why the lesson's claims below do not hold on this view."""
    if not changed:
        return "These claims do not hold on this view's data:"
    return (f"Checked for {_values(changed, 0)}; with {_values(changed, 1)} the data do not bear them out."
            + (f" {lesson.reveal.sees}" if revealed(lesson) else ""))


def _values(changed, which):
    """The changed settings in words with their lesson's (``which`` 0) or current (1) values: "the input width 2"."""
    return " and ".join(f"{settings.label(name)} {_value(name, pair[which])}" for name, pair in changed.items())


def _value(name, value):
    """A setting's value in a sentence: a number, a name or an output as it is, a choice said in words between
    quotes ("the kernel width rule “one width for all”")."""
    words = settings.spoken(name, value)
    return f"“{words}”" if isinstance(value, str) and value in settings.VALUE_WORDS.get(name, {}) else words


def _finding(claim, run):
    """(Finding, its numbers as text) of ``claim`` computed by its own check on this view's data (the view
    pipeline's cache holds the fits the page drew, so this costs nothing more); (None, the refusal) when the
    time budget refused a fit the check needs."""
    try:
        finding = claim.check(run)
    except ValueError as error:
        return None, f"not measured here: {error}"
    return finding, lessons.describe(finding.numbers).replace("|", "\\|")  # a "|" would start a Markdown table


def said(changed):
    """What a student changed, in words: "you set the input width to 0.3; the lesson uses 2"."""
    return "; ".join(f"you set {settings.label(name)} to {_value(name, now)}; the lesson uses {_value(name, was)}"
                     for name, (was, now) in changed.items())


def lesson_banner(page):
    """Under the title of ``page`` (its file, pages/<name>.py), while the view is one of its lessons: one line
    (which lesson, what to look at, the control to move), what the student changed in words, the "Show me"
    button that applies the lesson's reveal (:func:`apply_reveal`) and, after it, what the eye now sees. When the settings differ from a lesson of this
    page in a few settings it does not invite, that the view is no longer that lesson and what changed.

    Returns the banner's button column (for the stage's "Ask the class", :func:`ask_the_class`)
    while the view is a lesson, else None. While a poll is in the address its "Reveal" is the way to the reveal:
    no "Show me" then (voting would stay open behind a revealed figure)."""
    lesson = active_lesson(page)
    if lesson is not None:
        changed = changes(lesson)
        shown = revealed(lesson)
        if shown:
            rest = {k: pair for k, pair in changed.items() if k not in lesson.reveal.changes}
            note = f" **You now see:** {lesson.reveal.sees}" + (f" *{_capital(said(rest))}.*" if rest else "")
        else:
            note = f" *{_capital(said(changed))}: its claims are re-checked on this view.*" if changed else ""
        text, button = st.columns([5, 1], vertical_alignment="center")
        invitation = "" if shown else f" {lesson.banner or lesson.summary}"  # once revealed, what it shows instead
        text.info(f"**Lesson: {lesson.title}.**{invitation}{note}", icon=":material/school:")
        reveal_words = _values({k: (lesson.settings[k], v) for k, v in lesson.reveal.changes.items()}, 1)
        lesson_words = _values({k: (v, lesson.settings[k]) for k, v in lesson.reveal.changes.items()}, 1)
        if shown:
            button.button("Lesson's view", key="lesson.unreveal", icon=":material/undo:", width="stretch",
                          on_click=_back_to_lesson, args=(lesson,),
                          help=f"Back to {lesson_words}, the lesson's settings (the browser's Back does the same).")
        elif not get("poll"):
            button.button("Show me", key="lesson.show_me", icon=":material/visibility:", width="stretch",
                          type="primary", on_click=apply_reveal, args=(lesson,),
                          help=f"What the banner invites: sets {reveal_words}, and the claims that hold then. "
                               "The browser's Back undoes it.")
        return button
    near = _nearest_lesson(page)
    if near is not None:
        lesson, changed = near
        st.caption(f"This view started from the lesson *{lesson.title}*, but {said(changed)}: the lesson's claims "
                   "are not shown, since they were checked on the lesson's settings. Its link in the sidebar opens "
                   "the lesson again.")


def ask_the_class(page, beside=None):
    """On a lesson's stage (``page``, its file): "Ask the class" if the lesson the view is has a question (in
    ``beside``, the banner's button column that :func:`lesson_banner` returns, so that the stage's figure stays on
    the first screen); with a poll in the address, the poll's panel (:func:`teaching.ui.poll.stage_panel`).

    The poll's glue (:mod:`teaching.ui.poll`, with the store's SQLAlchemy) is imported by the first poll, not by
    the app: a server's first view has none (issue 40)."""
    lesson = active_lesson(page)
    if lesson is None or lesson.question is None:
        return
    if get("poll"):
        from teaching.ui import poll

        poll.stage_panel(lesson, get("poll"), get("poll_key"))
        return
    message = st.session_state.pop("poll.message", None)  # a poll that could not be opened says why
    if message:
        st.error(message, icon=":material/block:")
    (beside or st).button("Ask the class", key="poll.ask", icon=":material/how_to_vote:", on_click=_open_poll,
                          args=(lesson,), width="stretch",
                          help="The class predicts what the lesson's reveal will show: a question, a join address and "
                               "its QR code for the students' phones, a live tally.")


def _open_poll(lesson):
    from teaching.ui import poll

    poll.open_poll(lesson)


def _capital(text):
    return text[:1].upper() + text[1:]


def _words(lesson):
    """A "Words" popover (on the stage, above the claims about its main figure): the glossary's words that the
    lesson's banner, claims and reveal use, each explained (the whole glossary: the About & theory page)."""
    texts = [lesson.banner, lesson.reveal.sees if lesson.reveal else ""]
    texts += [claim.text for claim in lesson.claims + (lesson.reveal.claims if lesson.reveal else ())]
    found = glossary.terms_in(*texts)
    if found:
        names = ", ".join(term for term, _ in found)
        with st.popover("Words used here", icon=":material/menu_book:", key="lesson.words",
                        help=f"What {names} mean"):
            st.markdown(glossary.tooltip(found) + "\n\nEvery word: the *About & theory* page.")


def lesson_summary(page):
    """The active lesson's whole story (its summary), for the part of the page below the stage."""
    lesson = active_lesson(page)
    if lesson is not None:
        st.markdown(f"**About this lesson.** {lesson.summary}")


def sidebar(page=None):
    """Shared sidebar: lessons, data set, seed, presentation switch, reset. ``page``: the page this run
    draws (st.navigation's), so that only a lesson of this page, the one the view is, gets highlighted."""
    files = {title: path for path, title, _ in PAGES}
    try:
        title = page.title
    except AttributeError:  # a worker process importing app.py outside a Streamlit run
        title = None
    st.session_state.current_page = files.get(title)
    lesson = active_lesson()
    changed_lesson = lesson is not None and lesson.key != st.session_state.get("shown_lesson")
    st.session_state.shown_lesson = lesson.key if lesson is not None else None
    if presentation.on():
        _presentation_bar(lesson, close=changed_lesson)
    with st.sidebar:
        st.header("Lessons")
        _lesson_links(lesson)
        st.header("Data")
        widget(st.radio, "Source", "source", horizontal=True,
               help="Upload a CSV on the Data & shift page.")
        widget(st.selectbox, "Built-in data set", "dataset", format_func=lambda n: catalog.DATASETS[n][0])
        widget(st.number_input, "Seed", "seed",
               help="Draws new random data with the same settings; lesson claims are checked on seeds 0-2.")
        st.page_link("pages/check.py", label="Check this data", icon=":material/troubleshoot:",
                     help="Is there a shift, where, what the weights cost; a downloadable report.")
        widget(st.toggle, "Presentation (projector)", "presentation", disabled=presentation.phone(),
               help="For a projector: the sidebar folds away (the arrow at the top left brings it back) and "
                    "every text, figure, line and marker is larger." + (
                        " Not on a phone: its figures are laid out for its width." if presentation.phone() else ""))
        st.button("Reset to defaults", key="reset", width="stretch", on_click=reset)
        st.caption("Every setting is in the page address: copy the link to share exactly this view "
                   "(an uploaded CSV has to be uploaded again).")
        with st.expander("Students' link", icon=":material/share:"):
            presentation.students_link_box(lesson)
    presentation.apply_mode()
    if changed_lesson:
        presentation.to_top()


def _lesson_links(active, where="sidebar"):
    """One link per lesson: its page at the lesson's address (:func:`lesson_query`), one browser
    history entry, the same view as a fresh open of that address. Only the link of ``active`` (the
    lesson the view is, or None) is highlighted (presentation.apply_mode's style); no tooltips, which
    would stay over the figure after the click (the lesson's banner says what it is)."""
    for title, lesson in lessons.LESSONS.items():
        mark = "active" if active is not None and lesson.key == active.key else "other"
        with st.container(key=f"lesson-{where}-{mark}-{lesson.key}"):
            st.page_link(lesson.page, label=title, query_params=lesson_query(title), icon=":material/school:")


def _presentation_bar(active, close):
    """In presentation mode, above the page: the lessons and the way out, so that the folded
    sidebar need not be opened in front of the class. The lessons' popover closes when a lesson
    has been chosen (``close``)."""
    if close:
        st.session_state["lessons.popover"] = False
    lessons_column, leave_column, link_column, _ = st.columns([1, 1, 1, 1])
    with lessons_column.popover("Lessons", icon=":material/school:", width="stretch", key="lessons.popover",
                                on_change="rerun"):
        _lesson_links(active, where="bar")
    with link_column.popover("Students' link", icon=":material/share:", width="stretch"):
        presentation.students_link_box(active)
    leave_column.button("Leave presentation mode", key="presentation.leave", icon=":material/close_fullscreen:",
                        width="stretch", on_click=apply, args=({"presentation": False},))
