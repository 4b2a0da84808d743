"""Warnings raised by covshift, and thread-safe capture of warnings per call.

Bad input raises :class:`ValueError`; numerical trouble that the code can work
around (underflowing kernels, an iteration budget that ran out) emits one of the
warnings below and returns a finite, sane result.

:func:`record_warnings` collects the warnings raised inside a ``with`` block of the
*current thread (or asyncio task)* only. :func:`warnings.catch_warnings` cannot do this:
it swaps the process-global filter list and ``warnings.showwarning``, so under
concurrent Streamlit sessions (threads) one call's warning ended up in another call's
list. Here one dispatcher is installed as ``warnings.showwarning`` and routes each
warning to the recorder of the context that raised it (a :class:`contextvars.ContextVar`).
"""

import contextvars
import threading
import warnings
from contextlib import contextmanager

from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning


class ConvergenceWarning(_SklearnConvergenceWarning):
    """An iterative solver stopped at its iteration budget before its tolerance.

    A subclass of scikit-learn's ``ConvergenceWarning`` (itself a UserWarning), so that a
    filter for scikit-learn's warning (``warnings.simplefilter("ignore", ConvergenceWarning)``
    with sklearn's class) also catches covshift's.
    """


class NumericalWarning(UserWarning):
    """Numerical trouble was detected and worked around (see the message)."""


class SolverError(RuntimeError):
    """An optimisation library (cvxopt) failed; the message says what to change."""


#: The list receiving the warnings of the current context (None: show them as usual).
_sink = contextvars.ContextVar("covshift_warning_sink", default=None)
_lock = threading.Lock()
_state = {"active": 0, "fallback": None}
#: Filter entry put at the front of ``warnings.filters`` while any recorder is active, so
#: that no filter action ("default", "once", "module") consumes a warning in one thread and
#: suppresses the same warning in another thread's recorder.
_ALWAYS = ("always", None, Warning, None, 0)


def _dispatch(message, category, filename, lineno, file=None, line=None):
    """``warnings.showwarning`` replacement: to the context's recorder, or shown as before."""
    sink = _sink.get()
    if sink is None:
        fallback = _state["fallback"] or warnings._showwarning_orig
        fallback(message, category, filename, lineno, file, line)
    elif sink is not _DISCARD:
        sink.append(warnings.WarningMessage(message, category, filename, lineno, file, line))


_DISCARD = []


def _install():
    """Make sure the dispatcher and the 'always' filter are in place (someone's
    catch_warnings may have restored older ones since). Called with the lock held."""
    if warnings.showwarning is not _dispatch:
        _state["fallback"] = warnings.showwarning
        warnings.showwarning = _dispatch
    if not warnings.filters or warnings.filters[0] is not _ALWAYS:
        if _ALWAYS in warnings.filters:
            warnings.filters.remove(_ALWAYS)
        warnings.filters.insert(0, _ALWAYS)
        warnings._filters_mutated()  # clears every module's "already shown" registry


def _uninstall():
    """Remove the 'always' filter when the last recorder ends (lock held)."""
    if _ALWAYS in warnings.filters:
        warnings.filters.remove(_ALWAYS)
        warnings._filters_mutated()


@contextmanager
def _routed(sink):
    with _lock:
        _install()
        _state["active"] += 1
    token = _sink.set(sink)
    try:
        yield sink
    finally:
        _sink.reset(token)
        with _lock:
            _state["active"] -= 1
            if _state["active"] == 0:
                _uninstall()


def record_warnings():
    """Context manager: a list of the :class:`warnings.WarningMessage` raised in this block
    by this thread only (every occurrence, never printed). Safe under concurrent threads.

    Warnings raised in other threads meanwhile are shown as usual (every occurrence, since
    the 'always' filter is active while any recorder is). Warnings of worker threads or
    processes started inside the block (joblib) are not recorded.
    """
    return _routed([])


def quiet_warnings():
    """Context manager: discard the warnings raised in this block by this thread only
    (the thread-safe replacement for ``catch_warnings(); simplefilter("ignore")``)."""
    return _routed(_DISCARD)
