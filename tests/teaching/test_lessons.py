"""Every lesson's claims hold on its own data over several seeds, and every lesson is self-contained.

If a claim fails here, change the claim or the lesson (teaching/lessons/), never this test.
"""

import pathlib
import warnings

import pytest

from teaching import ui
from teaching import catalog, lessons

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEEDS = [0, 1, 2]
#: Lessons whose checks take more than ~10 s per seed (full-size TGP and KMM-ensemble fits).
SLOW = {"Estimators disagree", "IW-SMTGP"}
FIGURES = {"home.fit", "home.width", "weights.table", "weights.curves", "weights.gap", "regression.table",
           "regression.fits", "regression.certainty", "regression.few_labels", "classification.table"}


def _cases():
    return [pytest.param(title, marks=[pytest.mark.slow] if title in SLOW else [], id=title)
            for title in lessons.LESSONS]


@pytest.mark.parametrize("title", _cases())
def test_every_claim_holds_over_seeds(title):
    lesson = lessons.LESSONS[title]
    failures = []
    for seed in SEEDS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            findings = lessons.check(lesson, seed)
        assert len(findings) == len(lesson.claims) >= 1
        failures += [(seed, claim.text, finding.numbers) for claim, finding in findings if not finding.holds]
    assert not failures, failures


def test_required_lessons_exist_and_open_real_pages():
    required = {"Why weights", "KLIEP and its Frank-Wolfe solvers", "Estimators disagree", "Structured output",
                "IW-SMTGP", "A few target labels"}
    assert required <= set(lessons.LESSONS)
    assert lessons.LESSONS["Why weights"].page == "pages/home.py"
    for lesson in lessons.LESSONS.values():
        assert (ROOT / lesson.page).exists() and lesson.page in lessons.PAGE_TITLES
        assert all(claim.figure in FIGURES for claim in lesson.claims), lesson.title


@pytest.mark.parametrize("title", list(lessons.LESSONS))
def test_lesson_sets_every_setting_it_uses_with_valid_values(title):
    settings = lessons.LESSONS[title].settings
    assert set(settings) <= set(ui.DEFAULTS), set(settings) - set(ui.DEFAULTS)
    name = settings["dataset"]
    assert {f"{name}.{p}" for p in catalog.DATASETS[name][1]} <= set(settings)
    for key in ["seed", "sigma_mode", "sigma", "estimators", "weights_for_models",
                "theta", "gamma", "rho_x", "rho_y", "lambda_x", "lambda_y"]:
        assert key in settings, key
    assert set(settings["estimators"]) <= set(catalog.WEIGHT_ESTIMATORS)
    assert set(settings.get("models", [])) <= set(catalog.REGRESSORS)
    for key, value in settings.items():
        assert type(value) is type(ui.DEFAULTS[key]) or isinstance(ui.DEFAULTS[key], float), key


def test_lesson_run_refuses_settings_the_lesson_does_not_set():
    lesson = lessons.Lesson("x", "x", "pages/home.py", "", {"dataset": "sinc"})
    with pytest.raises(KeyError, match="does not set"):
        lessons.LessonRun(lesson).setting("seed")


def test_readme_teach_section_is_generated_from_the_lessons():
    text = (ROOT / "README.md").read_text()
    assert lessons.readme_section() in text


def test_readme_shows_a_screenshot_of_every_lesson():
    text = (ROOT / "README.md").read_text()
    for lesson in lessons.LESSONS.values():
        for shot in (f"assets/lesson-{lesson.key}.png", f"assets/lesson-{lesson.key}-revealed.png"):
            assert (ROOT / shot).exists() and shot in text, shot


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_estimators_disagree_summary_names_the_three_width_rules(seed):
    """The summary says: one sigma by likelihood CV (FCFWCS), one by the median heuristic (the KMM
    variants and LogisticRatio), one by RuLSIF's own CV."""
    run = lessons.LessonRun(lessons.ESTIMATORS_DISAGREE, seed)
    sigma = {n: float(run.view.weights(n).model.sigma_) for n in run.setting("estimators")}
    shared = {sigma[n] for n in ["KMM", "ENSKMM", "ENSTRKMM", "VFKMM", "EVFKMM", "LogisticRatio"]}
    assert len(shared) == 1
    assert len({shared.pop(), sigma["FCFWCS"], sigma["RuLSIF"]}) == 3
    assert "three rules" in lessons.ESTIMATORS_DISAGREE.summary


@pytest.mark.parametrize("title", list(lessons.LESSONS))
def test_every_lesson_has_a_reveal_and_a_question(title):
    """Every lesson declares its punchline (one or two settings it invites, what the eye now sees, claims for the
    changed view) and a question with 2-4 options whose answer is a function of the revealed view."""
    lesson = lessons.LESSONS[title]
    assert lesson.reveal is not None and lesson.question is not None, title
    assert 1 <= len(lesson.reveal.changes) <= 2 and set(lesson.reveal.changes) <= set(lesson.invites)
    assert all(lesson.settings[k] != v for k, v in lesson.reveal.changes.items()), "a reveal changes the view"
    assert lesson.reveal.sees and lesson.reveal.claims and all(c.figure in FIGURES for c in lesson.reveal.claims)
    assert 2 <= len(lesson.question.options) <= 4 and callable(lesson.question.answer)


@pytest.mark.parametrize("title", _cases())
def test_every_revealed_claim_holds_over_seeds(title):
    """The reveal's claims hold on the revealed view, and the question's right option is read off that view: the
    same option on every seed here (the measured numbers decide it; none is written down)."""
    lesson = lessons.LESSONS[title]
    failures, answers = [], []
    for seed in SEEDS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            findings = lessons.check_revealed(lesson, seed)
            answer = lessons.answer(lesson, seed)
        assert len(findings) == len(lesson.reveal.claims) >= 1
        failures += [(seed, claim.text, finding.numbers) for claim, finding in findings if not finding.holds]
        assert 0 <= answer.index < len(lesson.question.options) and answer.numbers
        answers.append(answer.index)
    assert not failures, failures
    assert len(set(answers)) == 1, f"the question's answer differs between seeds 0-2: {answers}"
