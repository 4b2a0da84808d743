"""The words a student meets on a lesson's stage are explained there (issue 35, words): every term the issue names
is in the glossary, and each one a lesson's banner, claims or reveal uses is among the words its stage explains."""

import re

import pytest

from teaching import glossary, lessons

#: The issue's terms, as a student reads them in a text -> the glossary's entry that explains them.
NAMED = {r"\biid\b": "iid", r"\batoms?\b": "atom", r"\bactive\b": "active set", r"\btowards? step": "towards step",
         r"\baway step": "away step", r"\bdrop(ped)?\b": "drop step", r"\bswap(ped)?\b": "swap step",
         r"rho_max": "rho_max", r"\bphi\b": "certainty", r"\bcertainty\b": "certainty", r"\bNewton\b": "Newton step",
         r"\bESS\b": "ESS", r"quasi-Newton": "quasi-Newton step", r"\bpairwise\b": "pairwise step",
         r"\bduality gap|\brelative gap": "duality gap"}


def test_the_issues_terms_are_in_the_glossary():
    for term in ["iid", "atom", "active set", "towards step", "away step", "drop step", "swap step", "rho_max",
                 "certainty", "Newton step", "ESS"]:
        assert term in glossary.TERMS and len(glossary.TERMS[term][1]) > 40, term


def _stage_texts(lesson):
    return [lesson.banner, lesson.reveal.sees, *(c.text for c in lesson.claims + lesson.reveal.claims)]


@pytest.mark.parametrize("title", list(lessons.LESSONS))
def test_every_term_on_a_stage_is_explained_there(title):
    texts = _stage_texts(lessons.LESSONS[title])
    explained = {term for term, _ in glossary.terms_in(*texts)}
    joined = " ".join(texts)
    missing = {term for pattern, term in NAMED.items() if re.search(pattern, joined, re.IGNORECASE)} - explained
    assert not missing, missing


def test_the_tooltip_names_each_term_with_its_explanation():
    found = glossary.terms_in("FCFWCS keeps fewer atoms; the iid classifier")
    assert [term for term, _ in found] == ["iid", "atom", "fully-corrective step"]
    assert "**atom**: One Gaussian bump" in glossary.tooltip(found)
