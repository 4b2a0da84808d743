"""Ask the class (issue 36): the instructor's poll on a lesson's stage, and what the students' join page
needs. Streamlit glue over :mod:`teaching.polls` (the store), whose database comes through
``st.connection("polls", type="sql")``. The stage's "Ask the class" button is
:func:`teaching.ui.navigation.ask_the_class`, which imports this module only when a poll is in the address or
the button is pressed: the store (SQLAlchemy) and the QR codes (segno) cost ~0.17 CPU-s to import, which a
server's first view, with no poll, does not pay (issue 40).

The instructor's address carries the poll's code and its secret key (settings ``poll`` and ``poll_key``);
the join address (``/join?poll=CODE``, the QR code on the stage) carries the code only. Every control
(reveal, ask again, next lesson, the tally before the reveal) is checked against the key by the store.
"""

import hashlib
import html
from urllib import parse

import segno
import sqlalchemy as sa
import streamlit as st

from teaching import lessons, polls, settings
from teaching.lessons import stage
from teaching.ui import presentation
from teaching.ui.cache import chart
from teaching.ui.guard import guard
from teaching.ui.navigation import apply_reveal
from teaching.ui.state import DEFAULTS, get, put, replace_all

JOIN_PAGE = "pages/join.py"
#: Seconds between two refreshes of the stage's tally (st.fragment's run_every) and of a student's watch.
STAGE_REFRESH, STUDENT_REFRESH = 1, 2


# ------------------------------------------------------------------ the store
def store():
    """The app's :class:`teaching.polls.PollStore`: ``st.connection("polls", type="sql")`` on
    :func:`teaching.polls.database_url` (COVSHIFT_POLL_URL, else .streamlit/secrets.toml's
    ``[connections.polls] url``, else the SQLite file), its schema created once per server."""
    url = polls.database_url(secret_url=_secret_url())
    connection = st.connection("polls", type="sql", url=url)
    try:
        return _store(url, connection.engine)
    except sa.exc.SQLAlchemyError as error:  # not cached: the next run tries again
        raise polls.PollError(f"The poll database cannot be reached ({type(error).__name__}): the lesson works "
                              "without it; try again in a moment.") from error


@st.cache_resource(show_spinner=False)
def _store(url, _engine):
    return polls.PollStore(_engine)


def _secret_url():
    try:
        return st.secrets.get("connections", {}).get("polls", {}).get("url")
    except FileNotFoundError:  # no .streamlit/secrets.toml: the default database
        return None


def voter_id(code):
    """This browser session's id in poll ``code``: the SHA-256 of the poll code and the token of the browser's
    XSRF cookie (a session cookie, so a reload is the same browser session, and one browser's votes in two polls
    cannot be linked), or, without the cookie, a random id of this app session. Nothing about the person."""
    if "poll.session" not in st.session_state:
        st.session_state["poll.session"] = polls.new_session_id()
    cookie = st.context.cookies.get("_streamlit_xsrf")
    token = _xsrf_token(cookie) if isinstance(cookie, str) else None
    seed = token or st.session_state["poll.session"]
    return hashlib.sha256(f"covshift-poll|{code}|{seed}".encode()).hexdigest()


def _xsrf_token(cookie):
    """The token of an XSRF cookie, the same on every page load of a browser session: Tornado's version-2
    cookie "2|mask|masked token|time" is masked anew on each load (the token XOR a random 4-byte mask); any
    other form is taken as it is."""
    parts = cookie.split("|")
    if len(parts) != 4 or parts[0] != "2":
        return cookie or None
    try:
        mask, masked = bytes.fromhex(parts[1]), bytes.fromhex(parts[2])
    except ValueError:
        return cookie
    return bytes(b ^ mask[i % len(mask)] for i, b in enumerate(masked)).hex() if mask else cookie


def join_address(code):
    """The absolute join address of poll ``code`` on the server this page came from (for the QR code)."""
    url = parse.urlsplit(st.context.url or "http://localhost:8501/")
    base = "/" + (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"{url.scheme}://{url.netloc}{base.rstrip('/')}/join?poll={code}"


def qr_image(address):
    """The QR code of ``address`` as an inline SVG ``<img>`` (segno; error correction M, a 4-module border)."""
    uri = segno.make(address, error="m").svg_data_uri(scale=8, border=4, dark="#000000", light="#ffffff")
    return (f'<img src="{uri}" alt="QR code of the join address {html.escape(address)}" '
            'style="width:100%;max-width:240px;image-rendering:pixelated">')


def revealed_query(lesson, seed):
    """The address (query) of ``lesson``'s revealed view on ``seed``: what "Explore the lesson" opens."""
    return settings.to_query({**DEFAULTS, **lesson.settings, **lesson.reveal.changes, "seed": int(seed)})


def revealed_figure(lesson, seed):
    """The revealed view's stage figure (:func:`teaching.lessons.stage.stage_figure`), as the projector shows it
    after "Reveal", laid out for this device (a phone's width); a refusal in its place if it cannot be drawn."""
    recipe = guard("The revealed figure", stage.stage_figure, lessons.revealed_run(lesson, seed))
    if recipe is not None:
        chart(recipe.title, recipe.make, *recipe.args, key="join.revealed_figure", **recipe.kwargs)


def show_tally(poll, tally, mark_answer):
    """One bar per option: its votes and share; the right one marked once revealed."""
    for index, (option, count) in enumerate(zip(poll.question.options, tally.counts)):
        share = count / tally.total if tally.total else 0.0
        right = mark_answer and tally.answer == index
        text = f"{option}: **{count}** ({100 * share:.0f} %)"
        st.progress(share, text=f":material/check_circle: **Right answer. {text}**" if right else text)


# ------------------------------------------------------------------ the instructor
def stage_panel(lesson, code, key):
    """The poll ``code`` in the address of ``lesson``'s stage (:func:`teaching.ui.navigation.ask_the_class`): its
    panel, or a refusal if the address's ``key`` does not control it."""
    with st.container(key="poll-stage", border=True):
        try:
            poll = store().get(code)
            if not key or not store().is_instructor(code, key):
                raise polls.PollError("This address's instructor key does not belong to this poll: only the "
                                      "teacher's address controls it. Students vote on the join address.")
        except polls.PollError as refusal:
            st.error(str(refusal), icon=":material/block:")
            st.page_link(JOIN_PAGE, label="Go to the join page", query_params={"poll": code},
                         icon=":material/how_to_vote:")
            return
        if poll.lesson != lesson.key:
            st.caption(f"The poll {code} in this address was asked on another lesson.")
            st.button("Ask the class", key="poll.ask", icon=":material/how_to_vote:", on_click=open_poll,
                      args=(lesson,))
            return
        try:
            _panel(lesson, poll, key)
        except polls.PollError as refusal:  # the database went away since the poll was read
            st.error(str(refusal), icon=":material/block:")


def open_poll(lesson):
    """Button callback: a new poll on ``lesson`` into the address (with its instructor key), or the refusal kept
    for the stage to say."""
    try:
        code, key = store().open_poll(lesson.key, get("seed"))
    except polls.PollError as refusal:
        st.session_state["poll.message"] = str(refusal)
        return
    st.session_state.setdefault("poll.mine", []).append((code, key))
    put("poll", code)
    put("poll_key", key)


def _panel(lesson, poll, key):
    message = st.session_state.pop("poll.message", None)
    if message:
        st.error(message, icon=":material/block:")
    question, join = st.columns([3, 2])
    question.subheader(poll.question.text, anchor=False)
    if poll.state == polls.OPEN:
        with question:
            _live_tally(poll.id, key)
        address = join_address(poll.id)
        join.markdown(qr_image(address), unsafe_allow_html=True)
        join.markdown(f"**Join:** `{address}`  \nor open *Join a poll* and type **{poll.id}**")
    else:
        tally = store().tally(poll.id, key)
        with question:
            _vote_count(tally, "; voting is closed.")
            show_tally(poll, tally, mark_answer=True)
        if tally.answer is not None:  # what the eye now sees: the banner says it after the reveal
            join.success(f"**Measured on this view (seed {poll.seed}):** {tally.measured}",
                         icon=":material/check_circle:")
    _controls(lesson, poll, key)


@st.fragment(run_every=STAGE_REFRESH)
def _live_tally(code, key):
    """The votes so far, refreshed every second without rerunning the page; voting stays open."""
    try:
        tally = store().tally(code, key)
    except polls.PollError as refusal:
        st.error(str(refusal))
        return
    _vote_count(tally, "")
    show_tally(tally.poll, tally, mark_answer=False)


def _vote_count(tally, after):
    """The number of votes so far (the element the browser test reads: key poll-count)."""
    with st.container(key="poll-count"):
        st.markdown(f"**{tally.total} vote{'s' if tally.total != 1 else ''}** in round {tally.round}{after}")


def _controls(lesson, poll, key):
    reveal, again, following, csv = st.columns(4)
    reveal.button("Reveal", key="poll.reveal", type="primary", icon=":material/visibility:", width="stretch",
                  disabled=poll.state != polls.OPEN, on_click=_reveal, args=(lesson, poll.id, key))
    again.button("Ask again", key="poll.again", icon=":material/replay:", width="stretch",
                 disabled=poll.state == polls.CLOSED, on_click=_again, args=(lesson, poll.id, key),
                 help="A new round of votes on the same question (after the students have discussed).")
    after = _next_lesson(lesson)
    if after is not None and following.button(f"Next lesson: {after.title}", key="poll.next",
                                              icon=":material/skip_next:", width="stretch"):
        _close(poll.id, key)
        st.switch_page(after.page, query_params=settings.to_query(
            {**DEFAULTS, **after.settings, "presentation": presentation.on()}))
    mine = list(dict.fromkeys([*st.session_state.get("poll.mine", []), (poll.id, key)]))
    try:
        data = store().results_csv(mine)
    except polls.PollError as refusal:
        csv.caption(str(refusal))
        return
    csv.download_button("Tallies (CSV)", data=data, file_name="covshift-poll-tallies.csv", mime="text/csv",
                        key="poll.csv", icon=":material/download:", width="stretch",
                        help="Every round of this session's polls: lesson, question, round, option, votes, right, "
                             "time. Nothing personal.")


def _reveal(lesson, code, key):
    """Close voting, decide the right option on the view's own seed (the lesson's measurement on the revealed
    view) and apply the lesson's reveal on the stage."""
    try:
        answer = lessons.answer(lesson, get("seed"))
        store().reveal(code, key, answer.index, lessons.describe(answer.numbers))
    except ValueError as refusal:  # a PollError, or the time budget refusing the revealed view's fit
        st.session_state["poll.message"] = str(refusal)
        return
    apply_reveal(lesson)


def _again(lesson, code, key):
    """A new round; the stage goes back to the lesson's settings of what the reveal changed."""
    try:
        store().ask_again(code, key)
    except polls.PollError as refusal:
        st.session_state["poll.message"] = str(refusal)
        return
    question_view = {**DEFAULTS, **lesson.settings}
    replace_all({**st.session_state.settings, **{name: question_view[name] for name in lesson.reveal.changes}})


def _close(code, key):
    try:
        store().close(code, key)
    except polls.PollError:  # closed already: moving on is all that is asked
        pass


def _next_lesson(lesson):
    order = list(lessons.LESSONS.values())
    index = next(i for i, item in enumerate(order) if item.key == lesson.key)
    return order[index + 1] if index + 1 < len(order) else None


# ------------------------------------------------------------------ the students
def student_poll(code):
    """The poll ``code`` for the join page, or None after showing why not (a sentence, where the poll would be)."""
    try:
        return store().get(code)
    except polls.PollError as refusal:
        st.error(str(refusal), icon=":material/block:")
        return None


def my_vote(poll):
    """This browser session's option in the poll's current round, or None (also when the store is unreachable)."""
    try:
        return store().my_vote(poll.id, voter_id(poll.id))
    except polls.PollError:
        return None


def vote(code, option):
    """A student's tap on ``option`` (button callback): stored, or the refusal kept for the ballot to show."""
    try:
        store().vote(code, voter_id(code), option)
        st.session_state["poll.refusal"] = None
    except polls.PollError as refusal:
        st.session_state["poll.refusal"] = str(refusal)


def refusal():
    """The sentence of the last refused vote of this session (shown once), or None."""
    return st.session_state.pop("poll.refusal", None)


def public_tally(poll):
    """The revealed round's tally (anyone may read it), or None before the reveal."""
    try:
        return store().tally(poll.id)
    except polls.PollError:
        return None


@st.fragment(run_every=STUDENT_REFRESH)
def watch(poll):
    """Every two seconds, without drawing anything: when the teacher reveals, asks again or closes, the page
    runs again and shows it."""
    try:
        now = store().get(poll.id)
    except polls.PollError:
        return
    if (now.round, now.state) != (poll.round, poll.state):
        st.rerun()
