"""The uploaded files this process keeps, by the SHA-256 digest of their bytes: bounded in number and time.

A data spec of an uploaded CSV (:class:`teaching.steps.UploadedData`) names its file by digest; the bytes
are kept here, beside the pipeline (filled by ``ui.view()``), and travel with a step sent to a worker
(:func:`teaching.steps.compute`), never through the calls: the digest is the cache key, the bytes are
not hashed again. At most :data:`FILES_KEPT` files, each forgotten :data:`FILE_SECONDS` after its last use.
"""

import collections
import hashlib
import threading
import time

#: Uploaded files this process knows, by the SHA-256 digest of their bytes (the latest kept).
FILES_KEPT = 16
#: Seconds an uploaded file is kept after its last use: a session that ended no longer uses it, so its
#: bytes are forgotten then at the latest (a session still open uses them at every run and keeps them).
FILE_SECONDS = 1800.0
_FILES = collections.OrderedDict()  # digest -> (bytes, time of last use)
_FILES_LOCK = threading.Lock()

CSV_MISSING = ("This view uses an uploaded CSV file, and a link cannot carry the file. Upload it on "
               "the **Data & shift** page to see the view (the column choices of the link are kept).")


def _forget_old(now):
    """Drop the files unused for :data:`FILE_SECONDS` and all but the :data:`FILES_KEPT` latest (lock held)."""
    while _FILES and (len(_FILES) > FILES_KEPT or now - next(iter(_FILES.values()))[1] > FILE_SECONDS):
        _FILES.popitem(last=False)


def add_file(raw, digest=None):
    """Keep uploaded bytes beside the pipeline under their SHA-256 digest, which the data spec names; the
    digest (``digest``: the caller's, already computed from these bytes). Files unused for
    :data:`FILE_SECONDS` are forgotten."""
    digest = digest or hashlib.sha256(raw).hexdigest()
    now = time.monotonic()
    with _FILES_LOCK:
        _FILES[digest] = (raw, now)
        _FILES.move_to_end(digest)
        _forget_old(now)
    return digest


def file_bytes(digest):
    """The bytes of an uploaded file by digest; ValueError (upload it again) when this process lacks them."""
    now = time.monotonic()
    with _FILES_LOCK:
        _forget_old(now)
        kept = _FILES.get(digest)
        if kept is not None:
            _FILES[digest] = (kept[0], now)
            _FILES.move_to_end(digest)
    if kept is None:
        raise ValueError(CSV_MISSING.replace("**", ""))
    return kept[0]
