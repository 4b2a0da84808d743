"""How the app runs a library call: timed, with the warnings it raised turned into sentences for the page.

The library only raises warnings (scikit-learn's way); the app records those of its own calls
with :func:`warnings.catch_warnings` (``record=True``). ``catch_warnings`` swaps the
process-wide warning state, so the recorded calls of one process take turns (:data:`_TURN`): in the
server the fits run in worker processes, one at a time each, and what runs in the server's threads
(the cheap steps) waits at most for another cheap step.
"""

import re
import threading
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

#: One recorded call at a time per process (catch_warnings changes process-wide state).
_TURN = threading.RLock()


@contextmanager
def recorded():
    """Context manager: the list of :class:`warnings.WarningMessage` raised in the block (every
    occurrence, none printed); the warning state is restored afterwards."""
    with _TURN, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


@contextmanager
def silenced():
    """Context manager: the warnings raised in the block are discarded (and the state restored)."""
    with recorded():
        yield


@dataclass
class Outcome:
    """A fitted object with its wall time and the warnings it raised (for st.warning)."""

    model: object
    seconds: float
    warnings: list


def run_with_warnings(fn):
    """Call fn(); return (result, seconds, [warning messages as sentences]) without printing the warnings.

    Deprecation and future warnings are dropped; numpy's floating-point warnings become one
    sentence (:func:`numeric_warning`).
    """
    with recorded() as caught:
        start = time.perf_counter()
        result = fn()
        seconds = time.perf_counter() - start
    kept = [w for w in caught if not issubclass(w.category, (DeprecationWarning, FutureWarning))]
    numeric = [str(w.message) for w in kept if issubclass(w.category, RuntimeWarning)
               and NUMPY_WARNING.search(str(w.message))]
    messages = list(dict.fromkeys(str(w.message) for w in kept if str(w.message) not in numeric))
    if numeric:
        messages.append(numeric_warning(numeric))
    return result, seconds, messages


#: numpy's floating-point warnings ("overflow encountered in divide", "invalid value encountered in reduce").
NUMPY_WARNING = re.compile(r"(overflow|underflow|divide by zero|invalid value) encountered")


def numeric_warning(messages):
    """One sentence for numpy's floating-point warnings: what happened and what to do about it."""
    seen = ", ".join(f"'{m}'" for m in list(dict.fromkeys(messages))[:3])
    return ("Some numbers overflowed or became undefined during this computation (numpy: " + seen + "). "
            "This happens when the inputs have very different scales or the kernel width is extreme for them: "
            "keep \"Standardise the inputs and outputs\" on (Data & shift) or set the kernel width to auto (Importance weights); "
            "the result shown may be inaccurate.")
