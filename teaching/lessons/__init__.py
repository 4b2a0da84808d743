"""Lessons: the app's teaching units, as data.

A :class:`Lesson` names the page it opens, *every* setting it needs (so that opening it
always gives the same view, whatever was clicked before) and its :class:`Claim` s. A claim
is one sentence shown beside the figure it describes, plus a check that evaluates the
sentence on the lesson's own data through the lesson's :class:`teaching.view.View`, whose
methods are the very calls the pages make. A lesson's :class:`Reveal` is what its banner invites
(the stage's "Show me"), with the claims that hold on the changed view; its :class:`Question` is the
prediction asked before the reveal, whose right option is read off the revealed view.
``tests/teaching/test_lessons.py`` runs every check over several seeds, so the text of the app and what the
data show cannot drift apart; README's "Teach with it" section is generated from the same
definitions (:func:`readme_section`).

Modules: :mod:`.core` (the classes, a lesson's run, shared helpers), :mod:`.weighting` (the lessons of
the Home and Importance weights pages), :mod:`.models` (those of the Structured regression and
Classification pages). This package never imports streamlit: the app's sidebar and pages read it.
"""

from teaching import settings
from teaching.lessons.core import (FLEXIBLE_WIDTH, Answer, Claim, Finding, Lesson, LessonRun, Question,  # noqa: F401
                                   Reveal, data_settings, describe)
from teaching.lessons.weighting import (EQUAL_GAPS, ESTIMATORS_DISAGREE, KLIEP_SOLVERS,  # noqa: F401
                                        WHY_WEIGHTS)
from teaching.lessons.models import (BOUNDARY_TURNS, CERTAINTY_BINS, FEW_LABELS, IW_SMTGP,  # noqa: F401
                                     STRUCTURED_OUTPUT)

LESSONS = {lesson.title: lesson for lesson in
           [WHY_WEIGHTS, KLIEP_SOLVERS, ESTIMATORS_DISAGREE, STRUCTURED_OUTPUT, IW_SMTGP, FEW_LABELS, BOUNDARY_TURNS]}


def check(lesson, seed=None):
    """Evaluate every claim of ``lesson`` on its data (optionally another seed): [(claim, Finding)]."""
    run = LessonRun(lesson, seed)
    return [(claim, claim.check(run)) for claim in lesson.claims]


def revealed_run(lesson, seed=None):
    """The :class:`LessonRun` of ``lesson``'s revealed view: its settings with the reveal's changes."""
    return LessonRun(lesson, seed, changes=lesson.reveal.changes)


def check_revealed(lesson, seed=None):
    """Evaluate the reveal's claims on the revealed view (optionally another seed): [(claim, Finding)]."""
    run = revealed_run(lesson, seed)
    return [(claim, claim.check(run)) for claim in lesson.reveal.claims]


def answer(lesson, seed=None):
    """The right option of ``lesson``'s question, decided on the revealed view of ``seed``: an :class:`Answer`."""
    index, numbers = lesson.question.answer(revealed_run(lesson, seed))
    return Answer(int(index), lesson.question.options[index], numbers)


#: The app's name of each page a lesson can open.
PAGE_TITLES = {"pages/home.py": "Home", "pages/weights.py": "Importance weights",
               "pages/regression.py": "Structured regression", "pages/classification.py": "Classification under shift"}


def readme_section():
    """README's "Teach with it" list, generated from the lessons: each lesson's claims, then what its *Show me*
    sets, what the eye then sees and the claims checked on that view, and the question asked before it."""
    lines = []
    for lesson in LESSONS.values():
        lines.append(f"- **{lesson.title}** (opens {PAGE_TITLES[lesson.page]}): {lesson.summary}")
        lines.extend(f"  - {claim.text}" for claim in lesson.claims)
        if lesson.reveal is not None:
            sets = ", ".join(f"{settings.label(k)} to {settings.spoken(k, v)}" for k, v in lesson.reveal.changes.items())
            lines.append(f"  - *Show me* sets {sets}: {lesson.reveal.sees}")
            lines.extend(f"    - {claim.text}" for claim in lesson.reveal.claims)
        if lesson.question is not None:
            lines.append(f"  - *Ask the class:* {lesson.question.text} ({' / '.join(lesson.question.options)})")
    return "\n".join(lines)
