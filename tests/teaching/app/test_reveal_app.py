"""The stage's "Show me" and its controls (issue 35): the reveal applies and keeps the lesson, any stage control keeps
the banner and is said in words, a claim the view does not bear out is never under a check mark, and a lesson
page's visible text has no setting key and no number with more than 4 significant digits."""

import pathlib
import re
import warnings

import pytest
from streamlit.testing.v1 import AppTest

from teaching import glossary, lessons, settings

ROOT = pathlib.Path(__file__).resolve().parents[3]
#: Lessons whose page takes more than ~30 s to draw on a busy machine (full-size Twin GPs, KMM ensembles).
SLOW = {"Estimators disagree", "IW-SMTGP"}


def _cases():
    return [pytest.param(title, marks=[pytest.mark.slow] if title in SLOW else [], id=title)
            for title in lessons.LESSONS]


def _open(title, seed=0):
    lesson = lessons.LESSONS[title]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params.update(settings.to_query({**settings.defaults(), **lesson.settings, "seed": seed}))
    at.run()
    at.switch_page(lesson.page).run()
    _no_failure(at)
    return at


def _no_failure(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _banner(at):
    return " ".join(i.value for i in at.info)


def _checked(at):
    """The text under check marks (st.success boxes)."""
    return " ".join(s.value for s in at.success)


def _not_holding(at):
    """The text of the boxes of claims this view does not bear out."""
    return " ".join(m.value for m in at.markdown if "**Not on this view.**" in m.value)


def _show_me(at):
    at.button(key="lesson.show_me").click().run()
    _no_failure(at)
    return at


@pytest.mark.parametrize("title", _cases())
def test_show_me_applies_the_reveal_keeps_the_lesson_and_marks_only_what_holds(title):
    """After "Show me": the reveal's settings are the view's (in the address too), the banner is the lesson's and
    says what the eye now sees, the reveal's claims are shown; every claim on the page is under a check mark
    exactly when its check holds on this view, else in the box of claims not borne out, with the reason."""
    lesson = lessons.LESSONS[title]
    at = _show_me(_open(title))
    current = at.session_state["settings"]
    assert all(current[k] == v for k, v in lesson.reveal.changes.items())
    from_address, _ = settings.parse_query(dict(at.query_params))  # the copied link is the revealed view
    assert all(from_address[k] == v for k, v in lesson.reveal.changes.items())
    assert f"Lesson: {title}." in _banner(at) and f"You now see:** {lesson.reveal.sees}" in _banner(at)
    words = " ".join(m.value for m in at.markdown if "Every word: the *About & theory* page." in m.value)
    assert all(f"**{term}**: {text}" in words for term, text in glossary.terms_in(lesson.banner, lesson.reveal.sees))
    run = lessons.LessonRun(lesson, seed=0, changes=lesson.reveal.changes)
    checked, apart = _checked(at), _not_holding(at)
    shown_figures = {c.figure for c in lesson.reveal.claims}
    for claim in lesson.reveal.claims + tuple(c for c in lesson.claims if c.figure in shown_figures):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            holds = claim.check(run).holds
        if holds:
            assert claim.text in checked and claim.text not in apart, claim.text
        else:
            assert claim.text in apart and claim.text not in checked, claim.text
    assert all(c.text in checked for c in lesson.reveal.claims), "the reveal's claims hold on its view (seed 0)"
    if apart:
        assert "Checked for " in apart and lesson.reveal.sees in apart  # the sentence that says why
    # the lesson's view again: its button (and the browser's Back, tests/teaching/browser) undo the reveal
    at.button(key="lesson.unreveal").click().run()
    assert all(at.session_state["settings"][k] == lesson.settings[k] for k in lesson.reveal.changes)
    assert "You now see" not in _banner(at) and at.button(key="lesson.show_me")


def test_apply_reveal_is_one_function_the_poll_can_call():
    from teaching import ui

    assert ui.apply_reveal is ui.navigation.apply_reveal
    assert ui.revealed(lessons.WHY_WEIGHTS, {**lessons.WHY_WEIGHTS.settings, **lessons.WHY_WEIGHTS.reveal.changes})
    assert not ui.revealed(lessons.WHY_WEIGHTS, lessons.WHY_WEIGHTS.settings)


def test_a_stage_control_keeps_the_banner_and_says_what_differs_in_words():
    """Structured output's input width (a number field on the stage, 1.5811... in the lesson) moved: the lesson
    stays, its banner says the change in words, the claims are re-checked on this view."""
    at = _open("Structured output")
    assert at.number_input(key="w.rho_x").value == pytest.approx(lessons.STRUCTURED_OUTPUT.settings["rho_x"])
    at.number_input(key="w.rho_x").set_value(0.5).run()
    _no_failure(at)
    banner = _banner(at)
    assert "Lesson: Structured output." in banner
    assert "You set the input width to 0.5; the lesson uses 1.581" in banner
    assert "rho_x" not in banner
    assert "re-checked here with the input width 0.5" in _checked(at) + _not_holding(at)


@pytest.mark.slow
def test_iw_smtgp_output_to_plot_keeps_the_lesson():
    at = _open("IW-SMTGP")
    at.selectbox(key="w.plot_output").set_value(1).run()
    _no_failure(at)
    assert "Lesson: IW-SMTGP." in _banner(at)
    assert "You set the output plotted to output 2; the lesson uses output 1" in _banner(at)
    assert at.success or _not_holding(at)
    assert not any("did not converge" in w.value for w in at.warning), "the claim says it, not a warning box"


#: Setting names that are code, not words (a "_" or a "."): none may appear in a lesson page's text.
KEYS = sorted((name for name in settings.SETTINGS if "_" in name or "." in name), key=len, reverse=True)
#: A decimal number and its digits.
NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?:e[-+]?\d+)?")


def _significant_digits(text):
    mantissa = text.split("e")[0].replace(".", "").lstrip("0")
    return len(mantissa)


def _visible_texts(at):
    """Every text a student reads on the page (maths between $ signs aside: it is drawn as symbols)."""
    texts = [e.value for kind in ("title", "header", "subheader", "markdown", "caption", "info", "success",
                                  "warning", "error") for e in getattr(at, kind)]
    for kind in ("slider", "number_input", "selectbox", "multiselect", "radio", "toggle", "checkbox", "button",
                 "select_slider"):
        for w in getattr(at, kind):
            texts.append(str(w.label))
            texts += [str(o) for o in getattr(w, "options", [])]
    return [re.sub(r"\$[^$]*\$", " ", t) for t in texts]


def faults(texts):
    """Setting keys and numbers with more than 4 significant digits in ``texts``: one line per find."""
    found = []
    for text in texts:
        visible = re.sub(r"<[^>]+>", " ", text)  # an HTML anchor's id is not read
        found += [f"setting key {key!r} in {text[:80]!r}" for key in KEYS if re.search(rf"(?<![\w\\]){re.escape(key)}\b",
                                                                                          visible)]
        found += [f"{n} in {text[:80]!r}" for n in NUMBER.findall(visible) if _significant_digits(n) > 4]
    return found


@pytest.mark.parametrize("title", _cases())
def test_no_setting_key_or_long_number_in_a_lesson_page(title):
    at = _open(title)
    found = faults(_visible_texts(at))
    _show_me(at)
    found += [f"after Show me: {f}" for f in faults(_visible_texts(at))]
    assert not found, found


def test_the_fault_finder_finds_keys_and_long_numbers():
    assert faults(["You changed home_width = 0.3", "rho_x 1.5811388300841898", "clf.steepness = 0.0"])
    assert not faults(["the input width 1.581; p = 0.0012; 2000 iterations; $\\rho_x$", "sigma = 0.3"])
