"""Importing this module loads the whole library and its compiled loops, once.

For a process that forks workers: multiprocessing's fork server imports the modules it is told to
preload (``get_context("forkserver").set_forkserver_preload(["covshift.warmed"])``) before it forks
its first worker, and every worker forked from it then starts with numpy, scipy, scikit-learn, numba
and every estimator module imported and every compiled loop (:func:`covshift.compiled.warm_up`)
loaded, sharing those pages with the fork server, instead of loading them itself (about 2.5 CPU-s
and 100 MB a process). Anywhere else, importing it costs that time once and changes nothing else.
"""

import covshift  # noqa: F401  (every estimator module: covshift/__init__.py imports them all)
from covshift import compiled

compiled.warm_up()
