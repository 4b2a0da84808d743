"""The error guard: any failure becomes one readable message where the result would be, never a traceback."""

import streamlit as st

from teaching.readings import quiet  # noqa: F401  (ui.quiet: the numbers beside a figure)
from teaching.report import markdown_text

def guard(title, fn, *args, **kwargs):
    """Run fn; show a clear message instead of a traceback when it fails."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # the page must keep working whatever the core raises
        report(title, exc)
    return None


def report(title, exc):
    """The one readable message of a failure: a refusal (ValueError, naming the limit and the way
    out) or a not-applicable note as they are, anything else with its type and a way out."""
    text = markdown_text(exc)  # a message can quote a column name or a cell of an uploaded file: shown as text
    if isinstance(exc, ValueError):
        st.error(f"**{title}**: {text}")
    elif isinstance(exc, NotImplementedError):
        st.info(f"**{title}**: {text}")
    else:
        st.error(f"**{title}** failed ({type(exc).__name__}: {text}). Try other settings.")


def refusal(title, text):
    """A refusal (a ValueError's sentence, kept as ``text`` across runs) shown as :func:`report` shows it."""
    report(title, ValueError(text))


PAGE_FAILED = "This page could not be drawn with these settings"


def page_failed(exc):
    """Last line of defence (app.py): a message instead of a traceback if a page still fails."""
    st.error(f"**{PAGE_FAILED}** ({type(exc).__name__}: {markdown_text(exc)}). Change a setting or press "
             "*Reset to defaults* in the sidebar.")


def show_warnings(name, messages):
    for message in messages:
        st.warning(f"{name}: {markdown_text(message)}")


def run_each(names, fn, doing, done, hide=None):
    """fn(name) for every name under one progress status; failures and warnings are shown
    (except those for which ``hide(name, message)`` is true: the page reports them itself).

    The refusals are shown under the status box, where the results would be (never inside the
    collapsed box), and the box says ``done`` only when at least one name succeeded.
    Returns {name: teaching.outcomes.Outcome} for the names that succeeded.
    """
    outcomes, failures = {}, {}
    with st.status(f"{doing}...", expanded=False) as status:
        for i, name in enumerate(names):
            status.update(label=f"{doing}: {name} ({i + 1}/{len(names)})")
            try:
                outcomes[name] = fn(name)
            except Exception as exc:  # shown below, outside the box
                failures[name] = exc
        if outcomes:
            status.update(label=done + (f" ({len(outcomes)} of {len(names)}; the others are refused below)"
                                        if failures else ""), state="complete")
        else:
            status.update(label="Nothing to draw: every choice was refused (why and what to change: below)",
                          state="error")
    for name, exc in failures.items():
        report(name, exc)
    for name, outcome in outcomes.items():
        show_warnings(name, [m for m in outcome.warnings if hide is None or not hide(name, m)])
    return outcomes
