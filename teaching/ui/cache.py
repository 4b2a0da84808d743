"""Caching at one place: the view pipeline's steps in st.cache_data (:func:`step_cache`), figures by the content of their data.

Importing it changes nothing: :func:`teaching.serve.start` installs :func:`step_cache` once per server.
"""

import dataclasses
import hashlib
import pickle

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from teaching import figures
from teaching.steps import BuiltInData, UploadedData
from teaching.ui import presentation as mode
from teaching.ui.guard import guard


def step_cache(function, max_entries):
    """``function`` (a step of :mod:`teaching.steps`) cached by st.cache_data, shared by every session:
    the ``make_cache`` the app gives :func:`teaching.steps.use_cache`.

    A data spec (a frozen dataclass of names, numbers and tuples) is keyed by its ``repr``, which names its class and
    every field exactly: Streamlit's own hashing of a dataclass copies it to a dict first (``dataclasses.asdict``), a
    tenth of a lesson's warm run, where every step call of the run hashes the view's spec again."""
    return st.cache_data(function, show_spinner=False, max_entries=max_entries, hash_funcs=_SPEC_KEYS)


#: The step arguments keyed by their repr (see :func:`step_cache`).
_SPEC_KEYS = {BuiltInData: repr, UploadedData: repr}


def content_key(*values):
    """A digest of ``values`` by content: numpy arrays by dtype, shape and every byte;
    dicts, lists and tuples element by element; other objects by their pickle.

    The key of the figure cache (:func:`figure`). Unlike st.cache_data's own hashing it never
    samples large arrays, so two inputs that differ anywhere get different keys. A dataclass
    instance (e.g. a solver's :class:`covshift.weights.fw_loop.FrankWolfeHistory`) is read by its
    class and fields, its arrays fed to the digest where they lie (pickling four 2000-row histories
    for every rerun of the KLIEP lesson took ~4 ms per figure). Raises TypeError for what cannot be
    pickled (e.g. a lambda).
    """
    digest = hashlib.sha256()  # with the CPU's SHA instructions ~1.7x blake2b's speed here (1.5 vs 0.9 GB/s)
    _feed(digest, values)
    return digest.hexdigest()


def _feed(digest, value):
    if isinstance(value, np.ndarray) and value.dtype != object:
        digest.update(f"ndarray{value.dtype.str}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).reshape(-1).view(np.uint8))  # its bytes, not a copy of them
    elif isinstance(value, np.ndarray):
        digest.update(f"objects{value.shape}".encode())
        _feed(digest, value.ravel().tolist())
    elif isinstance(value, dict):
        digest.update(f"dict{len(value)}".encode())
        for item in value.items():
            _feed(digest, item)
    elif isinstance(value, (list, tuple)):
        digest.update(f"{type(value).__name__}{len(value)}".encode())
        for item in value:
            _feed(digest, item)
    elif value is None or isinstance(value, (str, bool, int, float, complex, np.generic)):
        text = repr(value)
        digest.update(f"{type(value).__name__}{len(text)}:{text}".encode())
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        digest.update(f"dataclass{kind.__module__}.{kind.__qualname__}".encode())
        _feed(digest, [(field.name, getattr(value, field.name)) for field in dataclasses.fields(value)])
    else:
        digest.update(pickle.dumps(value, protocol=5))


def of_view(function, view, *args):
    """``function(view, *args)``: what a page derives from its View's steps (numbers, curves; never a fit: the fits
    are the steps'), computed once per equal View and arguments and shared by every session (st.cache_resource, beside
    the figures), so a rerun, or another student on the same view, reads it instead of computing it again.
    ``function``: a module-level function of teaching (its name says which code it runs); the View and ``args`` are
    keyed by their ``repr`` (a View's is every field's: equal Views, equal keys; Streamlit's hashing of a View's
    nested dataclasses costs more). The result is shared: read it, do not change it (its arrays are made read-only).
    A failure is not kept: it is raised again, and computed again next time."""
    return _of_view(_core_function_name(function), repr((view, args)), function, view, args)


@st.cache_resource(show_spinner=False, max_entries=256)
def _of_view(function_name, key, _function, _view, _args):
    return _read_only(_function(_view, *_args))


def _read_only(value):
    """``value`` with every numpy array in it (in tuples, lists and dicts) made read-only, in place."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (tuple, list)):
        for item in value:
            _read_only(item)
    elif isinstance(value, dict):
        for item in value.values():
            _read_only(item)
    return value


#: Width (px) a stage figure's legend has in presentation mode (3/5 of the main area at 1280 px, less margins).
STAGE_LEGEND_WIDTH = 600


def _laid_out(figure, presentation, height, phone=False):
    """``figure`` (just built for this call, shared with nobody) laid out for the device, in place: a copy would
    serialise and validate it again (~10 ms for a lesson's stage figure, issue 40)."""
    if phone:  # a phone's width: its own layout, taller than a stage on a screen (the phone scrolls)
        return figures.phone(figure, copy=False)
    figure = figures.presentation(figure, copy=False) if presentation else figure
    if height:
        return figures.fit_height(figure, height, STAGE_LEGEND_WIDTH if presentation else None, copy=False)
    return figure


class _Drawn(go.Figure):
    """A figure of the figure cache as ``st.plotly_chart`` takes it: an empty plotly figure whose :meth:`to_dict`
    (what Streamlit serialises) is the cached figure's dict, made on its first draw and kept with the cache entry.

    ``go.Figure.to_dict`` deep-copies the figure and turns every array into base64 on every call: 2-7 ms of a lesson's
    warm rerun (all its figures), for the same figure. The dict is shared, like the figure: read it, do not change it
    (Streamlit reads it; plotly's ``to_json`` removes the traces' ``uid``, which the app's figures do not have)."""

    def __init__(self, figure):
        super().__init__()
        self._drawn_from, self._drawn = figure, None

    def to_dict(self):
        if self._drawn is None:
            self._drawn = self._drawn_from.to_dict()
        return self._drawn


@st.cache_resource(show_spinner=False, max_entries=128)
def _cached_figure(function_name, key, presentation, height, phone, _make_figure, _args, _kwargs):
    figure = _laid_out(_make_figure(*_args, **_kwargs), presentation, height, phone)
    return figure, _Drawn(figure)


def device():
    """How this session's figures are laid out: ``{"presentation": ..., "phone": ...}`` (the keyword
    arguments of :func:`figure`), from the presentation switch and the browser's device
    (:mod:`teaching.ui.presentation`: a phone never gets the projector's layout)."""
    return {"presentation": mode.on(), "phone": mode.phone()}


def figure(make_figure, *args, presentation=False, height=None, phone=False, **kwargs):
    """``make_figure(*args, **kwargs)`` (a pure teaching.figures function), built once per content.

    Building a plotly figure validates every property (0.02-0.3 s a figure); a rerun that shows
    the same data reuses the figure, cached by the content of the arguments (:func:`content_key`),
    never by names. The figure is shared between reruns and sessions: read it, do not change it.
    With ``presentation``, the enlarged copy (teaching.figures.presentation); with ``height``, at most that
    tall (teaching.figures.fit_height: a lesson's stage fits one screen); with ``phone``, laid out for a
    phone's width instead (teaching.figures.phone). Pages pass :func:`device`'s two.
    """
    return _figure_and_drawn(make_figure, *args, presentation=presentation, height=height, phone=phone, **kwargs)[0]


def _figure_and_drawn(make_figure, *args, presentation=False, height=None, phone=False, **kwargs):
    """(:func:`figure`'s figure, what ``st.plotly_chart`` draws of it: its :class:`_Drawn` when it is cached)."""
    try:
        name, key = _core_function_name(make_figure), content_key(args, kwargs)
    except (TypeError, AttributeError, pickle.PicklingError):  # no reliable key: build it every time
        built = _laid_out(make_figure(*args, **kwargs), presentation, height, phone)
        return built, built
    return _cached_figure(name, key, bool(presentation), height, bool(phone), make_figure, args, kwargs)


def _core_function_name(function):
    """The name "module.qualname" of ``function`` if it is a module-level function of covshift or teaching, so that
    its name says which code it runs (a page's local function or a lambda could share its name with another); else
    TypeError."""
    module, qualname = getattr(function, "__module__", "") or "", getattr(function, "__qualname__", "<?>")
    if not module.startswith(("covshift.", "teaching.")) or "<" in qualname:
        raise TypeError(f"{module}.{qualname} is not a function of the covshift or teaching package")
    return f"{module}.{qualname}"


def chart(title, make_figure, *args, key=None, where=None, height=None, **kwargs):
    """Draw ``make_figure(*args, **kwargs)`` (a teaching.figures function) with a unique key,
    or a message if the figure cannot be drawn from these data. With the sidebar's
    presentation switch on, fonts, lines and markers are enlarged (teaching.figures.presentation). The figure
    keeps its own (plotly_white) colours in both of Streamlit's themes: Streamlit's theme greys the tick
    labels to ~3.7:1 contrast, below WCAG's 4.5:1.
    The figure is built once per content of the arguments (:func:`figure`); ``height``: at most so tall
    (px), e.g. :func:`stage_height` for the figure of a lesson's first screen. On a phone the figure is laid
    out for its width (:func:`device`).

    Plotly's toolbar is not drawn on a touch screen (nothing hovers, so it would stay over the title) nor on
    a lesson's stage figure (a figure with ``height``): its 8 buttons would come first in the Tab order,
    between the lesson's title and the stage's control."""
    built = guard(title, _figure_and_drawn, make_figure, *args, height=height, **device(), **kwargs)
    if built is not None:
        (where or st).plotly_chart(built[1], width="stretch", key=key, theme=None, config=chart_config(stage=bool(height)))


def chart_config(stage=False):
    """plotly's config for a chart of this session (see :func:`chart`): no toolbar on a touch screen or a stage."""
    return {"displayModeBar": False} if stage or mode.touch() else {}


#: Heights (px) of a stage's figure, presentation mode off and on: with the title and the one-line lesson
#: banner above it, the whole figure fits a 1280 x 800 screen (tests/teaching/browser/test_stage_browser.py).
STAGE_HEIGHTS = {False: 500, True: 440}


def stage_height():
    """The height of the figure of a lesson's stage in this mode (:data:`STAGE_HEIGHTS`)."""
    return STAGE_HEIGHTS[mode.on()]
