"""The app's time budget: the largest size each method may run at, and the refusals beyond it.

The budget
----------
On the reference machine (2 cores) no computation the app can start -- one estimator
fit with the app's settings, or one regression fit and prediction -- may take more than
:data:`BUDGET_SECONDS`. ``bench/limits.py`` times every method on a ladder of sizes
(n_tr = n_te = n, the paper's 1-D sinc data, the app's default settings) and
:data:`METHOD_MAX_POINTS` holds, per method, the largest ladder size whose time stayed
within the budget (measured in CPU seconds of the process, which is at least the wall
time an idle 2-core machine would need and is far less disturbed by other users of a
shared machine than wall time). The data sets' slider ranges and the CSV subsample size
follow from that table (:func:`dataset_size_max`, :data:`CSV_MAX_ROWS`); nothing else
in the code base decides a size.

The memory limit of the library itself is :mod:`covshift.limits`.
"""

#: Seconds any single computation started by the app may take on the reference machine.
BUDGET_SECONDS = 5.0

#: Sizes the ladder of ``bench/limits.py`` tries (n_tr = n_te = n).
SIZE_LADDER = (100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 8000, 10000)

#: Largest ladder size n (training and test points each) that every method handles within
#: :data:`BUDGET_SECONDS`, measured by ``bench/limits.py`` (results in bench/results/limits.md);
#: 10000 (the top of the ladder) means "at least". 0: not within the budget at any size.
#: Keys are the names of :mod:`teaching.catalog` (weight estimators and regression models).
METHOD_MAX_POINTS = {
    # weight estimators, sigma "auto" (the KLIEP family: model_selection.kliep_sigma, then one solve)
    "FCFWCS": 6000, "PFWCS": 5000, "AFWCS": 6000, "FWCS": 6000, "KLIEP": 10000,
    "KMM": 1500, "ENSKMM": 1000, "ENSTRKMM": 6000, "VFKMM": 4000, "EVFKMM": 1500,
    "LogisticRatio": 10000, "RuLSIF": 10000,
    # the app's one shared width for the KLIEP family (teaching.fits.regression.shared_kliep_sigma, LCV)
    "kliep_sigma": 10000,
    # regression models (one fit and one prediction of the test set)
    "GPR": 3000, "WKNN": 10000, "KLTGP": 1500, "IKLTGP": 1500, "SMTGP": 1000,
}

#: Name of the shared choice of the KLIEP width in :data:`METHOD_MAX_POINTS` (the app runs it
#: once, then fits the KLIEP family with that fixed width).
SHARED_SIGMA = "kliep_sigma"

#: The KLIEP family with a fixed sigma (the app's "manual" mode, and how the app fits the
#: family after the shared choice of the width), measured at sigma = 0.3, the app's default
#: manual width, by ``bench/limits.py``. The solve time depends on the width: a small sigma
#: gives a dense optimum and slower iterations, so the plain Frank-Wolfe solvers are limited
#: more tightly here than with the (larger) width "auto" picks.
METHOD_MAX_POINTS_FIXED_SIGMA = {"FCFWCS": 6000, "PFWCS": 2000, "AFWCS": 2000, "FWCS": 2000, "KLIEP": 10000}

#: Smallest sizes the data generators accept (training, test).
MIN_POINTS = (20, 10)

#: Largest training-set size of the digits data (it has 1797 images; the rest are test).
DIGITS_MAX_TRAIN = 800


def _base_name(name):
    """'IW-SMTGP' has the cost of 'SMTGP': the weights only scale the kernel system."""
    return name[3:] if name.startswith("IW-") else name


def max_points(name, sigma="auto"):
    """Largest n_tr (and n_te) that method ``name`` handles within the budget.

    ``sigma``: "auto" for the app's automatic choice of the kernel width, a number for a fixed
    width (the KLIEP family then skips its cross-validation: :data:`METHOD_MAX_POINTS_FIXED_SIGMA`).
    """
    base = _base_name(name)
    if base not in METHOD_MAX_POINTS:
        raise ValueError(f"Unknown method {name!r}; known: {sorted(METHOD_MAX_POINTS)}.")
    if sigma != "auto" and base in METHOD_MAX_POINTS_FIXED_SIGMA:
        return METHOD_MAX_POINTS_FIXED_SIGMA[base]
    return METHOD_MAX_POINTS[base]


def max_points_for(names, sigma="auto"):
    """Largest size every method in ``names`` handles within the budget (the slowest decides).

    With no names, the largest size any method handles.
    """
    names = list(names)
    if not names:
        return max(METHOD_MAX_POINTS.values())
    return min(max_points(name, sigma) for name in names)


#: Models solving kernel systems on the training points for every test point: their cost grows
#: as n_tr^3 + n_tr^2 n_te, so a size measured with n_tr = n_te = n applies to the effective
#: size max(n_tr, (n_tr^2 n_te)^(1/3)) (the digits data: 485 training, 1312 test images -> 676).
_KERNEL_SYSTEM_MODELS = {"GPR", "KLTGP", "IKLTGP", "SMTGP"}


def effective_size(name, n_tr, n_te):
    """The equal-size n at which method ``name`` costs as much as at (n_tr, n_te)."""
    if _base_name(name) in _KERNEL_SYSTEM_MODELS:
        return max(n_tr, round((float(n_tr) ** 2 * n_te) ** (1.0 / 3.0)))
    return max(n_tr, n_te)


def check_size(names, n_tr, n_te, sigma="auto"):
    """ValueError naming the first method of ``names`` (a name or a list of names) that would exceed
    the time budget at this size, its limit and the way out; the one size check of the app
    (:meth:`teaching.view.View.admit` calls it with a view's sizes)."""
    for name in [names] if isinstance(names, str) else names:
        _check_one(name, n_tr, n_te, sigma)


def _check_one(name, n_tr, n_te, sigma):
    limit = max_points(name, sigma)
    if limit < MIN_POINTS[0]:
        raise ValueError(
            f"{name} with sigma 'auto' takes more than {BUDGET_SECONDS:g} s at any size (its "
            "cross-validation runs many slow fits); choose a fixed sigma (then up to "
            f"{max_points(name, sigma=1.0)} points) or FCFWCS.")
    if effective_size(name, n_tr, n_te) > limit:
        faster = _faster_than(name, limit)
        way_out = (f"Use fewer points or a faster {_kind(name)} ({', '.join(faster)})." if faster
                   else "Use fewer points.")
        raise ValueError(
            f"{name} with {n_tr} training and {n_te} test points would take more than "
            f"{BUDGET_SECONDS:g} s; it is limited to {limit} points each. {way_out}")


def check_seconds(what, seconds, measured_by, way_out):
    """ValueError naming the budget and ``way_out`` when ``what`` took ``seconds`` as ``measured_by`` last measured
    it (a computation timed outside the app, e.g. a reproduction row by ``bench/reproduce.py``), more than
    :data:`BUDGET_SECONDS`."""
    if seconds > BUDGET_SECONDS:
        raise ValueError(f"{what} takes about {seconds:.0f} s (as {measured_by} last measured it), more than the "
                         f"{BUDGET_SECONDS:g} s the app gives one computation. {way_out}")


#: The regression models of :data:`METHOD_MAX_POINTS` (the rest are weight estimators).
REGRESSION_MODELS = ("GPR", "WKNN", "KLTGP", "IKLTGP", "SMTGP")


def _kind(name):
    return "model" if _base_name(name) in REGRESSION_MODELS else "weight estimator"


def refused(names, n_tr, n_te, sigma="auto"):
    """{method: its limit} for the methods of ``names`` that :func:`check_size` would refuse at
    (n_tr, n_te): what a size slider can say at once, before anything runs."""
    return {name: max_points(name, sigma) for name in dict.fromkeys(names)
            if effective_size(name, n_tr, n_te) > max_points(name, sigma)}


def _faster_than(name, limit):
    """Up to three methods of the same kind as ``name`` (weight estimators or regression models)
    that handle more than ``limit`` points, fastest first: the way out a refusal names."""
    same_kind = [n for n in METHOD_MAX_POINTS if n != SHARED_SIGMA and _kind(n) == _kind(name)]
    faster = sorted((n for n in same_kind if METHOD_MAX_POINTS[n] > limit), key=lambda n: -METHOD_MAX_POINTS[n])
    prefix = "IW-" if name.startswith("IW-") else ""
    return [prefix + n if prefix and n != "WKNN" else n for n in faster][:3]


def dataset_size_max(name):
    """Slider maximum of n_tr and n_te for a built-in data set: the largest size any method
    handles within the budget (methods with a smaller limit are refused at larger sizes,
    :func:`check_size`); the digits data have at most :data:`DIGITS_MAX_TRAIN` training images."""
    largest = max_points_for([])
    return min(largest, DIGITS_MAX_TRAIN) if name == "digits" else largest


def _slowest_limit():
    """The most points every method handles within the budget, with either width rule: the slowest decides."""
    limits = [max_points(name, sigma) for name in METHOD_MAX_POINTS if name != SHARED_SIGMA for sigma in ("auto", 1.0)]
    return min(limit for limit in limits if limit >= MIN_POINTS[0])


#: Rows of an uploaded CSV the app keeps (drawn with the seed from a longer file): as many as every method
#: handles within the budget, whatever the width rule. One fixed number, so that the rows of a file depend
#: only on the file and the seed, never on the methods or the width rule chosen on a page; the rows are split
#: into training and test parts, each at most as large as the whole, so no method is refused on them.
CSV_MAX_ROWS = _slowest_limit()
