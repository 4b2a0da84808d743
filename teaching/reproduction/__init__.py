"""The papers' claims as small registered row functions, one module per paper (rows register on import).

A :class:`Row` is one claim of one paper: where it is (table or figure), the claim in one
sentence, the paper's numbers, a function ``run(seed, size) -> {metric: number}`` that
measures it on one seed, and a ``judge`` that turns the numbers of all seeds into a
verdict with a one-line reason. ``bench/reproduce.py`` runs every row over seeds and
writes ``assets/reproduction.json``; the app's Reproduction page reads that file and
re-runs a row on ``size="small"`` (:func:`rerun_row`: the step
:func:`teaching.steps.reproduction_row`, within the budget); the tests recompute each row on one seed.

Verdicts: "reproduced" / "not reproduced" when the claim is measured on the paper's own
data (its synthetic generators); "not comparable" when our data are a stand-in (8x8
digits for USPS, ``arm_pose`` for HumanEva): the reason line then says whether the
*direction* of the claim holds on the stand-in ("direction holds" / "direction fails").

Other issues add rows with :func:`register` (classification, domain transfer).
"""

from teaching.reproduction.registry import (ROWS, PAPERS, RELATIVE_TOL, SIZES, SPREAD_SHARE, VERDICTS, Row,  # noqa: F401
                                             admit_rerun, agrees, default_seeds, image_rmse, is_timing, register,
                                             rerun_row, row_keys, run_row, summarise)
from teaching.reproduction import smtgp, frank_wolfe, other_papers  # noqa: F401,E402  (registration order)
from teaching.reproduction.frank_wolfe import arm_marker_error  # noqa: F401
