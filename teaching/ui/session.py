"""This session's View: the one :class:`teaching.view.View` of its settings and uploaded file, built once per run."""

import hashlib
import json

import streamlit as st

from teaching import steps, uploaded_files
from teaching.ui.guard import guard
from teaching.ui.state import get
from teaching.view import View

CSV_MISSING = uploaded_files.CSV_MISSING


def digest(raw):
    """SHA-256 of bytes: the cache key of everything computed from them. The session's upload's is kept
    beside its bytes in the session state (no process-level cache holds uploaded bytes: they go with the
    session, and :func:`teaching.uploaded_files.add_file` forgets them after a bounded time)."""
    if raw is st.session_state.get("csv_bytes"):
        kept = st.session_state.get("csv_digest")
        if kept is None or kept[0] is not raw:
            kept = (raw, hashlib.sha256(raw).hexdigest())
            st.session_state["csv_digest"] = kept
        return kept[1]
    return hashlib.sha256(raw).hexdigest()


def stored_json(path):
    """The JSON file at ``path`` (stored results), parsed once per content."""
    raw = path.read_bytes()
    return _parsed(digest(raw), raw)


@st.cache_data(show_spinner=False, max_entries=4)
def _parsed(file_digest, _raw):  # stored JSON files of the app, not uploads
    return json.loads(_raw)


def csv_bytes():
    """The uploaded CSV of this session, or None."""
    return st.session_state.get("csv_bytes")


def _settings():
    get("seed")  # a page run without app.py recovers here (see state.get)
    return st.session_state.settings


def view(dataset=None):
    """This session's View (``dataset``: a built-in data set forced, with its current parameters, as on
    Home), built once per run: it is kept with the settings and the file it was built from and built again
    only when they have changed (a widget moved, a link opened), so every call of a run gets the same object
    and its kernel width is resolved once. A page calls it once, after drawing the widgets of its view."""
    raw = csv_bytes()
    file_digest = None if raw is None else uploaded_files.add_file(raw, digest(raw))  # also keeps the file while in use
    source = (_snapshot(_settings()), file_digest)
    kept = st.session_state.get("views", {})
    built_from, shown = kept.get(dataset, (None, None))
    if built_from != source:
        built = View.from_settings(_settings(), file_digest, dataset)
        shown = shown if shown == built else built  # the same value keeps its object (its resolved width)
        st.session_state["views"] = {**kept, dataset: (source, shown)}
    return shown.new_run()


def _snapshot(values):
    """The settings as an immutable value (lists as tuples): what a View was built from."""
    return tuple((name, tuple(value) if isinstance(value, list) else value) for name, value in values.items())


def csv_table(raw):
    """The parsed CSV of the Data page (parsed once per digest of its bytes; then rows drawn with the seed
    within the row limit)."""
    return steps.csv_table(uploaded_files.add_file(raw, digest(raw)), int(_settings()["seed"]))


def csv_missing():
    """True (with the request to upload shown) when the view is of a CSV this session lacks."""
    if get("source") == "csv" and csv_bytes() is None:
        st.info(CSV_MISSING, icon=":material/upload_file:")
        return True
    return False


def current_data(shown):
    """The data set of View ``shown`` (the page's :func:`view`), or None (with a message shown)."""
    if csv_missing():
        return None
    return guard("Data", shown.data)


def data_name():
    return "csv" if get("source") == "csv" else get("dataset")
