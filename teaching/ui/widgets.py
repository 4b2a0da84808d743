"""Widgets bound to settings (range and options from the registry) and tables formatted for reading."""

import functools
import math
import numbers
import re

import numpy as np
import pandas as pd
import streamlit as st

from teaching import figures, settings
from teaching.report import markdown_text
from teaching.ui import presentation
from teaching.ui.state import get, put

#: Widget kinds by name, so that a container's widget (``column.slider``, a bound method) counts as ``st.slider``.
_NUMERIC_WIDGETS = ("slider", "number_input")


_CHOICE_WIDGETS = ("selectbox", "radio", "select_slider")


def _bounds(spec, args, kwargs):
    """The registry's range, narrowed (never widened) by bounds a page passes for this view."""
    lo = args[0] if len(args) > 0 else kwargs.pop("min_value", None)
    hi = args[1] if len(args) > 1 else kwargs.pop("max_value", None)
    kwargs.pop("min_value", None), kwargs.pop("max_value", None)
    number = int if isinstance(spec, settings.Int) else float
    lo = number(spec.min) if lo is None else number(max(lo, spec.min))
    hi = number(spec.max) if hi is None else number(min(hi, spec.max))
    return lo, max(lo, hi)


def _clamp(value, lo, hi):
    number = type(lo)
    try:
        value = number(value)
    except (TypeError, ValueError, OverflowError):
        return lo
    if isinstance(value, float) and not math.isfinite(value):
        return lo
    return min(max(value, lo), hi)


def widget(kind, label, name, *args, **kwargs):
    """A Streamlit widget bound to setting ``name`` (persists across pages and in the URL).

    Numbers take min/max/step from :data:`teaching.settings.SETTINGS` (a page may narrow
    them); choices take the registry's options unless the page passes the options available in
    this view. The widget's state is seeded from the setting through its session-state key, so
    that lessons and resets (button callbacks) can move it, and it is kept inside the domain. A change
    is stored before the run it starts (:func:`_from_widget`).
    """
    spec = settings.SETTINGS[name]
    key = f"w.{name}"
    current = get(name)
    name_of_kind = getattr(kind, "__name__", "")
    if name_of_kind in _NUMERIC_WIDGETS:
        lo, hi = _bounds(spec, args, kwargs)
        args = ()
        if name_of_kind == "slider" and hi <= lo:  # a one-value range (a slider needs min < max)
            hi, kwargs["disabled"] = lo + type(lo)(spec.step or 1), True
        kwargs.update(min_value=lo, max_value=hi)
        if spec.step is not None and "step" not in kwargs:
            kwargs["step"] = type(lo)(spec.step)
        current = _clamp(current, lo, hi)
        state = st.session_state.get(key)
        if type(state) is not type(lo) or state != _clamp(state, lo, hi):
            st.session_state[key] = current
    elif name_of_kind in _CHOICE_WIDGETS or name_of_kind == "multiselect":
        options = list(args[0]) if args else list(spec.options)
        args = (options, *args[1:])
        if name_of_kind == "multiselect":
            current = [v for v in current if v in options]
            state = st.session_state.get(key, current)
            st.session_state[key] = [v for v in state if v in options]
        else:
            if current not in options:
                current = options[0] if options else None
            if key not in st.session_state or st.session_state[key] not in options:
                st.session_state[key] = current
    elif key not in st.session_state:
        st.session_state[key] = current
    kwargs.setdefault("on_change", _from_widget)
    kwargs.setdefault("args", (name,))
    value = kind(label, *args, key=key, **kwargs)
    if value != get(name):
        put(name, value)
    return value


def _from_widget(name):
    """A widget's new value into its setting before the run it starts, so that everything the run draws
    above the widget (the lesson banner, the sidebar's highlight) reads the value the view shows."""
    put(name, st.session_state[f"w.{name}"])


def _as_text(frame):
    """``frame`` with its texts (headers, row labels, cells) escaped for Markdown (:func:`teaching.report.markdown_text`)."""
    def text(value):
        return markdown_text(value) if isinstance(value, str) else value

    return frame.rename(columns=text, index=text).apply(lambda column: column.map(text))


def show_table(rows, index=None, formats=None, help=None, wrap=False):
    """A table with numbers formatted per column, a tooltip per header and a dash (–) in the
    cells that have no value (Streamlit's table would show "None").

    rows: list of dicts (or a DataFrame); index: the column shown as the row labels (None: no row
    labels); formats: {column: format spec}; help: {column: tooltip}. The values stay numbers
    (sortable, readable by tests); only their display is formatted: in the browser's table (st.dataframe) by
    each number column's printf format (:func:`_column_config`; a pandas Styler's display values cost the
    server 7-16 ms per table and rerun, a third of a lesson's warm view). In presentation mode the table
    is a DOM table (st.table), whose text follows the mode's font size (a canvas table keeps 14 px);
    with ``wrap``, in both modes (long texts wrap onto lines instead of being cut at the column's width).
    """
    formats, help = formats or {}, help or {}
    frame = pd.DataFrame(rows)
    if index is not None:
        frame = frame.set_index(index)
    if wrap or presentation.on():
        # st.table renders its texts as Markdown: names and cells of an uploaded file are escaped to show as written
        shown = _as_text(frame).style.format({markdown_text(c): functools.partial(figures.format_number,
                                                                                  spec=formats.get(c, ".3g"))
                                              for c in frame.columns}, na_rep="")
        st.table(shown.hide(axis="index") if index is None else shown)
        return frame
    shown, config = _column_config(frame, formats, help)
    st.dataframe(shown, width="stretch", column_config=config, placeholder="–", hide_index=index is None)
    return frame


#: Python's format specs of :func:`show_table` ("" is "g") as the printf formats of Streamlit's number columns.
_PRINTF = re.compile(r"^(\.\d+)?([dfeg])$")


def _column_config(frame, formats, help):
    """(the frame to draw, its column_config) for :func:`show_table`'s st.dataframe: a column of numbers (and gaps)
    keeps its numbers, shown with its spec as a printf format (".3g" -> "%.3g"); any other column (yes/no, texts,
    numbers mixed with texts) is shown as text, each value formatted by :func:`teaching.numbers.format_number` with
    the column's spec (as in presentation mode's table)."""
    config, texts = {}, {}
    for column in frame.columns:
        spec = formats.get(column, ".3g")
        values = [v for v in frame[column].tolist() if v is not None and not (isinstance(v, float) and math.isnan(v))]
        printf = _PRINTF.match(spec)
        if values and printf and all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                                     for v in values):
            config[column] = st.column_config.NumberColumn(column, help=help.get(column),
                                                           format=f"%{printf[1] or ''}{printf[2]}")
        else:
            config[column] = st.column_config.TextColumn(column, help=help.get(column))
            texts[column] = frame[column].map(lambda v: None if v is None or (isinstance(v, float) and math.isnan(v))
                                              else figures.format_number(v, spec), na_action="ignore")
    return (frame.assign(**texts) if texts else frame), config
