"""Ask the class in the app (issue 36): the instructor asks, reveals and asks again on the Why-weights stage; the
right option marked is the lesson's measurement on the view's own seed; a student's join page votes; an edited
address (a wrong or missing key) controls nothing and reads no tally before the reveal."""

import json
import pytest
import sqlalchemy as sa

from teaching import lessons, polls, settings, ui
from teaching.ui import poll as ask

from tests.teaching.app.helpers import no_exception, open_link

WHY = lessons.LESSONS["Why weights"]


@pytest.fixture(autouse=True)
def poll_database(tmp_path, monkeypatch):
    monkeypatch.delenv("COVSHIFT_POLL_URL", raising=False)
    monkeypatch.setenv("COVSHIFT_POLL_DB", str(tmp_path / "polls.sqlite"))
    return polls.database_url()


def _store(url):
    return polls.PollStore(sa.create_engine(url))


def _lesson_query(seed=0, **extra):
    return {**settings.to_query({**ui.DEFAULTS, **WHY.settings, "seed": seed}), **extra}


def _button(at, key):
    return next(b for b in at.button if b.key == key)


def _text(value):
    return value if isinstance(value, str) else value[-1]


def _stage_ask(seed):
    at = no_exception(open_link(_lesson_query(seed)))
    _button(at, "poll.ask").click()
    at = no_exception(at.run())
    code, key = (_text(at.query_params[name]) for name in ("poll", "poll_key"))
    return at, code, key


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_instructor_asks_reveals_and_asks_again(poll_database, seed):
    at, code, key = _stage_ask(seed)
    assert WHY.question.text in [s.value for s in at.subheader]
    store = _store(poll_database)
    for i, option in enumerate([1, 1, 0]):
        store.vote(code, f"student-{i:04d}", option)
    assert any("3 votes" in m.value for m in at.run().markdown)
    _button(at, "poll.reveal").click()
    at = no_exception(at.run())
    right = lessons.answer(WHY, seed)  # the lesson's measurement on the revealed view of this seed
    tally = store.tally(code)
    assert (tally.answer, tally.counts) == (right.index, (1, 2, 0))
    assert at.session_state["settings"]["home_width"] == WHY.reveal.changes["home_width"]  # the reveal applied
    bars = [p.proto.text for p in at.get("progress")]
    assert [t for t in bars if t.startswith(":material/check_circle: **Right answer.")] == [
        f":material/check_circle: **Right answer. {right.option}: **{tally.counts[right.index]}** "
        f"({100 * tally.counts[right.index] / 3:.0f} %)**"]
    assert any(lessons.describe(right.numbers) in s.value for s in at.success)
    _button(at, "poll.again").click()
    at = no_exception(at.run())
    assert store.get(code).round == 2 and store.get(code).state == polls.OPEN
    assert at.session_state["settings"]["home_width"] == WHY.settings["home_width"]  # back to the question's view


def test_an_edited_address_controls_nothing_and_reads_no_tally(poll_database):
    _, code, key = _stage_ask(0)
    store = _store(poll_database)
    store.vote(code, "student-0001", 2)
    wrong = ("B" if key[0] != "B" else "C") + key[1:]
    for edited in ({"poll": code, "poll_key": wrong}, {"poll": code}, {"poll": code, "poll_key": "x" * 10_240}):
        at = no_exception(open_link(_lesson_query(0, **edited)))
        assert any("only the teacher's address controls it" in e.value for e in at.error), edited
        assert not [b for b in at.button if b.key and b.key.startswith("poll.")], edited  # no control at all
        assert not at.get("progress") and not any("vote" in m.value for m in at.markdown)  # no tally
    assert store.get(code).state == polls.OPEN and store.get(code).round == 1


def test_a_student_votes_on_the_join_page_and_sees_the_answer_after_the_reveal(poll_database):
    _, code, key = _stage_ask(1)
    at = no_exception(open_link({"poll": code}).switch_page("pages/join.py").run())
    assert WHY.question.text in [s.value for s in at.subheader]
    assert not at.get("progress")  # no tally before the reveal
    _button(at, "vote.1.2").click()
    at = no_exception(at.run())
    assert any("Your vote is in; you can change it until your teacher reveals" in s.value for s in at.success)
    _button(at, "vote.1.1").click()
    at = no_exception(at.run())
    store = _store(poll_database)
    assert store.tally(code, key).counts == (0, 1, 0)  # the second tap replaced the first
    right = lessons.answer(WHY, 1)
    store.reveal(code, key, right.index, lessons.describe(right.numbers))
    at = no_exception(at.run())
    assert any(f"The answer: {right.option}." in s.value for s in at.success)
    # the revealed figure, as the projector shows it after the reveal: the flexible GP of the reveal's width
    [chart] = at.get("plotly_chart")
    title = json.loads(chart.proto.spec)["layout"]["title"]["text"]
    assert f"width {WHY.reveal.changes['home_width']:g}" in title, title
    [link] = [link for link in at.get("page_link") if link.proto.label.startswith("Explore the lesson")]
    assert "home_width=0.3" in link.proto.query_string and "seed=1" in link.proto.query_string


def test_a_join_address_with_an_unknown_poll_says_so():
    at = no_exception(open_link({"poll": "zzzzzz"}).switch_page("pages/join.py").run())
    assert any("There is no poll 'zzzzzz'" in e.value for e in at.error)


def test_a_browser_session_is_known_by_its_xsrf_token_whatever_its_mask():
    # Tornado masks the XSRF cookie anew on every page load ("2|mask|token XOR mask|time"): a reload is the same
    # browser session, so its vote is replaced, not added
    token = bytes(range(16))
    masked = [f"2|{mask.hex()}|{bytes(b ^ mask[i % 4] for i, b in enumerate(token)).hex()}|1795772494"
              for mask in (b"\x1a\xe6\xae\xaf", b"\xf0\xb1\x53\x85")]
    assert masked[0] != masked[1]
    assert ask._xsrf_token(masked[0]) == ask._xsrf_token(masked[1]) == token.hex()
    assert ask._xsrf_token("plain-value") == "plain-value" and ask._xsrf_token("2|zz|zz|1") == "2|zz|zz|1"


def test_an_unreachable_poll_database_is_a_sentence_and_the_lesson_still_draws(monkeypatch):
    monkeypatch.setenv("COVSHIFT_POLL_URL", "postgresql+psycopg://nobody@127.0.0.1:1/covshift?connect_timeout=2")
    address = {"poll": "k3m9xa", "poll_key": "A" * 32}
    at = no_exception(open_link(_lesson_query(0, **address)))
    assert any("The poll database cannot be reached" in e.value for e in at.error)
    assert at.get("plotly_chart")  # the lesson's figures are drawn all the same
    at = no_exception(open_link(address).switch_page("pages/join.py").run())
    assert any("The poll database cannot be reached" in e.value for e in at.error)
