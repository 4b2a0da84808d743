"""Lessons: the app's teaching units, as data.

A :class:`Lesson` names the page it opens, *every* setting it needs (so that opening it
always gives the same view, whatever was clicked before) and its :class:`Claim` s. A claim
is one sentence shown beside the figure it describes, plus a check that evaluates the
sentence on the lesson's own data through the lesson's :class:`teaching.view.View`, whose
methods are the very calls the pages make. ``tests/test_lessons.py`` runs every check over several seeds, so the text of
the app and what the data show cannot drift apart; README's "Teach with it" section is
generated from the same definitions (:func:`readme_section`).

This module never imports streamlit: the app's sidebar and pages read it.
"""

import functools
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import stats

from covshift import metrics
from teaching import catalog, readings
from teaching.view import View

#: Regression hyper-parameters every lesson sets (the app's defaults).
_HYPER = dict(theta=0.9, gamma=1.5, rho_x=0.3, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3, tgp_start="linear")


@dataclass(frozen=True)
class Finding:
    """The outcome of one claim's check: does it hold, and the numbers behind it."""

    holds: bool
    numbers: dict


@dataclass(frozen=True)
class Claim:
    """One sentence shown beside ``figure`` and the check that evaluates it.

    ``check(run)`` receives a :class:`LessonRun` and returns a :class:`Finding`.
    """

    figure: str
    text: str
    check: Callable


@dataclass(frozen=True)
class Reveal:
    """What a lesson's banner invites, as data: its punchline.

    ``changes``: the one or two settings the stage's "Show me" button sets, with their values (each a
    setting the lesson invites, so the lesson stays); ``sees``: one line, "what you now see" in the
    figure; ``claims``: the claims that hold on the changed view (checked over seeds 0-2 like every
    claim, by tests/test_lessons.py)."""

    changes: dict
    sees: str
    claims: tuple = ()


@dataclass(frozen=True)
class Question:
    """A prediction the class is asked before the reveal (issue "Ask the class"): ``text`` and 2-4
    ``options`` in students' words. The right option is never hard-coded: ``answer(run)`` reads it off
    the measurement on the revealed view (``run`` is the :class:`LessonRun` of the revealed view) and
    returns ``(index of the right option, numbers measured)``."""

    text: str
    options: tuple
    answer: Callable


@dataclass(frozen=True)
class Answer:
    """The right option of a lesson's question on one revealed view, and what was measured to decide it."""

    index: int
    option: str
    numbers: dict


@dataclass(frozen=True)
class Lesson:
    """A self-contained lesson: page, every setting, claims. ``banner``: one line under the page's title (what to
    look at, the control to move); ``invites``: settings the student may change and stay in the lesson (its claims
    re-checked on the changed view); ``compares``: name prefixes of the settings its page reads, which alone decide
    whether a view is the lesson (empty: all; Home draws the sinc data whatever the other pages' settings).
    ``eye``: what the eye sees in the main figure that proves the claim (without reading the claim box);
    ``reveal``: the banner's invitation as data (:class:`Reveal`); ``question``: the prediction asked before
    the reveal (:class:`Question`)."""

    key: str
    title: str
    page: str
    summary: str
    settings: dict
    claims: tuple = field(default_factory=tuple)
    main_figure: str = ""
    banner: str = ""
    invites: tuple = ()
    compares: tuple = ()
    eye: str = ""
    reveal: Reveal = None
    question: Question = None

    @property
    def main_view(self):
        """The figure key of the lesson's main view (for screenshots): ``main_figure`` or the first claim's."""
        return self.main_figure or self.claims[0].figure

    def claims_for(self, figure):
        """The sentences shown beside ``figure`` (a key such as "weights.gap")."""
        return [claim.text for claim in self.claims if claim.figure == figure]


class LessonRun:
    """A lesson's settings (optionally with another seed, and ``changes``: values of the settings it
    invites, as the view has them) and its :class:`teaching.view.View`, built by the same
    :meth:`View.from_settings <teaching.view.View.from_settings>` as a page's: a claim's check computes
    through the View, so it reads the very cache entries the page filled."""

    def __init__(self, lesson, seed=None, changes=None):
        self.lesson = lesson
        self.settings = {**lesson.settings, **(changes or {})}
        if seed is not None:
            self.settings["seed"] = int(seed)

    def setting(self, name):
        if name not in self.settings:
            raise KeyError(f"Lesson {self.lesson.key!r} does not set {name!r}; every lesson sets all it uses.")
        return self.settings[name]

    @functools.cached_property
    def view(self):
        return View.from_settings(self.settings)


def _errors(view, name):
    return metrics.euclidean_errors(view.data().Y_te, view.prediction(name).model["mean"])


def _mae(view, name):
    return metrics.mae(view.data().Y_te, view.prediction(name).model["mean"])


def _by_width(run):
    """The Why-weights table of the lesson's view: test MAE per GP width (the page's very call)."""
    return run.view.weighting_by_width((float(run.setting("home_width")), FLEXIBLE_WIDTH),
                                       float(run.setting("lambda_x")))


def describe(numbers):
    """A Finding's numbers as one line of text: "name: value; name: value", nested dicts as
    "name: a value, b value" and (iteration, atoms) pairs as "iteration i with j active atoms" ("never")."""
    def value(v):
        if isinstance(v, dict):
            return ", ".join(f"{k} {value(x)}" for k, x in v.items())
        if isinstance(v, tuple):
            return "never" if v[0] is None else f"iteration {v[0]} with {v[1]} active atoms"
        if isinstance(v, list):
            return ", ".join(value(x) for x in v)
        if isinstance(v, bool):
            return "yes" if v else "no"
        return f"{v:g}" if isinstance(v, float) else str(v)
    return "; ".join(f"{k}: {value(v)}" for k, v in numbers.items())


def data_settings(name, seed=0, **params):
    """Every setting of a built-in data set: its name, seed and all its parameters."""
    spec = catalog.DATASETS[name][1]
    unknown = set(params) - set(spec)
    if unknown:
        raise ValueError(f"Data set {name!r} has no parameter(s) {sorted(unknown)}.")
    return {"source": "built-in", "dataset": name, "seed": seed,
            **{f"{name}.{p}": params.get(p, default[0]) for p, default in spec.items()}}


def _round(value, digits=4):
    return float(np.round(value, digits))


# ---------------------------------------------------------------- Why weights
#: The flexible model of the Why-weights lesson: a GP whose width fits the sinc curve.
FLEXIBLE_WIDTH = 0.3


def _weighted_fit_wins(run):
    table = _by_width(run)[float(run.setting("home_width"))]
    gain_true = table["no weights"] - table["true weights"]
    gain_est = table["no weights"] - table["estimated weights"]
    return Finding(gain_true >= 0.01 and gain_est >= 0.01,
                   {"MAE no weights": _round(table["no weights"]), "MAE true weights": _round(table["true weights"]),
                    "MAE estimated weights": _round(table["estimated weights"])})


def _estimated_as_good_as_true(run):
    table = _by_width(run)[float(run.setting("home_width"))]
    diff = abs(table["estimated weights"] - table["true weights"])
    return Finding(diff <= 0.005, {"MAE estimated - MAE true, in size": _round(diff)})


def _weights_barely_matter_here(run):
    """On the revealed view (the slider at the flexible width): the weights change the test MAE by at most 0.005."""
    table = _by_width(run)[float(run.setting("home_width"))]
    diff = max(abs(table["no weights"] - table["true weights"]),
               abs(table["no weights"] - table["estimated weights"]))
    return Finding(diff <= 0.005, {"MAE no weights": _round(table["no weights"]),
                                   "largest MAE change by weighting": _round(diff)})


def _what_weights_do_here(run):
    """The Why-weights question's answer on the revealed view: 0 the weights lower the test MAE by at least
    0.01, 1 they change it by at most 0.005 either way, 2 they raise it (or lower it by 0.005-0.01)."""
    table = _by_width(run)[float(run.setting("home_width"))]
    gain = table["no weights"] - table["estimated weights"]
    index = 0 if gain >= 0.01 else 1 if abs(gain) <= 0.005 else 2
    return index, {"MAE no weights": _round(table["no weights"]),
                   "MAE estimated weights": _round(table["estimated weights"])}


def _flexible_barely_needs_weights(run):
    table = _by_width(run)[FLEXIBLE_WIDTH]
    diff = max(abs(table["no weights"] - table["true weights"]),
               abs(table["no weights"] - table["estimated weights"]))
    return Finding(diff <= 0.005, {"MAE no weights": _round(table["no weights"]),
                                   "largest MAE change by weighting": _round(diff)})


WHY_WEIGHTS = Lesson(
    key="why-weights", title="Why weights", page="pages/home.py",
    summary="A too-smooth model (a GP of input width 2) fitted to the training points misses the test "
            "region; re-weighting by w(x) = p_te/p_tr fixes it, with true or estimated weights. "
            "Move the width slider to 0.3: a flexible model barely needs the weights (Shimodaira, 2000).",
    settings={**data_settings("sinc"), **_HYPER, "home_width": 2.0, "sigma_mode": "auto", "sigma": 0.3,
              "weights_for_models": "FCFWCS", "estimators": ["FCFWCS"]},
    banner="A too-smooth GP misses the test region unless the training points are weighted. "
           "Move the width slider to 0.3: a flexible model barely needs the weights.",
    invites=("home_width",),
    compares=("sinc.", "seed", "home_width", "weights_for_models", "sigma_mode", "sigma", "lambda_x"),
    eye="At width 2 the grey unweighted fit leaves the test points in the test region, the weighted fits pass "
        "through them; the error panel's grey line stands above the others.",
    reveal=Reveal({"home_width": FLEXIBLE_WIDTH},
                  sees="At width 0.3 the three fits lie on top of each other in the test region: a flexible model "
                       "does not need the weights.",
                  claims=(Claim("home.fit", "A flexible model (rho_x = 0.3) barely needs the weights: they change "
                                            "its test MAE by at most 0.005.", _weights_barely_matter_here),)),
    question=Question("The model becomes flexible (width 0.3). What will the weights do to its test error?",
                      ("Lower it clearly, as for the smooth model", "Barely change it", "Make it worse"),
                      _what_weights_do_here),
    claims=(
        Claim("home.fit", "The weighted fits have a lower test error than the unweighted one "
                          "(by at least 0.01 in MAE).", _weighted_fit_wins),
        Claim("home.fit", "Weights estimated by FCFWCS do as well as the true ratio "
                          "(the MAEs differ by at most 0.005).", _estimated_as_good_as_true),
        Claim("home.width", "A flexible model (rho_x = 0.3) barely needs the weights: they change its "
                            "test MAE by at most 0.005.", _flexible_barely_needs_weights),
    ))


# ----------------------------------------------- KLIEP and its Frank-Wolfe solvers
_FW = ["FCFWCS", "PFWCS", "AFWCS", "FWCS"]
#: Relative duality gaps at which the solvers' sparsity is compared (equal accuracy, not equal iterations).
EQUAL_GAPS = (1e-3, 1e-4)


def _significant(value, digits=2):
    return float(f"{value:.{digits}g}")


def _fcfwcs_certifies(run):
    model = run.view.weights("FCFWCS").model
    return Finding(bool(model.converged_) and model.n_iter_ <= 30,
                   {"FCFWCS iterations": int(model.n_iter_),
                    "final relative gap": _significant(readings.relative_gaps(model.history_)[-1])})


def _same_optimum(run):
    best = run.view.weights("FCFWCS").model.objective_
    shortfall = {n: _significant((best - run.view.weights(n).model.objective_) / abs(best)) for n in _FW[1:]}
    converged = {n: bool(run.view.weights(n).model.converged_) for n in _FW[1:]}
    objectives = {n: float(f"{run.view.weights(n).model.objective_:.6g}") for n in _FW}
    return Finding(all(s <= 1e-3 for s in shortfall.values()),
                   {"objective": objectives, "shortfall relative to FCFWCS": shortfall, "converged": converged})


def _sparser_at_equal_gap(run):
    reached = {n: readings.first_at_gap(run.view.weights(n).model.history_, EQUAL_GAPS[0]) for n in _FW}
    atoms = {n: a for n, (_, a) in reached.items()}
    holds = atoms["FCFWCS"] is not None and all(a is not None and a > atoms["FCFWCS"] for n, a in atoms.items()
                                                if n != "FCFWCS")
    return Finding(holds, {f"first iterate at relative gap {EQUAL_GAPS[0]:g}": reached})


def _slow_to_tight_gap(run):
    reached = {n: readings.first_at_gap(run.view.weights(n).model.history_, EQUAL_GAPS[1]) for n in _FW}
    fc = reached["FCFWCS"][0]
    holds = fc is not None and fc <= 20 and all(t is None or t > 500 for n, (t, _) in reached.items()
                                                if n != "FCFWCS")
    return Finding(holds, {f"first iterate at relative gap {EQUAL_GAPS[1]:g}": reached})


KLIEP_SOLVERS = Lesson(
    key="kliep-solvers", title="KLIEP and its Frank-Wolfe solvers", page="pages/weights.py", main_figure="weights.gap",
    summary="The four Frank-Wolfe solvers of KLIEP on the paper's sinc data, all with the same sigma = 0.3 "
            "(one problem). FCFWCS certifies the optimum in about a dozen steps; FWCS, AFWCS and PFWCS creep "
            "towards it. Compare the atoms they keep when they reach the same duality gap.",
    settings={**data_settings("sinc"), **_HYPER, "estimators": list(_FW), "sigma_mode": "manual",
              "sigma": 0.3, "gap_axis": "iteration", "weights_for_models": "FCFWCS", "replay": "FCFWCS"},
    banner="Replay each solver step by step: FCFWCS certifies the optimum in a dozen steps, the others creep.",
    invites=("replay", "gap_axis"),
    claims=(
        Claim("weights.table", "FCFWCS certifies the optimum (relative duality gap below its tolerance 1e-5) "
                               "in at most 30 iterations.", _fcfwcs_certifies),
        Claim("weights.table", "FWCS, AFWCS and PFWCS end within 0.1 % of FCFWCS's objective, whether or not "
                               "they reached their tolerance within 2000 iterations.", _same_optimum),
        Claim("weights.gap", f"At the same relative gap {EQUAL_GAPS[0]:g}, FCFWCS keeps fewer atoms than every "
                             "other solver.", _sparser_at_equal_gap),
        Claim("weights.gap", f"FCFWCS reaches relative gap {EQUAL_GAPS[1]:g} within 20 iterations; the others "
                             "need more than 500, or do not get there within their budget.", _slow_to_tight_gap),
    ))


# ------------------------------------------------------------ Estimators disagree
_ESTIMATORS = ["FCFWCS", "KMM", "ENSKMM", "ENSTRKMM", "VFKMM", "EVFKMM", "LogisticRatio", "RuLSIF"]
_KMM_FAMILY = ["KMM", "ENSKMM", "ENSTRKMM", "VFKMM", "EVFKMM"]


def _weight_errors(run):
    truth = run.view.data().true_weights
    return {n: readings.weight_error(run.view.weights(n).model.weights_, truth) for n in _ESTIMATORS}


def _spread(run):
    errors = _weight_errors(run)
    ratio = max(errors.values()) / min(errors.values())
    return Finding(ratio >= 2, {"weight error (mean-1 scale)": {n: _round(e) for n, e in errors.items()},
                                "worst / best": _round(ratio, 1)})


def _width_rule_matters(run):
    errors = _weight_errors(run)
    return Finding(errors["RuLSIF"] < errors["FCFWCS"], {"RuLSIF (its own cross-validation)": _round(errors["RuLSIF"]),
                                                         "FCFWCS (likelihood cross-validation)": _round(errors["FCFWCS"])})


ESTIMATORS_DISAGREE = Lesson(
    key="estimators-disagree", title="Estimators disagree", page="pages/weights.py", main_figure="weights.curves",
    summary="Eight estimators of w(x) on the same sinc data, against the true ratio. Their kernel widths come "
            "from three rules (the table's sigma): likelihood cross-validation (FCFWCS), the median heuristic "
            "(the five KMM variants and LogisticRatio) and RuLSIF's own cross-validation. The weight error "
            "(NMSE on the mean-1 scale) ranks them.",
    settings={**data_settings("sinc"), **_HYPER, "estimators": list(_ESTIMATORS), "sigma_mode": "auto",
              "sigma": 0.3, "weights_for_models": "FCFWCS", "replay": "FCFWCS"},
    banner="Eight estimators of w(x): here the three with a curve, against the true ratio (dotted); below, KMM's five "
           "at the training points and all eight weight errors.",
    invites=("replay", "gap_axis"),
    claims=(
        Claim("weights.table", "The estimators disagree: the worst weight error is at least twice the best.",
              _spread),
        Claim("weights.curves", "The width rule matters: RuLSIF, with the width of its own least-squares "
                                "cross-validation, estimates the ratio better than FCFWCS with the width of "
                                "likelihood cross-validation.", _width_rule_matters),
    ))


# -------------------------------------------------------------- Structured output
_TOY_HYPER = catalog.paper_tgp_defaults("s_shape")


def _twins_beat_gpr(run):
    maes = {n: _round(_mae(run.view, n)) for n in ["GPR", "KLTGP", "SMTGP"]}
    return Finding(maes["GPR"] > max(maes["KLTGP"], maes["SMTGP"]) + 0.03, {"MAE": maes})


#: Certainty bins of the Structured-output lesson: fifths of the test points ranked by phi.
CERTAINTY_BINS = 5


def _smtgp_certainty(run):
    phi, errors = run.view.prediction("SMTGP").model["certainty"], _errors(run.view, "SMTGP")
    bins = metrics.certainty_error_bins(phi, errors, CERTAINTY_BINS)
    top = bins["members"][-1]
    rest = np.concatenate(bins["members"][:-1])
    ratio = errors[top].mean() / errors[rest].mean()
    p = float(stats.mannwhitneyu(errors[top], errors[rest], alternative="less").pvalue)
    r, _ = metrics.certainty_error_correlation(phi, errors)
    rho = float(stats.spearmanr(phi, errors).statistic)
    return Finding(ratio <= 0.5 and p < 0.01,
                   {"mean error per fifth, least to most certain": [_round(v, 3) for v in bins["error"]],
                    "most certain fifth / the rest": _round(ratio, 2), "Mann-Whitney p": float(f"{p:.2g}"),
                    "Pearson r": _with_interval(r, len(phi)), "Spearman rho": _with_interval(rho, len(phi))})


def _with_interval(r, n):
    """A correlation and its 95 % Fisher interval as text: "-0.36 [-0.47, -0.25]"."""
    low, high = metrics.correlation_interval(r, n)
    return f"{r:.2f} [{low:.2f}, {high:.2f}]"


STRUCTURED_OUTPUT = Lesson(
    key="structured-output", title="Structured output", page="pages/regression.py",
    summary="The S-shape: one x can have up to three y. GPR averages the branches; the Twin GPs "
            "(KLTGP, SMTGP with the paper's hyper-parameters) follow one branch.",
    settings={**data_settings("s_shape"), **_TOY_HYPER, "models": ["GPR", "KLTGP", "SMTGP"],
              "weights_for_models": "FCFWCS", "sigma_mode": "auto", "sigma": 0.3, "estimators": ["FCFWCS"]},
    banner="The S-shape has up to three y for one x: GPR averages the branches, the Twin GPs follow one.",
    claims=(
        Claim("regression.fits", "GPR averages the branches: its test MAE is at least 0.03 above both Twin GPs'.",
              _twins_beat_gpr),
        Claim("regression.certainty", "SMTGP's certainty phi flags its best predictions: the most certain fifth "
                                      "of the test points has at most half the mean error of the other four fifths "
                                      "(one-sided Mann-Whitney p < 0.01).", _smtgp_certainty),
    ))


# --------------------------------------------------------------------- IW-SMTGP
_WIDE = 2.0


def _iw_smtgp_helps_when_misspecified(run):
    a, b = _errors(run.view, "SMTGP"), _errors(run.view, "IW-SMTGP")
    _, p = metrics.paired_ttest(a, b)
    return Finding(b.mean() < a.mean() and p < 0.01,
                   {"mean error SMTGP": _round(a.mean()), "mean error IW-SMTGP": _round(b.mean()),
                    "paired t-test p": float(f"{p:.2g}")})


def _little_help_when_well_specified(run):
    flexible = run.view.with_hyper(rho_x=FLEXIBLE_WIDTH)
    diff = abs(_mae(flexible, "IW-SMTGP") - _mae(flexible, "SMTGP"))
    gain = _mae(run.view, "SMTGP") - _mae(run.view, "IW-SMTGP")
    return Finding(diff <= 0.01 and gain >= 5 * diff,
                   {f"size of the MAE change at rho_x = {FLEXIBLE_WIDTH}": _round(diff),
                    f"MAE gain at rho_x = {_WIDE:g}": _round(gain)})


IW_SMTGP = Lesson(
    key="iw-smtgp", title="IW-SMTGP", page="pages/regression.py", main_figure="regression.fits",
    summary="Circle data (two outputs on the unit circle), training inputs shifted away from the test ones. "
            f"With a too-wide input kernel (rho_x = {_WIDE:g}) the unweighted SMTGP fits the training region "
            "and misses the test one; the importance-weighted IW-SMTGP does not. A Twin GP minimises its cost at every "
            "test point with at most 50 quasi-Newton steps: where the cost is flat, a point (1 of 200 on seed 0) can "
            "stop before its tolerance; it keeps its last iterate and its error counts like the others'.",
    settings={**data_settings("circle"), **_HYPER, "rho_x": _WIDE, "models": ["GPR", "IW-GPR", "SMTGP", "IW-SMTGP"],
              "weights_for_models": "FCFWCS", "sigma_mode": "auto", "sigma": 0.3, "estimators": ["FCFWCS"]},
    banner=f"With a too-wide input kernel (rho_x = {_WIDE:g}) SMTGP fits the training region (blue dots) and misses "
           f"the test one; IW-SMTGP does not. Set rho_x to {FLEXIBLE_WIDTH}: the weights barely matter.",
    invites=("rho_x",),
    claims=(
        Claim("regression.table", f"With rho_x = {_WIDE:g}, IW-SMTGP's error is lower than SMTGP's and the "
                                  "paired t-test says the difference is no accident (p < 0.01), counting every "
                                  "test point, including any that stops at the Twin GP's 50-step limit.",
              _iw_smtgp_helps_when_misspecified),
        Claim("regression.table", f"With a width that fits the data (rho_x = {FLEXIBLE_WIDTH}) the weights change "
                                  f"the MAE by at most 0.01, at least five times less than they gain at rho_x = {_WIDE:g}: "
                                  "weighting matters for a misspecified model.", _little_help_when_well_specified),
    ))


# ------------------------------------------------------------ A few target labels
def _few_labels(run):
    """The page's few-labels comparison (the View's own call), so that the claim reads the cache entry the page filled."""
    return run.view.few_labels(int(run.setting("n_labels")))


def _both_adaptations_help(run):
    _, Y_eval, preds = _few_labels(run)
    maes = {n: _round(metrics.mae(Y_eval, p)) for n, p in preds.items()}
    holds = (maes["no adaptation"] - maes["importance weighting"] >= 0.01
             and maes["no adaptation"] - maes["delta adaptation"] >= 0.005)
    return Finding(holds, {"MAE": maes})


FEW_LABELS = Lesson(
    key="few-labels", title="A few target labels", page="pages/regression.py",
    summary="The sinc data with a too-smooth GP (rho_x = 2) and 10 labelled test points: no adaptation, "
            "importance weighting (no target labels needed) and delta adaptation (a correction fitted "
            "to the 10 labels).",
    settings={**data_settings("sinc"), **_HYPER, "rho_x": 2.0, "models": ["GPR", "IW-GPR"],
              "weights_for_models": "FCFWCS", "sigma_mode": "auto", "sigma": 0.3, "estimators": ["FCFWCS"],
              "few_labels": True, "n_labels": 10},
    banner="Ten labelled test points (black rings): compare no adaptation, importance weighting and delta "
           "adaptation. Move the slider: how many labels does delta adaptation need?",
    invites=("n_labels",),
    claims=(
        Claim("regression.few_labels", "Both adaptations beat no adaptation: importance weighting by at least "
                                       "0.01 in MAE, delta adaptation by at least 0.005.", _both_adaptations_help),
    ))


# ------------------------------------------------------------ The boundary turns (classification)
def _classification_aucs(run):
    """Test AUC of the iid, two-stage and integrated classifiers on the lesson's data (the page's very call)."""
    rows = run.view.classifiers(*(run.setting(f"clf.{k}") for k in ("n", "steepness", "label_noise", "kernel", "sigma",
                                                                      "C", "C_v", "weights")))[0]
    iid, two_stage, integrated = (row["AUC"] for row in rows)
    return {"iid": _round(iid), "two-stage": _round(two_stage), "integrated": _round(integrated)}


def _weighted_classifiers_win(run):
    auc = _classification_aucs(run)
    return Finding(min(auc["two-stage"], auc["integrated"]) - auc["iid"] >= 0.1, {"test AUC": auc})


def _integrated_best(run):
    auc = _classification_aucs(run)
    return Finding(auc["integrated"] > auc["two-stage"], {"test AUC": auc})


BOUNDARY_TURNS = Lesson(
    key="boundary-turns", title="The boundary turns", page="pages/classification.py", main_figure="classification.table",
    summary="A linear classifier on a pool split by a steep selection (steepness 2) with little label noise (0.1): "
            "the true class boundary turns between the training region and the test region. Compare where the iid, "
            "two-stage (LogisticRatio weights) and integrated boundaries run, and their test AUC.",
    settings={**data_settings("sinc"), **_HYPER, "sigma_mode": "auto", "sigma": 0.3, "estimators": ["FCFWCS"],
              "weights_for_models": "FCFWCS", "clf.n": 400, "clf.steepness": 2.0, "clf.label_noise": 0.1,
              "clf.kernel": "linear", "clf.sigma": 1.0, "clf.C": 1.0, "clf.C_v": 1.0, "clf.weights": "LogisticRatio",
              "clf.sized_by": "integrated"},
    banner="The true boundary turns between the training region and the test region: the iid line follows the "
           "training points, the weighted ones turn. Move the selection steepness (0: no shift).",
    invites=("clf.steepness",),
    claims=(
        Claim("classification.table", "Both weighted classifiers have a test AUC at least 0.1 higher than the iid "
                                      "classifier's.", _weighted_classifiers_win),
        Claim("classification.table", "The integrated model, which learns the classifier and the selector together, "
                                      "has the highest test AUC.", _integrated_best),
    ))


LESSONS = {lesson.title: lesson for lesson in
           [WHY_WEIGHTS, KLIEP_SOLVERS, ESTIMATORS_DISAGREE, STRUCTURED_OUTPUT, IW_SMTGP, FEW_LABELS, BOUNDARY_TURNS]}


def check(lesson, seed=None):
    """Evaluate every claim of ``lesson`` on its data (optionally another seed): [(claim, Finding)]."""
    run = LessonRun(lesson, seed)
    return [(claim, claim.check(run)) for claim in lesson.claims]


def revealed_run(lesson, seed=None):
    """The :class:`LessonRun` of ``lesson``'s revealed view: its settings with the reveal's changes."""
    return LessonRun(lesson, seed, changes=lesson.reveal.changes)


def check_revealed(lesson, seed=None):
    """Evaluate the reveal's claims on the revealed view (optionally another seed): [(claim, Finding)]."""
    run = revealed_run(lesson, seed)
    return [(claim, claim.check(run)) for claim in lesson.reveal.claims]


def answer(lesson, seed=None):
    """The right option of ``lesson``'s question, decided on the revealed view of ``seed``: an :class:`Answer`."""
    index, numbers = lesson.question.answer(revealed_run(lesson, seed))
    return Answer(int(index), lesson.question.options[index], numbers)


#: The app's name of each page a lesson can open.
PAGE_TITLES = {"pages/home.py": "Home", "pages/weights.py": "Importance weights",
               "pages/regression.py": "Structured regression", "pages/classification.py": "Classification under shift"}


def readme_section():
    """README's "Teach with it" list, generated from the lessons."""
    lines = []
    for lesson in LESSONS.values():
        lines.append(f"- **{lesson.title}** (opens {PAGE_TITLES[lesson.page]}): {lesson.summary}")
        lines.extend(f"  - {claim.text}" for claim in lesson.claims)
    return "\n".join(lines)
