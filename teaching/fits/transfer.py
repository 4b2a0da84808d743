"""The Domain transfer page's computations: source and delta-transfer structural SVMs on shifted digits."""

import pathlib

import numpy as np

from covshift.transfer import DomainTransferSSVM, MulticlassProblem, MultilabelProblem, StructuredSVM
from covshift.transfer.data import digits_transfer, draw_labelled

from teaching.outcomes import Outcome, run_with_warnings

#: Target-domain transformations offered by the Domain transfer page.
TRANSFER_SHIFTS = ["thicken+rotate", "thicken", "rotate", "blur+rotate", "blur", "invert"]
TRANSFER_TASKS = ["multiclass", "multilabel"]
#: The source model is fixed (C of its structural SVM, epsilon of its cutting planes).
TRANSFER_SOURCE_C, TRANSFER_SOURCE_EPSILON = 10.0, 1e-2
#: Bounds that keep every fit the page can start to a few seconds on 2 cores.
TRANSFER_MAX_LABELLED, TRANSFER_C_RANGE = 50, (0.1, 30.0)
TRANSFER_CURVES = pathlib.Path(__file__).resolve().parents[2] / "assets" / "transfer_curves.json"


def transfer_problem(task):
    """The output structure of a transfer task: 10 digit classes or 4 binary attributes."""
    factories = {"multiclass": lambda: MulticlassProblem(10), "multilabel": lambda: MultilabelProblem(4)}
    if task not in factories:
        raise ValueError(f"task must be one of {TRANSFER_TASKS}; got {task!r}.")
    return factories[task]()


def transfer_data(task, shift):
    """Source digits and transformed target digits (fixed split, so one source model serves all seeds)."""
    return digits_transfer(task=task, shift=shift, random_state=0)


def transfer_source(task, shift):
    """The source structural SVM of a task, fitted on the source digits; an :class:`Outcome`."""
    data = transfer_data(task, shift)
    model, seconds, messages = run_with_warnings(lambda: StructuredSVM(
        transfer_problem(task), C=TRANSFER_SOURCE_C, epsilon=TRANSFER_SOURCE_EPSILON).fit(data.X_source, data.y_source))
    return Outcome(model, seconds, messages)


def transfer_fit(task, shift, source, n_labelled, seed=0, C="auto", epsilon=1e-3):
    """DomainTransferSSVM on ``n_labelled`` target examples drawn with ``seed``; an :class:`Outcome`
    whose model is a dict: transfer model, labelled indices, source and transfer test predictions
    and their scores (accuracy or 1 - Hamming loss)."""
    n_labelled = int(n_labelled)
    if not 1 <= n_labelled <= TRANSFER_MAX_LABELLED:
        raise ValueError(f"The number of labelled target examples l must be between 1 and "
                         f"{TRANSFER_MAX_LABELLED} here; got {n_labelled}.")
    lo, hi = TRANSFER_C_RANGE
    if C != "auto" and not lo <= float(C) <= hi:
        raise ValueError(f"C must be 'auto' or between {lo} and {hi} here; got {C}.")
    data = transfer_data(task, shift)
    idx = draw_labelled(len(data.y_pool), n_labelled, random_state=seed)

    def run():
        model = DomainTransferSSVM(source, transfer_problem(task), C=C if C == "auto" else float(C),
                                   epsilon=float(epsilon),
                                   random_state=seed).fit(data.X_pool[idx], data.y_pool[idx])
        return {"model": model, "labelled": idx,
                "source_pred": source.predict(data.X_test), "transfer_pred": model.predict(data.X_test),
                "source_score": source.score(data.X_test, data.y_test),
                "transfer_score": model.score(data.X_test, data.y_test)}

    result, seconds, messages = run_with_warnings(run)
    return Outcome(result, seconds, messages)


def transfer_output_labels(task, outputs):
    """Outputs as short strings for display: the digit, or the 4 attributes as a 0/1 string."""
    outputs = np.asarray(outputs)
    if task == "multiclass":
        return [str(int(v)) for v in outputs]
    return ["".join(str(int(b)) for b in row) for row in outputs]


def transfer_stored_curves():
    """The curves written by bench/transfer.py (assets/transfer_curves.json), or None if missing."""
    import json

    if not TRANSFER_CURVES.exists():
        return None
    return json.loads(TRANSFER_CURVES.read_text())

