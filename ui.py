"""Thin Streamlit glue shared by the pages: settings kept in session state and in the URL,
cached calls into covshift, and a guard that turns any failure into a readable message."""

import json

import streamlit as st

from covshift import catalog, lessons, plots

DEFAULTS = {
    "source": "built-in", "dataset": "sinc", "seed": 0,
    **{f"{name}.{param}": spec[0] for name, (_, params) in catalog.DATASETS.items()
       for param, spec in params.items()},
    "estimators": ["FCFWCS", "PFWCS"], "sigma_mode": "auto", "sigma": 0.3,
    "models": ["GPR", "SMTGP", "IW-SMTGP"], "weights_for_models": "FCFWCS",
    "theta": 0.9, "gamma": 1.5, "rho_x": 0.3, "rho_y": 0.5, "lambda_x": 1e-3, "lambda_y": 1e-3,
    "few_labels": False, "n_labels": 10, "gap_axis": "iteration", "replay": "PFWCS", "step": 0,
    "csv_inputs": [], "csv_outputs": [], "csv_split": "selection bias", "presentation": False, "home_width": 2.0,
}


def _decode(name, text):
    default = DEFAULTS[name]
    try:
        if isinstance(default, bool):
            return text.lower() in ("1", "true", "yes")
        if isinstance(default, int):
            return int(float(text))
        if isinstance(default, float):
            return float(text)
        if isinstance(default, list):
            return [v for v in text.split(",") if v]
        return text
    except ValueError:
        return default


def _encode(value):
    return ",".join(value) if isinstance(value, list) else str(value)


def init():
    """Settings from the URL (what a shared link carries) over the defaults, once per session."""
    if "settings" not in st.session_state:
        settings = dict(DEFAULTS)
        for name, text in st.query_params.to_dict().items():
            if name in DEFAULTS:
                settings[name] = _decode(name, text)
        st.session_state.settings = settings


def get(name):
    return st.session_state.settings[name]


def put(name, value):
    """Store a setting and mirror the non-default settings into the URL."""
    st.session_state.settings[name] = value
    wanted = {k: _encode(v) for k, v in st.session_state.settings.items() if v != DEFAULTS.get(k)}
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


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
    st.query_params.clear()


def widget(kind, label, name, *args, **kwargs):
    """A Streamlit widget bound to setting ``name`` (persists across pages and in the URL).

    The widget's state is seeded from the setting through its session-state key, so that
    presets and resets (button callbacks) can move it.
    """
    key = f"w.{name}"
    current = get(name)
    if kind in (st.selectbox, st.radio):
        options = list(args[0])
        if current not in options:
            current = options[0]
    elif kind is st.multiselect:
        current = [v for v in current if v in list(args[0])]
    if key not in st.session_state or (kind in (st.selectbox, st.radio) and st.session_state[key] not in args[0]):
        st.session_state[key] = current
    elif kind is st.multiselect:
        st.session_state[key] = [v for v in st.session_state[key] if v in list(args[0])]
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


def show_table(rows, index, formats=None, help=None):
    """A table with blank empty cells, numbers formatted per column and a tooltip per header.

    rows: list of dicts; formats: {column: format spec}; help: {column: tooltip}.
    """
    import pandas as pd

    formats, help = formats or {}, help or {}
    frame = pd.DataFrame([{k: plots.format_number(v, formats.get(k, ".3g")) if k != index else v
                           for k, v in row.items()} for row in rows]).set_index(index)
    config = {c: st.column_config.TextColumn(c, help=help.get(c)) for c in frame.columns}
    st.dataframe(frame, width="stretch", column_config=config)
    return frame


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
def data_spec(dataset=None):
    """The small, hashable description of the current data (the cache key); ``dataset``
    forces a built-in data set with its current parameters (Home always uses sinc)."""
    if dataset is None and get("source") == "csv" and "csv_bytes" in st.session_state:
        return ("csv", json.dumps([get("csv_inputs"), get("csv_outputs"), get("csv_split")]), get("seed"))
    name = dataset or get("dataset")
    params = tuple((p, get(f"{name}.{p}")) for p in catalog.DATASETS[name][1])
    return ("built-in", name, params, get("seed"))


@st.cache_data(show_spinner=False, max_entries=32)
def _built_in(name, params, seed):
    return catalog.make_dataset(name, seed=seed, **dict(params))


@st.cache_data(show_spinner=False, max_entries=8)
def csv_table(raw):
    return catalog.read_csv(raw)


@st.cache_data(show_spinner=False, max_entries=16)
def _from_csv(raw, columns_json, seed):
    inputs, outputs, split = json.loads(columns_json)
    table = csv_table(raw)  # the cached parse the data page already made
    return catalog.csv_dataset(table, inputs, outputs, None if split == "selection bias" else split, seed)


def load_data(spec=None):
    spec = spec or data_spec()
    if spec[0] == "csv":
        return _from_csv(st.session_state["csv_bytes"], spec[1], spec[2])
    return _built_in(*spec[1:])


def current_data():
    """The data set of the current settings, or None (with an error shown)."""
    return guard("Data", load_data)


def data_name():
    return "csv" if data_spec()[0] == "csv" else get("dataset")


# -------------------------------------------------------------- weights
def sigma_setting():
    return None if get("sigma_mode") == "auto" else float(get("sigma"))


@st.cache_data(show_spinner=False, max_entries=64)
def _weights(spec, name, sigma):
    return catalog.fit_weights(load_data(spec), name, sigma)


def weights(name, spec=None):
    """Cached weight fit for the current data: catalog.Outcome."""
    return _weights(spec or data_spec(), name, sigma_setting())


@st.cache_data(show_spinner=False, max_entries=256)
def replay_state(spec, name, sigma, step):
    """mu after ``step`` iterations of a Frank-Wolfe solver (rerun up to that step)."""
    from covshift.catalog import make_weight_estimator, run_with_warnings

    data = load_data(spec)
    sigma_used = weights(name, spec).model.sigma_
    est = make_weight_estimator(name, sigma_used, max_iter=max(int(step), 0), tol=1e-12)
    fitted, _, _ = run_with_warnings(lambda: est.fit(data.X_tr, data.X_te))
    return fitted.center_index_, fitted.alpha_


@st.cache_data(show_spinner=False, max_entries=64)
def weighting_effect(spec, weight_name, sigma, width, lambda_x, grid_range):
    """catalog.weighting_effect on the data of ``spec`` (Home's Why-weights figure)."""
    import numpy as np

    grid = np.linspace(*grid_range, 300)[:, None]
    estimated = _weights(spec, weight_name, sigma).model.weights_
    return catalog.weighting_effect(load_data(spec), estimated, width, lambda_x, grid)


@st.cache_data(show_spinner=False, max_entries=32)
def weighting_by_width(spec, weight_name, sigma, widths, lambda_x):
    estimated = _weights(spec, weight_name, sigma).model.weights_
    return catalog.weighting_by_width(load_data(spec), estimated, widths, lambda_x)


# ----------------------------------------------------------- regression
def hyper():
    return {k: float(get(k)) for k in ["theta", "gamma", "rho_x", "rho_y", "lambda_x", "lambda_y"]}


@st.cache_data(show_spinner=False, max_entries=64)
def _prediction(spec, name, weight_name, sigma, hyper_items):
    data = load_data(spec)
    w = _weights(spec, weight_name, sigma).model.weights_ if catalog.REGRESSORS[name] else None
    return catalog.fit_predict(data, name, w, **dict(hyper_items))


def prediction(name):
    return _prediction(data_spec(), name, get("weights_for_models"), sigma_setting(),
                       tuple(sorted(hyper().items())))


def open_lesson(title):
    """Button callback: every setting back to its default, then the lesson's settings.

    Starting from the defaults makes a lesson self-contained: clicking it after any other
    lesson gives the same view, URL and numbers as clicking it in a fresh session.
    """
    lesson = lessons.LESSONS[title]
    presentation = get("presentation")
    reset()
    apply({**lesson.settings, "presentation": presentation})
    st.session_state["open_page"] = lesson.page


def active_lesson():
    """The lesson whose settings (except the seed) the current settings match, or None."""
    current = st.session_state.settings
    for lesson in lessons.LESSONS.values():
        if all(current.get(k) == v for k, v in lesson.settings.items() if k != "seed"):
            return lesson
    return None


def claims(figure):
    """Show the active lesson's claims about ``figure`` (each checked by tests/test_lessons.py)."""
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


def chart(fig, container=None, **kwargs):
    """st.plotly_chart with the presentation style when the sidebar switch is on."""
    if get("presentation"):
        fig = plots.presentation(fig)
    (container or st).plotly_chart(fig, width="stretch", **kwargs)


def sidebar():
    """Shared sidebar: lessons, data set, seed, presentation switch, reset."""
    with st.sidebar:
        st.header("Lessons")
        for title, lesson in lessons.LESSONS.items():
            st.button(title, key=f"lesson.{lesson.key}", width="stretch", on_click=open_lesson, args=(title,),
                      help=lesson.summary)
        target = st.session_state.pop("open_page", None)
        if target is not None:
            st.switch_page(target, query_params=st.query_params.to_dict())
        st.header("Data")
        widget(st.radio, "Source", "source", ["built-in", "csv"], horizontal=True,
               help="Upload a CSV on the Data & shift page.")
        names = list(catalog.DATASETS)
        widget(st.selectbox, "Built-in data set", "dataset", names,
               format_func=lambda n: catalog.DATASETS[n][0])
        widget(st.number_input, "Seed", "seed", min_value=0, max_value=10_000, step=1,
               help="Draws new random data with the same settings; lesson claims are checked on seeds 0-2.")
        widget(st.toggle, "Presentation (projector)", "presentation",
               help="Larger fonts, thicker lines and bigger markers in every figure.")
        st.button("Reset to defaults", key="reset", width="stretch", on_click=reset)
        st.caption("Every setting is in the page address: copy the link to share exactly this view.")
