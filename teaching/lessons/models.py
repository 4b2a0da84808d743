"""The lessons of the Structured regression and Classification pages: Structured output, IW-SMTGP,
A few target labels, The boundary turns (each a :class:`~teaching.lessons.core.Lesson` with its claims,
reveal and question)."""

import re

import numpy as np
from scipy import stats

from covshift import metrics
from teaching import catalog, readings
from teaching.lessons.core import (FLEXIBLE_WIDTH, HYPER, Claim, Finding, Lesson, Question, Reveal,
                                   data_settings, errors, mae, rounded)


# -------------------------------------------------------------- Structured output
_TOY_HYPER = catalog.paper_tgp_defaults("s_shape")


def _twins_beat_gpr(run):
    maes = {n: rounded(mae(run.view, n)) for n in ["GPR", "KLTGP", "SMTGP"]}
    return Finding(maes["GPR"] > max(maes["KLTGP"], maes["SMTGP"]) + 0.03, {"MAE": maes})


def _flexible_gpr_still_averages(run):
    """On the revealed view (input width 0.3): GPR's test MAE stays at least 0.03 above KLTGP's."""
    maes = {n: rounded(mae(run.view, n)) for n in ["GPR", "KLTGP"]}
    return Finding(maes["GPR"] - maes["KLTGP"] >= 0.03, {"MAE": maes})


def _does_gpr_follow_a_branch(run):
    """The Structured-output question's answer: 0 GPR's test MAE is within 0.01 of KLTGP's (it follows a branch
    as well), 1 it stays more than 0.01 above (it still averages)."""
    gpr, kltgp = mae(run.view, "GPR"), mae(run.view, "KLTGP")
    return int(gpr - kltgp > 0.01), {"MAE GPR": rounded(gpr), "MAE KLTGP": rounded(kltgp)}


#: Certainty bins of the Structured-output lesson: fifths of the test points ranked by phi.
CERTAINTY_BINS = 5


def _smtgp_certainty(run):
    phi, errs = run.view.prediction("SMTGP").model["certainty"], errors(run.view, "SMTGP")
    bins = metrics.certainty_error_bins(phi, errs, CERTAINTY_BINS)
    top = bins["members"][-1]
    rest = np.concatenate(bins["members"][:-1])
    ratio = errs[top].mean() / errs[rest].mean()
    p = float(stats.mannwhitneyu(errs[top], errs[rest], alternative="less").pvalue)
    r, _ = metrics.certainty_error_correlation(phi, errs)
    rho = readings.spearman_rho(phi, errs)
    return Finding(ratio <= 0.5 and p < 0.01,
                   {"mean error per fifth, least to most certain": [rounded(v, 3) for v in bins["error"]],
                    "most certain fifth / the rest": rounded(ratio, 2), "Mann-Whitney p": float(f"{p:.2g}"),
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
    banner="The S-shape has up to three y for one x: GPR averages the branches, the Twin GPs follow one. "
           f"Make GPR flexible (input width {FLEXIBLE_WIDTH}): does it follow a branch then?",
    invites=("rho_x",),
    eye="GPR's grey dashed line cuts between the S's branches where it has three; the Twin GPs' markers (KLTGP's large "
        "blue triangles around SMTGP's small green diamonds) sit on one branch; in the error panel below, GPR's dotted "
        "grey mean-error line lies above theirs.",
    reveal=Reveal({"rho_x": FLEXIBLE_WIDTH},
                  sees=f"At input width {FLEXIBLE_WIDTH} GPR's line bends more, but where the S has three branches it "
                       "still runs between them; KLTGP's markers stay on one branch.",
                  claims=(Claim("regression.fits", f"Even a flexible GPR (input width {FLEXIBLE_WIDTH}) averages the "
                                                   "branches: its test MAE stays at least 0.03 above KLTGP's.",
                                _flexible_gpr_still_averages),)),
    question=Question(f"GPR becomes flexible (input width {FLEXIBLE_WIDTH}). Will it follow one branch, as the Twin "
                      "GPs do?", ("Yes: its error falls to the Twin GPs'", "No: it still averages the branches"),
                      _does_gpr_follow_a_branch),
    claims=(
        Claim("regression.fits", "GPR averages the branches: its test MAE is at least 0.03 above both Twin GPs'.",
              _twins_beat_gpr),
        Claim("regression.certainty", "SMTGP's certainty phi flags its best predictions: the most certain fifth "
                                      "of the test points has at most half the mean error of the other four fifths "
                                      "(one-sided Mann-Whitney p < 0.01).", _smtgp_certainty),
    ))


# --------------------------------------------------------------------- IW-SMTGP
_WIDE = 2.0


def _stopped_at_limit(view, name):
    """How many test points of Twin GP ``name`` stopped at its 50-step limit (from the fit's recorded warning)."""
    found = [re.match(r"(\d+) of \d+ test points did not converge", w) for w in view.prediction(name).warnings]
    return sum(int(m.group(1)) for m in found if m)


def _iw_smtgp_helps_when_misspecified(run):
    a, b = errors(run.view, "SMTGP"), errors(run.view, "IW-SMTGP")
    _, p = metrics.paired_ttest(a, b)
    return Finding(b.mean() < a.mean() and p < 0.01,
                   {"mean error SMTGP": rounded(a.mean()), "mean error IW-SMTGP": rounded(b.mean()),
                    "paired t-test p": float(f"{p:.2g}"),
                    f"test points (of {len(a)}) stopped at the 50-step limit":
                        {n: _stopped_at_limit(run.view, n) for n in ["SMTGP", "IW-SMTGP"]}})


def _little_help_when_well_specified(run):
    """At the two fixed widths (whatever this view's): the weights change the MAE by at most 0.01 at the flexible
    width, at least five times less than they gain at the too-wide one."""
    flexible, wide = run.view.with_hyper(rho_x=FLEXIBLE_WIDTH), run.view.with_hyper(rho_x=_WIDE)
    diff = abs(mae(flexible, "IW-SMTGP") - mae(flexible, "SMTGP"))
    gain = mae(wide, "SMTGP") - mae(wide, "IW-SMTGP")
    return Finding(diff <= 0.01 and gain >= 5 * diff,
                   {f"size of the MAE change at input width {FLEXIBLE_WIDTH}": rounded(diff),
                    f"MAE gain at input width {_WIDE:g}": rounded(gain)})


def _weights_barely_matter_here(run):
    """On the revealed view (input width 0.3): the weights change SMTGP's test MAE by at most 0.01."""
    plain, weighted = mae(run.view, "SMTGP"), mae(run.view, "IW-SMTGP")
    return Finding(abs(weighted - plain) <= 0.01, {"MAE SMTGP": rounded(plain), "MAE IW-SMTGP": rounded(weighted)})


def _what_weights_do_to_smtgp(run):
    """The IW-SMTGP question's answer: 0 the weights lower SMTGP's test MAE by more than 0.01, 1 they change it
    by at most 0.01, 2 they raise it by more than 0.01."""
    plain, weighted = mae(run.view, "SMTGP"), mae(run.view, "IW-SMTGP")
    index = 0 if plain - weighted > 0.01 else 2 if weighted - plain > 0.01 else 1
    return index, {"MAE SMTGP": rounded(plain), "MAE IW-SMTGP": rounded(weighted)}


IW_SMTGP = Lesson(
    key="iw-smtgp", title="IW-SMTGP", page="pages/regression.py", main_figure="regression.fits",
    summary="Circle data (two outputs on the unit circle), training inputs shifted away from the test ones. "
            f"With a too-wide input kernel (input width {_WIDE:g}) the unweighted SMTGP fits the training region "
            "and misses the test one; the importance-weighted IW-SMTGP does not. A Twin GP minimises its cost at every "
            "test point with at most 50 quasi-Newton steps: where the cost is flat, a point (1 of 200 on seed 0) can "
            "stop before its tolerance; it keeps its last iterate and its error counts like the others'.",
    settings={**data_settings("circle"), **HYPER, "rho_x": _WIDE, "models": ["GPR", "IW-GPR", "SMTGP", "IW-SMTGP"],
              "weights_for_models": "FCFWCS", "sigma_mode": "auto", "sigma": 0.3, "estimators": ["FCFWCS"]},
    banner=f"With a too-wide input kernel (input width {_WIDE:g}) SMTGP fits the training region (blue dots) and "
           f"misses the test one; IW-SMTGP does not. Set the input width to {FLEXIBLE_WIDTH}: the weights barely "
           "matter.",
    invites=("rho_x", "plot_output"),
    eye="In the orange test region SMTGP's green diamonds leave the orange test points while IW-SMTGP's pink stars "
        "stay on them; in the error panel below, SMTGP's green line stands above IW-SMTGP's pink one across the test "
        "region (blue shading: the training region, where most training points are).",
    reveal=Reveal({"rho_x": FLEXIBLE_WIDTH},
                  sees=f"At input width {FLEXIBLE_WIDTH} SMTGP follows the test points without help: its markers and "
                       "IW-SMTGP's lie together.",
                  claims=(Claim("regression.table", f"With a width that fits the data (input width {FLEXIBLE_WIDTH}) "
                                                    "the weights change SMTGP's test MAE by at most 0.01.",
                                _weights_barely_matter_here),)),
    question=Question(f"The input width becomes {FLEXIBLE_WIDTH}, a width that fits the data. What will the weights "
                      "do to SMTGP's test error?", ("Lower it clearly, as at width 2", "Barely change it",
                                                   "Raise it clearly"), _what_weights_do_to_smtgp),
    claims=(
        Claim("regression.table", f"With a too-wide input kernel (input width {_WIDE:g}), IW-SMTGP's error is lower "
                                  "than SMTGP's and the paired t-test says the difference is no accident (p < 0.01), "
                                  "counting every test point, also those whose search stopped at the Twin GP's "
                                  "50-step limit with their last output.",
              _iw_smtgp_helps_when_misspecified),
        Claim("regression.table", f"With a width that fits the data (input width {FLEXIBLE_WIDTH}) the weights change "
                                  f"the MAE by at most 0.01, at least five times less than they gain at width {_WIDE:g}: "
                                  "weighting matters for a misspecified model.", _little_help_when_well_specified),
    ))


# ------------------------------------------------------------ A few target labels
def _few_labels(run):
    """The page's few-labels comparison (the View's own call), so that the claim reads the cache entry the page filled."""
    return run.view.few_labels(int(run.setting("n_labels")))


def _both_adaptations_help(run):
    _, Y_eval, preds = _few_labels(run)
    maes = {n: rounded(metrics.mae(Y_eval, p)) for n, p in preds.items()}
    holds = (maes["no adaptation"] - maes["importance weighting"] >= 0.01
             and maes["no adaptation"] - maes["delta adaptation"] >= 0.005)
    return Finding(holds, {"MAE": maes})


#: The reveal of A few target labels: as few labels as the slider allows.
FEWEST_LABELS = 2


def _few_labels_mislead_delta(run):
    """On the revealed view (2 labels): delta adaptation's test MAE is at least 0.01 above importance weighting's."""
    _, Y_eval, preds = _few_labels(run)
    maes = {n: rounded(metrics.mae(Y_eval, p)) for n, p in preds.items()}
    return Finding(maes["delta adaptation"] - maes["importance weighting"] >= 0.01, {"MAE": maes})


def _which_adaptation_wins(run):
    """The few-labels question's answer: 0 delta adaptation's MAE is lower by more than 0.005, 1 importance
    weighting's is, 2 they are within 0.005."""
    _, Y_eval, preds = _few_labels(run)
    delta, weighting = metrics.mae(Y_eval, preds["delta adaptation"]), metrics.mae(Y_eval, preds["importance weighting"])
    index = 2 if abs(delta - weighting) <= 0.005 else 0 if delta < weighting else 1
    return index, {"MAE delta adaptation": rounded(delta), "MAE importance weighting": rounded(weighting)}


FEW_LABELS = Lesson(
    key="few-labels", title="A few target labels", page="pages/regression.py",
    summary="The sinc data with a too-smooth GP (input width 2) and 10 labelled test points: no adaptation, "
            "importance weighting (no target labels needed) and delta adaptation (a correction fitted "
            "to the 10 labels).",
    settings={**data_settings("sinc"), **HYPER, "rho_x": 2.0, "models": ["GPR", "IW-GPR"],
              "weights_for_models": "FCFWCS", "sigma_mode": "auto", "sigma": 0.3, "estimators": ["FCFWCS"],
              "few_labels": True, "n_labels": 10},
    banner="Ten labelled test points (black rings): compare no adaptation, importance weighting and delta "
           "adaptation. Move the slider: how many labels does delta adaptation need?",
    invites=("n_labels", "rho_x"),
    eye="In the error panel under the fits, the grey no-adaptation line stands above the green importance-weighting "
        "and pink delta-adaptation lines; where the two adaptations agree, the thin pink dotted line runs inside the "
        "wider green one.",
    reveal=Reveal({"n_labels": FEWEST_LABELS},
                  sees="With 2 labels two noisy points pull the delta-adapted line off the test curve; the "
                       "importance-weighted line, which needs no labels, stays on it.",
                  claims=(Claim("regression.few_labels", "With only 2 labels, delta adaptation's correction follows "
                                                         "their noise: its test MAE is at least 0.01 above importance "
                                                         "weighting's, which needs no labels.",
                                _few_labels_mislead_delta),)),
    question=Question("Only 2 test points are labelled. Which adaptation will have the lower test error?",
                      ("Delta adaptation: it uses the labels", "Importance weighting: it needs no labels",
                       "Both about the same"), _which_adaptation_wins),
    claims=(
        Claim("regression.few_labels", "Both adaptations beat no adaptation: importance weighting by at least "
                                       "0.01 in MAE, delta adaptation by at least 0.005.", _both_adaptations_help),
    ))


# ------------------------------------------------------------ The boundary turns (classification)
def _classification_aucs(run):
    """Test AUC of the iid, two-stage and integrated classifiers on the lesson's data (the page's very call)."""
    rows = run.view.classifiers()[0]
    iid, two_stage, integrated = (row["AUC"] for row in rows)
    return {"iid": rounded(iid), "two-stage": rounded(two_stage), "integrated": rounded(integrated)}


def _weighted_classifiers_win(run):
    auc = _classification_aucs(run)
    return Finding(min(auc["two-stage"], auc["integrated"]) - auc["iid"] >= 0.1, {"test AUC": auc})


def _integrated_best(run):
    auc = _classification_aucs(run)
    return Finding(auc["integrated"] > auc["two-stage"], {"test AUC": auc})


def _no_shift_no_gain(run):
    """On the revealed view (steepness 0, no selection): the three test AUCs lie within 0.02 of one another."""
    auc = _classification_aucs(run)
    return Finding(max(auc.values()) - min(auc.values()) <= 0.02,
                   {"test AUC": auc, "largest difference": rounded(max(auc.values()) - min(auc.values()))})


def _weighted_against_iid(run):
    """The boundary question's answer: 0 both weighted classifiers' test AUC is more than 0.02 above the iid one's,
    2 both more than 0.02 below it, 1 otherwise (about the same)."""
    auc = _classification_aucs(run)
    weighted = (auc["two-stage"] - auc["iid"], auc["integrated"] - auc["iid"])
    index = 0 if min(weighted) > 0.02 else 2 if max(weighted) < -0.02 else 1
    return index, {"test AUC": auc}


BOUNDARY_TURNS = Lesson(
    key="boundary-turns", title="The boundary turns", page="pages/classification.py", main_figure="classification.table",
    summary="A linear classifier on a pool split by a steep selection (steepness 2) with little label noise (0.1): "
            "the true class boundary turns between the training region and the test region. Compare where the iid, "
            "two-stage (LogisticRatio weights) and integrated boundaries run, and their test AUC.",
    settings={**data_settings("sinc"), **HYPER, "sigma_mode": "auto", "sigma": 0.3, "estimators": ["FCFWCS"],
              "weights_for_models": "FCFWCS", "clf.n": 400, "clf.steepness": 2.0, "clf.label_noise": 0.1,
              "clf.kernel": "linear", "clf.sigma": 1.0, "clf.C": 1.0, "clf.C_v": 1.0, "clf.weights": "LogisticRatio",
              "clf.sized_by": "integrated"},
    banner="The true boundary turns between the training region and the test region: the iid line follows the "
           "training points, the weighted ones turn. Move the selection steepness (0: no shift).",
    invites=("clf.steepness",),
    eye="Among the test crosses (the green region on the right), the dashed two-stage and solid integrated lines run "
        "near the black true boundary, the dotted grey iid line far from it (each line on a white edge).",
    reveal=Reveal({"clf.steepness": 0.0},
                  sees="Without selection the training and test points come from the same pool: the iid, two-stage "
                       "and integrated lines run together, and the weights change nothing.",
                  claims=(Claim("classification.table", "Without selection (steepness 0) there is no shift: the "
                                                        "three classifiers' test AUCs lie within 0.02 of one another.",
                                _no_shift_no_gain),)),
    question=Question("Take the selection away (steepness 0). How will the weighted classifiers do against the iid "
                      "one?", ("Still clearly better", "About the same", "Worse"), _weighted_against_iid),
    claims=(
        Claim("classification.table", "Both weighted classifiers have a test AUC at least 0.1 higher than the iid "
                                      "classifier's.", _weighted_classifiers_win),
        Claim("classification.table", "The integrated model, which learns the classifier and the selector together, "
                                      "has the highest test AUC.", _integrated_best),
    ))
