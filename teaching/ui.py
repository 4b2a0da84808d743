"""Thin Streamlit glue shared by the pages: settings kept in session state and in the URL,
cached calls into covshift, and a guard that turns any failure into a readable message.

Settings and their domains live in :mod:`teaching.settings`; every widget drawn through
:func:`widget` takes its range and options from there, and every run writes the non-default
settings into the page address (:func:`sync_url`), so a copied link reproduces the view.
"""

import functools
import hashlib
import json
import math
import pickle

import streamlit as st

from teaching import budget

from teaching import catalog, lessons, figures, settings

DEFAULTS = settings.defaults()
_NUMERIC_WIDGETS = (st.slider, st.number_input)
_CHOICE_WIDGETS = (st.selectbox, st.radio, st.select_slider)


def init():
    """Settings from the URL (what a shared link carries) over the defaults, once per session;
    then, on every run, the settings back into the URL (page switches and reloads keep them)."""
    if "settings" not in st.session_state:
        values, notices = settings.parse_query(st.query_params.to_dict())
        st.session_state.settings = values
        st.session_state.link_notices = notices
    sync_url()


def sync_url():
    """Write every non-default setting into st.query_params (only when the address differs)."""
    wanted = settings.to_query(st.session_state.settings)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def link_notice():
    """The one notice about values of the opened link that were ignored or changed."""
    notices = st.session_state.get("link_notices")
    if notices:
        listed = "\n".join(f"- {_escape_markdown(note)}" for note in notices)
        st.warning(f"**Some values in this link could not be used as given:**\n{listed}",
                   icon=":material/link_off:")


def _escape_markdown(text):
    """Text from a link shown literally: no links, emphasis or maths injected by the address."""
    return "".join("\\" + c if c in "\\`*[]()#!|<>$~:" else c for c in text)


def get(name):
    if "settings" not in st.session_state:
        _run_through_app()
    return st.session_state.settings[name]


def through_app():
    """The first call of every page: a page the server runs without app.py (a shared page
    link as a fresh server's first request) reruns through app.py, so its sidebar, settings
    and link are those of the whole app (see :func:`_run_through_app`). No-op under app.py."""
    get("seed")


def _run_through_app():
    """Recover when a page runs without app.py, then run again through app.py.

    A fresh server whose first request is a page's address (a shared link) runs the file in
    pages/ alone (Streamlit's multipage v1, chosen because the folder exists) until a run calls
    st.navigation, which only app.py does. Leave v1 as st.navigation would, read the link, rerun.
    """
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False
    init()
    st.rerun()


def put(name, value):
    """Store a setting and mirror the non-default settings into the URL."""
    if st.session_state.settings.get(name) != value:
        st.session_state.settings[name] = value
        st.session_state.link_notices = []  # the view has moved on from the link
    sync_url()


def apply(changes):
    """Apply a preset or reset (from a button callback, before the widgets are drawn)."""
    for name, value in changes.items():
        put(name, value)
        st.session_state[f"w.{name}"] = value


def reset():
    for name, value in DEFAULTS.items():
        if f"w.{name}" in st.session_state:
            st.session_state[f"w.{name}"] = value
    st.session_state.settings = dict(DEFAULTS)
    st.session_state.link_notices = []
    st.query_params.clear()


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
    that presets and resets (button callbacks) can move it, and it is kept inside the domain.
    """
    spec = settings.SETTINGS[name]
    key = f"w.{name}"
    current = get(name)
    if kind in _NUMERIC_WIDGETS:
        lo, hi = _bounds(spec, args, kwargs)
        args = ()
        if kind is st.slider and hi <= lo:  # a one-value range (a slider needs min < max)
            hi, kwargs["disabled"] = lo + type(lo)(spec.step or 1), True
        kwargs.update(min_value=lo, max_value=hi)
        if spec.step is not None and "step" not in kwargs:
            kwargs["step"] = type(lo)(spec.step)
        current = _clamp(current, lo, hi)
        state = st.session_state.get(key)
        if type(state) is not type(lo) or state != _clamp(state, lo, hi):
            st.session_state[key] = current
    elif kind in _CHOICE_WIDGETS or kind is st.multiselect:
        options = list(args[0]) if args else list(spec.options)
        args = (options, *args[1:])
        if kind is st.multiselect:
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
    value = kind(label, *args, key=key, **kwargs)
    if value != get(name):
        put(name, value)
    return value


def guard(title, fn, *args, **kwargs):
    """Run fn; show a clear message instead of a traceback when it fails."""
    try:
        return fn(*args, **kwargs)
    except ValueError as exc:
        st.error(f"**{title}**: {exc}")
    except NotImplementedError as exc:
        st.info(f"**{title}**: {exc}")
    except Exception as exc:  # the page must keep working whatever the core raises
        st.error(f"**{title}** failed ({type(exc).__name__}: {exc}). Try other settings.")
    return None


PAGE_FAILED = "This page could not be drawn with these settings"


def page_failed(exc):
    """Last line of defence (app.py): a message instead of a traceback if a page still fails."""
    st.error(f"**{PAGE_FAILED}** ({type(exc).__name__}: {exc}). Change a setting or press "
             "*Reset to defaults* in the sidebar.")


def content_key(*values):
    """A digest of ``values`` by content: numpy arrays by dtype, shape and every byte;
    dicts, lists and tuples element by element; other objects by their pickle.

    The key of the figure cache (:func:`figure`). Unlike st.cache_data's own hashing it never
    samples large arrays, so two inputs that differ anywhere get different keys. Raises
    TypeError for what cannot be pickled (e.g. a lambda).
    """
    digest = hashlib.blake2b(digest_size=20)
    _feed(digest, values)
    return digest.hexdigest()


def _feed(digest, value):
    import numpy as np

    if isinstance(value, np.ndarray) and value.dtype != object:
        digest.update(f"ndarray{value.dtype.str}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
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
    else:
        digest.update(pickle.dumps(value, protocol=5))


@st.cache_resource(show_spinner=False, max_entries=128)
def _cached_figure(function_name, key, presentation, _make_figure, _args, _kwargs):
    figure = _make_figure(*_args, **_kwargs)
    return figures.presentation(figure) if presentation else figure


def figure(make_figure, *args, presentation=False, **kwargs):
    """``make_figure(*args, **kwargs)`` (a pure teaching.figures function), built once per content.

    Building a plotly figure validates every property (0.02-0.3 s a figure); a rerun that shows
    the same data reuses the figure, cached by the content of the arguments (:func:`content_key`),
    never by names. The figure is shared between reruns and sessions: read it, do not change it.
    With ``presentation``, the enlarged copy (teaching.figures.presentation).
    """
    name = f"{make_figure.__module__}.{make_figure.__qualname__}"
    try:
        if not _is_named_core_function(make_figure):
            raise TypeError(f"{name} is not a function of the covshift or teaching package")
        key = content_key(args, kwargs)
    except (TypeError, AttributeError, pickle.PicklingError):  # no reliable key: build it every time
        built = make_figure(*args, **kwargs)
        return figures.presentation(built) if presentation else built
    return _cached_figure(name, key, bool(presentation), make_figure, args, kwargs)


def _is_named_core_function(function):
    """A module-level function of covshift or teaching, so that its name says which code it runs (a page's
    local function or a lambda could share its name with another)."""
    module, qualname = getattr(function, "__module__", "") or "", getattr(function, "__qualname__", "<?>")
    return module.startswith(("covshift.", "teaching.")) and "<" not in qualname


def chart(title, make_figure, *args, key=None, where=None, **kwargs):
    """Draw ``make_figure(*args, **kwargs)`` (a teaching.figures function) with a unique key,
    or a message if the figure cannot be drawn from these data. With the sidebar's
    presentation switch on, fonts, lines and markers are enlarged (teaching.figures.presentation).
    The figure is built once per content of the arguments (:func:`figure`)."""
    built = guard(title, figure, make_figure, *args, presentation=get("presentation"), **kwargs)
    if built is not None:
        (where or st).plotly_chart(built, width="stretch", key=key)


def show_table(rows, index, formats=None, help=None):
    """A table with numbers formatted per column, a tooltip per header and a dash (–) in the
    cells that have no value (Streamlit's table would show "None").

    rows: list of dicts; formats: {column: format spec}; help: {column: tooltip}. The values
    stay numbers (sortable, readable by tests); only their display is formatted.
    """
    import functools as _functools

    import pandas as pd

    formats, help = formats or {}, help or {}
    frame = pd.DataFrame(rows).set_index(index)
    shown = frame.style.format({c: _functools.partial(figures.format_number, spec=formats.get(c, ".3g"))
                                for c in frame.columns}, na_rep="")
    config = {c: st.column_config.Column(c, help=help.get(c)) for c in frame.columns}
    st.dataframe(shown, width="stretch", column_config=config, placeholder="–")
    return frame


def quiet(fn, *args):
    """fn(*args), or None (shown as an empty cell) when it fails or is not finite: for the
    numbers beside a figure, which must not take the page down with them."""
    try:
        value = fn(*args)
    except Exception:  # a number that cannot be computed is shown as missing
        return None
    numbers = value if isinstance(value, tuple) else (value,)
    if any(isinstance(v, float) and not math.isfinite(v) for v in numbers):
        return None
    return value


def show_warnings(name, messages):
    for message in messages:
        st.warning(f"{name}: {message}")


def run_each(names, fn, doing, done, hide=None):
    """fn(name) for every name under one progress status; failures and warnings are shown
    (except those for which ``hide(name, message)`` is true: the page reports them itself).

    Returns {name: catalog.Outcome} for the names that succeeded.
    """
    outcomes = {}
    with st.status(f"{doing}...", expanded=False) as status:
        for i, name in enumerate(names):
            status.update(label=f"{doing}: {name} ({i + 1}/{len(names)})")
            outcome = guard(name, fn, name)
            if outcome is not None:
                outcomes[name] = outcome
        status.update(label=done, state="complete")
    for name, outcome in outcomes.items():
        show_warnings(name, [m for m in outcome.warnings if hide is None or not hide(name, m)])
    return outcomes


# ----------------------------------------------------------------- data
CSV_MISSING = ("This view uses an uploaded CSV file, and a link cannot carry the file. Upload it on "
               "the **Data & shift** page to see the view (the column choices of the link are kept).")


@functools.lru_cache(maxsize=16)
def digest(raw):
    """SHA-256 of uploaded bytes: the cache key of everything computed from them."""
    return hashlib.sha256(raw).hexdigest()


def csv_bytes():
    """The uploaded CSV of this session, or None."""
    return st.session_state.get("csv_bytes")


def data_spec(dataset=None):
    """The small, hashable description of the current data (the cache key).

    For a CSV it holds the digest of the file's bytes (None when this session has no file),
    the column choices, the seed (which also seeds the subsample of a large file) and the
    number of rows kept (:func:`csv_row_limit`).
    ``dataset`` forces a built-in data set with its current parameters (Home always uses sinc).
    """
    if dataset is None and get("source") == "csv":
        raw = csv_bytes()
        return ("csv", digest(raw) if raw is not None else None,
                json.dumps([get("csv_inputs"), get("csv_outputs"), get("csv_split")]), int(get("seed")),
                csv_row_limit())
    name = dataset or get("dataset")
    params = tuple((p, get(f"{name}.{p}")) for p in catalog.DATASETS[name][1])
    return ("built-in", name, params, int(get("seed")))


def _raw_for(file_digest):
    """This session's CSV bytes, checked against the digest a cache key names."""
    raw = csv_bytes()
    if file_digest is None or raw is None:
        raise ValueError(CSV_MISSING.replace("**", ""))
    if digest(raw) != file_digest:
        raise ValueError("The uploaded file changed during this run; please run the page again.")
    return raw


@st.cache_data(show_spinner=False, max_entries=32)
def _built_in(name, params, seed):
    return catalog.make_dataset(name, seed=seed, **dict(params))


def selected_methods():
    """Every weight estimator and regression model the current settings run somewhere in the app."""
    return list(dict.fromkeys([*get("estimators"), *get("models"), get("weights_for_models")]))


def csv_row_limit():
    """Rows kept from an uploaded CSV: the slowest selected method decides (teaching.budget)."""
    return catalog.max_csv_rows(selected_methods(), sigma_setting())


def check_size(names, data, sigma=None):
    """ValueError naming the way out when a method would exceed the time budget on ``data``."""
    catalog.check_size(names, len(data.X_tr), len(data.X_te), sigma)


@st.cache_data(show_spinner=False, max_entries=8)
def _csv_table(file_digest, seed, max_rows, _raw):
    return catalog.read_csv(_raw, seed=seed, max_rows=max_rows)


def csv_table(raw, seed=None):
    """The parsed CSV (cached by the digest of its bytes, the subsample seed and the row limit)."""
    seed = int(get("seed")) if seed is None else int(seed)
    return _csv_table(digest(raw), seed, csv_row_limit(), raw)


@st.cache_data(show_spinner=False, max_entries=16)
def _from_csv(file_digest, columns_json, seed, max_rows, _raw):
    inputs, outputs, split = json.loads(columns_json)
    table = _csv_table(file_digest, seed, max_rows, _raw)  # the cached parse the data page already made
    return catalog.csv_dataset(table, inputs, outputs, None if split == "selection bias" else split, seed)


def load_data(spec=None):
    """The data set a spec names (see :func:`data_spec`)."""
    spec = spec or data_spec()
    if spec[0] == "csv":
        return _from_csv(spec[1], spec[2], spec[3], spec[4], _raw_for(spec[1]))
    return _built_in(*spec[1:])


def csv_missing():
    """True (with the request to upload shown) when the view is of a CSV this session lacks."""
    if get("source") == "csv" and csv_bytes() is None:
        st.info(CSV_MISSING, icon=":material/upload_file:")
        return True
    return False


def current_data():
    """The data set of the current settings, or None (with a message shown)."""
    if csv_missing():
        return None
    return guard("Data", load_data)


def data_name():
    return "csv" if get("source") == "csv" else get("dataset")


# -------------------------------------------------------------- weights
def sigma_setting():
    return None if get("sigma_mode") == "auto" else float(get("sigma"))


@st.cache_data(show_spinner=False, max_entries=32)
def _shared_sigma(spec, sigma):
    return catalog.shared_kliep_sigma(load_data(spec), sigma)


def shared_sigma(spec=None):
    """The one sigma of all KLIEP-family solvers on this view (chosen once, cached)."""
    spec = spec or data_spec()
    if sigma_setting() is None:
        check_size([budget.SHARED_SIGMA], load_data(spec))
    return _shared_sigma(spec, sigma_setting())


def _sigma_for(spec, name, sigma):
    return _shared_sigma(spec, sigma).sigma if name in catalog.KLIEP_FAMILY else sigma


@st.cache_data(show_spinner=False, max_entries=64)
def _weights(spec, name, sigma):
    return catalog.fit_weights(load_data(spec), name, sigma)


def weights(name, spec=None):
    """Cached weight fit for the current data: catalog.Outcome."""
    spec = spec or data_spec()
    sigma = _sigma_for(spec, name, sigma_setting())
    check_size([name], load_data(spec), sigma)
    return _weights(spec, name, sigma)


@st.cache_data(show_spinner=False, max_entries=64)
def weighting_effect(spec, weight_name, sigma, width, lambda_x, grid_range):
    """catalog.weighting_effect on the data of ``spec`` (Home's Why-weights figure)."""
    import numpy as np

    grid = np.linspace(*grid_range, 300)[:, None]
    check_size([weight_name, "GPR"], load_data(spec))
    estimated = _weights(spec, weight_name, _sigma_for(spec, weight_name, sigma)).model.weights_
    return catalog.weighting_effect(load_data(spec), estimated, width, lambda_x, grid)


@st.cache_data(show_spinner=False, max_entries=32)
def weighting_by_width(spec, weight_name, sigma, widths, lambda_x):
    check_size([weight_name, "GPR"], load_data(spec))
    estimated = _weights(spec, weight_name, _sigma_for(spec, weight_name, sigma)).model.weights_
    return catalog.weighting_by_width(load_data(spec), estimated, widths, lambda_x)


@st.cache_resource(show_spinner=False, max_entries=16)
def replay_figure(spec, name, sigma, presentation=False):
    """The animated replay of a fitted Frank-Wolfe run, built once from its history (no re-solve),
    enlarged for a projector with ``presentation`` (teaching.figures.presentation).

    Returns (figure, number of frames, whether the inputs are 1-D).
    """
    data = load_data(spec)
    model = _weights(spec, name, _sigma_for(spec, name, sigma)).model
    figure, n_frames, one_d = figures.replay_figure(model, data.X_tr, data.X_te, data.density_ratio)
    return (figures.presentation(figure) if presentation else figure), n_frames, one_d


# ----------------------------------------------------------- regression
def hyper():
    numbers = {k: float(get(k)) for k in ["theta", "gamma", "rho_x", "rho_y", "lambda_x", "lambda_y"]}
    return {**numbers, "tgp_start": get("tgp_start")}


@st.cache_data(show_spinner=False, max_entries=64)
def _prediction(spec, name, weight_name, sigma, hyper_items):
    data = load_data(spec)
    w = _weights(spec, weight_name, _sigma_for(spec, weight_name, sigma)).model.weights_ \
        if catalog.REGRESSORS[name] else None
    hyper = dict(hyper_items)
    stage = catalog.chain_start(name, hyper["tgp_start"])  # SMTGP's KLTGP start: cached, computed once
    start = _prediction(spec, stage, weight_name, sigma, hyper_items) if stage else None
    return catalog.fit_predict(data, name, w, start=start, **hyper)


def prediction(name):
    weights_name = get("weights_for_models")
    needs_weights = catalog.REGRESSORS.get(name)
    check_size([name], load_data())
    if needs_weights:
        check_size([weights_name], load_data(), _sigma_for(data_spec(), weights_name, sigma_setting()))
    return _prediction(data_spec(), name, get("weights_for_models"), sigma_setting(),
                       tuple(sorted(hyper().items())))


def open_lesson(title):
    """Every setting back to its default, then the lesson's settings; then its page.

    Starting from the defaults makes a lesson self-contained: clicking it after any other
    lesson gives the same view, URL and numbers as clicking it in a fresh session. Called
    from the script (not a button callback, where st.switch_page is not allowed) before the
    setting widgets of this run are drawn.
    """
    lesson = lessons.LESSONS[title]
    _open_view(lesson.settings, lesson.page)


def open_preset(label):
    """A sidebar preset, opened as a lesson is (:func:`open_lesson`): defaults, its settings, its page."""
    preset = catalog.PRESETS[label]
    changes = {"source": "built-in", **preset, **(catalog.paper_tgp_defaults(preset.get("dataset")) or {})}
    _open_view(changes, catalog.PRESET_PAGES[label])


def _open_view(settings_of_view, page):
    presentation = get("presentation")
    reset()
    apply({**settings_of_view, "presentation": presentation})
    st.switch_page(page, query_params=st.query_params.to_dict())


def active_lesson():
    """The lesson whose settings (except the seed) the current settings match, or None."""
    get("seed")  # a page run without app.py recovers here (see get)
    current = st.session_state.settings
    for lesson in lessons.LESSONS.values():
        if all(current.get(k) == v for k, v in lesson.settings.items() if k != "seed"):
            return lesson
    return None


def claims(figure):
    """Show the active lesson's claims about ``figure`` (each checked by tests/test_lessons.py),
    then an anchor the browser test scrolls to."""
    lesson = active_lesson()
    texts = lesson.claims_for(figure) if lesson is not None else []
    if texts:
        st.success(f"**{lesson.title}** (checked on seeds 0-2):\n" + "\n".join(f"- {t}" for t in texts),
                   icon=":material/check_circle:")
    st.markdown(f'<span id="view-{figure.replace(".", "-")}"></span>', unsafe_allow_html=True)


def lesson_banner():
    """Under a page title: which lesson the current settings are, if any."""
    lesson = active_lesson()
    if lesson is not None:
        st.info(f"**Lesson: {lesson.title}.** {lesson.summary} Its claims are the green boxes beside the figures.",
                icon=":material/school:")


def sidebar():
    """Shared sidebar: lessons, data set, seed, presentation switch, reset."""
    with st.sidebar:
        st.header("Lessons")
        for title, lesson in lessons.LESSONS.items():
            if st.button(title, key=f"lesson.{lesson.key}", width="stretch", help=lesson.summary):
                open_lesson(title)
        if catalog.PRESETS:
            st.header("More presets")
            for label in catalog.PRESETS:
                if st.button(label, key=f"preset.{label}", width="stretch",
                             help="Opens its page with these settings (every other setting back to its default)."):
                    open_preset(label)
        st.header("Data")
        widget(st.radio, "Source", "source", horizontal=True,
               help="Upload a CSV on the Data & shift page.")
        widget(st.selectbox, "Built-in data set", "dataset", format_func=lambda n: catalog.DATASETS[n][0])
        widget(st.number_input, "Seed", "seed",
               help="Draws new random data with the same settings; lesson claims are checked on seeds 0-2.")
        widget(st.toggle, "Presentation (projector)", "presentation",
               help="Larger fonts, thicker lines and bigger markers in every figure.")
        st.button("Reset to defaults", key="reset", width="stretch", on_click=reset)
        st.caption("Every setting is in the page address: copy the link to share exactly this view "
                   "(an uploaded CSV has to be uploaded again).")
