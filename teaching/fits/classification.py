"""The Classification under shift page's computations: the 2-D toy, the three classifiers, scores and maps."""

import functools

import numpy as np

from covshift import data as datasets

from teaching.catalog import make_weight_estimator
from teaching.outcomes import Outcome, run_with_warnings

#: Sizes the classification page may ask for (every fit must finish in a few seconds on 2 cores).
CLASSIFICATION_LIMITS = {"n": (100, 400), "grid": 70}
SHIFT_CLASSIFIER_WEIGHTS = ["LogisticRatio", "FCFWCS", "KMM"]


def classification_toy(n=400, steepness=1.5, label_noise=0.3, seed=0):
    """The page's 2-D toy (:func:`covshift.data.shift_classification_2d`), size bounded."""
    low, high = CLASSIFICATION_LIMITS["n"]
    return datasets.shift_classification_2d(n=int(min(max(n, low), high)), steepness=float(steepness),
                                            label_noise=float(label_noise), random_state=int(seed))


def shift_classifier_names(weights_name):
    return ["iid", f"two-stage ({weights_name})", "integrated"]


def fit_shift_classifiers(data, kernel="linear", sigma=1.0, C=1.0, C_v=1.0, weights_name="LogisticRatio"):
    """Fit iid, two-stage (with ``weights_name``) and integrated classifiers: {name: Outcome}.

    The weight estimator of the two-stage method uses the median-heuristic width of the pooled inputs.
    """
    from threadpoolctl import threadpool_limits

    from covshift.kernels import median_heuristic

    from covshift.classification import IntegratedShiftClassifier, KernelLogisticRegression, TwoStageShiftClassifier

    if weights_name not in SHIFT_CLASSIFIER_WEIGHTS:
        raise ValueError(f"Unknown weight estimator {weights_name!r}; choose one of {SHIFT_CLASSIFIER_WEIGHTS}.")
    sigma = "auto" if kernel == "linear" else float(sigma)  # a linear kernel has no width
    # every weight estimator at the median-heuristic width (KLIEP's likelihood CV would take seconds)
    weight_sigma = median_heuristic(np.vstack([data.X_tr, data.X_te]))
    y = data.Y_tr[:, 0]
    iid_name, two_name, integrated_name = shift_classifier_names(weights_name)
    makers = {
        iid_name: lambda: KernelLogisticRegression(kernel=kernel, sigma=sigma, C=C),
        two_name: lambda: TwoStageShiftClassifier(make_weight_estimator(weights_name, weight_sigma),
                                                  KernelLogisticRegression(kernel=kernel, sigma=sigma, C=C)),
        integrated_name: lambda: IntegratedShiftClassifier(kernel=kernel, sigma=sigma, C_w=C, C_v=C_v),
    }
    outcomes = {}
    # one BLAS thread: on a shared 2-core server, threads fighting over small matrices cost ~10x
    with threadpool_limits(limits=1):
        for name, make in makers.items():
            model, seconds, messages = run_with_warnings(lambda make=make: make().fit(data.X_tr, y, data.X_te))
            outcomes[name] = Outcome(model, seconds, messages)
    return outcomes


def classification_scores(outcomes, data):
    """Accuracy, AUC and log-loss of each fitted classifier on the test points (rows for a table)."""
    from sklearn.metrics import accuracy_score, log_loss, roc_auc_score

    y = data.Y_te[:, 0]
    rows = []
    for name, outcome in outcomes.items():
        model = outcome.model
        proba = np.clip(model.predict_proba(data.X_te)[:, 1], 1e-12, 1 - 1e-12)
        rows.append({"classifier": name, "accuracy": accuracy_score(y, model.predict(data.X_te)),
                     "AUC": roc_auc_score(y, proba) if len(np.unique(y)) == 2 else float("nan"),
                     "log-loss": log_loss(y, proba, labels=[0.0, 1.0]), "seconds": outcome.seconds,
                     "Newton iterations": getattr(model, "n_iter_", getattr(getattr(model, "classifier_", None),
                                                                             "n_iter_", None))})
    return rows


def classification_grid(outcomes, data, resolution=None):
    """Scores of every classifier and the integrated selector's p(test | x) on a grid over the data.

    Returns (xs, ys, {name: score grid}, p_test grid or None).
    """
    resolution = int(resolution or CLASSIFICATION_LIMITS["grid"])
    X = np.vstack([data.X_tr, data.X_te])
    pad = 0.1 * (X.max(axis=0) - X.min(axis=0))
    xs = np.linspace(X[:, 0].min() - pad[0], X[:, 0].max() + pad[0], resolution)
    ys = np.linspace(X[:, 1].min() - pad[1], X[:, 1].max() + pad[1], resolution)
    points = np.column_stack([g.ravel() for g in np.meshgrid(xs, ys)])
    scores = {name: o.model.decision_function(points).reshape(len(ys), len(xs)) for name, o in outcomes.items()}
    selector = next((o.model for o in outcomes.values() if hasattr(o.model, "selector_proba")), None)
    p_test = None if selector is None else selector.selector_proba(points).reshape(len(ys), len(xs))
    return xs, ys, scores, p_test


def classification_true_boundary(xs):
    """(x1, x2) of the toy's true class boundary over the grid's x1 axis."""
    xs = np.asarray(xs, dtype=float)
    return xs, datasets.classification_boundary(xs)


def training_weights(outcomes):
    """{name: weights of the training points} for the classifiers that weight them."""
    return {name: np.asarray(o.model.weights_) for name, o in outcomes.items() if hasattr(o.model, "weights_")}


@functools.lru_cache(maxsize=4)
def classification_fig3_results(path=None):
    """The stored Fig. 3 curves written by bench/classification.py, or None if not there (read once;
    shared: do not change them)."""
    import json
    import pathlib

    path = pathlib.Path(path or pathlib.Path(__file__).resolve().parents[2] / "assets" / "classification_fig3.json")
    return json.loads(path.read_text()) if path.exists() else None
