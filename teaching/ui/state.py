"""Settings in session state and in the page address: read, write, reset; an address the browser brings (a link, Back, Forward) is read."""

from urllib import parse

import streamlit as st

from teaching import report, settings

DEFAULTS = settings.defaults()


def init():
    """Settings from the URL (what a shared link carries) over the defaults when the session
    starts, and again whenever the browser brings an address this session did not write (Back,
    Forward, an edited address): each history entry is then the view its address names. Then, on
    every run, the settings back into the URL (page switches and reloads keep them)."""
    query = _address_query()
    path = _browser_path()
    same_page = path is not None and path == st.session_state.get("url_path")
    if "settings" not in st.session_state or (query != st.session_state.get("url_written") and (query or same_page)):
        values, notices = settings.parse_query(query)
        if "settings" in st.session_state:
            _seed_widgets(values)
        st.session_state.settings = values
        st.session_state.link_notices = notices
    st.session_state.url_path, st.session_state.same_page = path, same_page
    sync_url()


def _address_query():
    """The query of the address, every value of a repeated key (a list of names) kept: Streamlit's
    inverse of ``st.query_params.from_dict``."""
    return {key: st.query_params.get_all(key) for key in st.query_params}


def _browser_path():
    """The path of the address the browser sent with this run (st.context.url), None if unknown.

    A sidebar page link drops the query and reports the new page's path: an empty query on
    another page is a page switch, whose settings are kept and written back. (So Back to an
    entry without any query on another page, e.g. the app's first address, keeps the settings:
    the browser reports it exactly as it reports a page link.)"""
    url = st.context.url
    return parse.urlsplit(url).path if url else None


def _seed_widgets(values):
    """Every drawn setting widget shows ``values`` in this run (called before any widget is drawn)."""
    for name, value in values.items():
        if f"w.{name}" in st.session_state:
            st.session_state[f"w.{name}"] = value


def sync_url():
    """Write every non-default setting into st.query_params (only when the address differs)."""
    wanted = settings.to_query(st.session_state.settings)
    written = settings.as_lists(wanted)
    # A page link to the page shown changes st.query_params, not the address: write it there too
    # (a link to another page gets its address from Streamlit's page switch: no entry in between).
    url = st.context.url if st.session_state.get("same_page") else None
    shown = parse.parse_qs(parse.urlsplit(url).query, keep_blank_values=True) if url else written
    if _address_query() != written or shown != written:
        st.query_params.from_dict(wanted)
    st.session_state.url_written = written


def link_notice():
    """The one notice about values of the opened link that were ignored or changed."""
    notices = st.session_state.get("link_notices")
    if notices:
        listed = "\n".join(f"- {_escape_markdown(note)}" for note in notices)
        st.warning(f"**Some values in this link could not be used as given:**\n{listed}",
                   icon=":material/link_off:")


def link_limits():
    """A warning per chosen name that a link cannot carry whole (:func:`teaching.settings.beyond_link`): a copied
    link of the view would show another one. The names are shown as text."""
    for sentence in settings.beyond_link(st.session_state.settings):
        st.warning(_escape_markdown(sentence), icon=":material/link_off:")


def _escape_markdown(text):
    """Text from a link shown literally: no links, emphasis or maths injected by the address."""
    return report.markdown_text(text)


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
    st.navigation, which only app.py does. Calling st.navigation (public API) is what ends v1 for the
    whole server; then read the link and rerun, now through app.py.
    """
    from teaching.ui.pages import pages

    st.navigation(pages(), position="hidden")  # public API: ends multipage v1, keeps the requested page
    init()
    st.rerun()


def put(name, value):
    """Store a setting and mirror the non-default settings into the URL."""
    if st.session_state.settings.get(name) != value:
        st.session_state.settings[name] = value
        st.session_state.link_notices = []  # the view has moved on from the link
    sync_url()


def apply(changes):
    """Apply a lesson's settings or reset (from a button callback, before the widgets are drawn)."""
    for name, value in changes.items():
        put(name, value)
        st.session_state[f"w.{name}"] = value


def replace_all(values):
    """The settings become ``values`` (every setting), widgets included, the address written once
    (no history entry of a half-changed view); called before the widgets are drawn."""
    st.session_state.settings = dict(values)
    st.session_state.link_notices = []
    _seed_widgets(values)
    sync_url()


def reset():
    replace_all(DEFAULTS)
