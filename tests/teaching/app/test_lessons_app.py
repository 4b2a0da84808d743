"""Lessons in the app (AppTest): each opens its page without errors and shows its claims, and
clicking lesson A after lesson B gives the same URL and numbers as clicking A in a fresh session."""

import pathlib

import pytest
from streamlit.testing.v1 import AppTest

from teaching import lessons, settings

ROOT = pathlib.Path(__file__).resolve().parents[3]
TITLES = list(lessons.LESSONS)


def _fresh():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    return at.run()


def _open(at, title):
    """Open the lesson's link (its page at :func:`teaching.ui.lesson_query`) in this session, as
    the sidebar's page link does (tests/teaching/browser/test_history.py clicks it in a browser)."""
    lesson = lessons.LESSONS[title]
    at.query_params = settings.to_query({**settings.defaults(), **lesson.settings})
    at.switch_page(lesson.page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _view(at):
    """What a student sees that could differ: URL, settings, every table (but wall times), every claim."""
    tables = [df.value.drop(columns=[c for c in df.value.columns if "(s)" in c or c == "seconds"]).to_json()
              for df in at.dataframe]  # (NaN == NaN only in JSON)
    return dict(at.query_params), dict(at.session_state["settings"]), tables, [s.value for s in at.success]


def _every_ordered_pair(names):
    """A click sequence in which every ordered pair (B then A, A != B) occurs consecutively
    (an Euler circuit of the complete directed graph)."""
    edges = {a: [b for b in names if b != a] for a in names}
    stack, circuit = [names[0]], []
    while stack:
        node = stack[-1]
        if edges[node]:
            stack.append(edges[node].pop())
        else:
            circuit.append(stack.pop())
    return circuit[::-1]


def test_click_sequence_covers_every_ordered_pair():
    sequence = _every_ordered_pair(TITLES)
    pairs = set(zip(sequence, sequence[1:]))
    assert pairs == {(a, b) for a in TITLES for b in TITLES if a != b}


@pytest.mark.parametrize("title", TITLES)
def test_lesson_opens_its_page_and_shows_its_claims(title):
    at = _open(_fresh(), title)
    lesson = lessons.LESSONS[title]
    shown = " ".join(s.value for s in at.success)
    for claim in lesson.claims:
        if claim.figure != "regression.certainty" or "SMTGP" in lesson.settings.get("models", []):
            assert claim.text in shown, claim.text
            # the numbers behind it, from its own check on this view, next to it
            finding = claim.check(lessons.LessonRun(lesson, seed=int(at.session_state["settings"]["seed"])))
            measured = lessons.describe(finding.numbers).replace("|", "\\|")
            assert f"{claim.text} *(measured here: {measured})*" in shown, claim.text


@pytest.mark.slow
def test_lesson_after_any_other_equals_lesson_in_a_fresh_session():
    fresh = {title: _view(_open(_fresh(), title)) for title in TITLES}
    at = _fresh()
    for title in _every_ordered_pair(TITLES):
        assert _view(_open(at, title)) == fresh[title], title


def test_coinciding_weights_are_named_in_the_caption():
    at = _open(_fresh(), "Estimators disagree")
    assert any("KMM and ENSKMM coincide (the same weight on every training point)" in c.value for c in at.caption)


def test_certainty_bins_and_intervals_beside_the_scatter():
    at = _open(_fresh(), "Structured output")
    captions = " ".join(c.value for c in at.caption)
    assert "Spearman rho = " in captions and "(95 % intervals)" in captions
    assert "cut into 5 bins of equal size" in captions


def test_home_default_view_is_lesson_one_with_its_claims():
    at = _fresh()
    first = lessons.LESSONS[TITLES[0]]
    assert any(f"Lesson: {first.title}." in i.value for i in at.info)
    assert first.claims[0].text in " ".join(s.value for s in at.success)


def test_an_invited_change_keeps_the_lesson_and_its_claims_say_whether_they_hold():
    at = _open(_fresh(), "KLIEP and its Frank-Wolfe solvers")
    at.selectbox(key="w.replay").set_value("AFWCS").run()  # (PFWCS is the lesson's reveal)
    assert not at.exception
    assert at.session_state["settings"]["replay"] == "AFWCS"
    banner = " ".join(i.value for i in at.info)
    assert "Lesson: KLIEP and its Frank-Wolfe solvers." in banner
    assert "You set the replayed solver to AFWCS; the lesson uses FCFWCS" in banner
    shown = " ".join(s.value for s in at.success)
    assert "re-checked here with the replayed solver AFWCS" in shown
    assert all(claim.text in shown for claim in lessons.KLIEP_SOLVERS.claims)


def test_a_lesson_is_only_the_lesson_on_its_own_page():
    at = _open(_fresh(), "Why weights")
    at.switch_page("pages/weights.py").run()  # the same settings on another page are no lesson there
    assert not any("Lesson: " in i.value for i in at.info)
    assert not at.success
