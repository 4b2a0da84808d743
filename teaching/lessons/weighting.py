"""The lessons of the Home and Importance weights pages: Why weights, KLIEP and its Frank-Wolfe solvers,
Estimators disagree (each a :class:`~teaching.lessons.core.Lesson` with its claims, reveal and question)."""

from teaching import readings
from teaching.lessons.core import (FLEXIBLE_WIDTH, HYPER, Claim, Finding, Lesson, Question, Reveal,
                                   data_settings, rounded, significant)


# ---------------------------------------------------------------- Why weights
def _by_width(run):
    """The Why-weights table of the lesson's view: test MAE per GP width (the page's very call)."""
    return run.view.weighting_by_width((float(run.setting("home_width")), FLEXIBLE_WIDTH),
                                       float(run.setting("lambda_x")))


def _weighted_fit_wins(run):
    table = _by_width(run)[float(run.setting("home_width"))]
    gain_true = table["no weights"] - table["true weights"]
    gain_est = table["no weights"] - table["estimated weights"]
    return Finding(gain_true >= 0.01 and gain_est >= 0.01,
                   {"MAE no weights": rounded(table["no weights"]), "MAE true weights": rounded(table["true weights"]),
                    "MAE estimated weights": rounded(table["estimated weights"])})


def _estimated_as_good_as_true(run):
    table = _by_width(run)[float(run.setting("home_width"))]
    diff = abs(table["estimated weights"] - table["true weights"])
    return Finding(diff <= 0.005, {"MAE estimated - MAE true, in size": rounded(diff)})


def _weights_barely_matter_here(run):
    """On the revealed view (the slider at the flexible width): the weights change the test MAE by at most 0.005."""
    table = _by_width(run)[float(run.setting("home_width"))]
    diff = max(abs(table["no weights"] - table["true weights"]),
               abs(table["no weights"] - table["estimated weights"]))
    return Finding(diff <= 0.005, {"MAE no weights": rounded(table["no weights"]),
                                   "largest MAE change by weighting": rounded(diff)})


def _what_weights_do_here(run):
    """The Why-weights question's answer on the revealed view: 0 the weights lower the test MAE by at least
    0.01, 1 they change it by at most 0.005 either way, 2 they raise it (or lower it by 0.005-0.01)."""
    table = _by_width(run)[float(run.setting("home_width"))]
    gain = table["no weights"] - table["estimated weights"]
    index = 0 if gain >= 0.01 else 1 if abs(gain) <= 0.005 else 2
    return index, {"MAE no weights": rounded(table["no weights"]),
                   "MAE estimated weights": rounded(table["estimated weights"])}


def _flexible_barely_needs_weights(run):
    table = _by_width(run)[FLEXIBLE_WIDTH]
    diff = max(abs(table["no weights"] - table["true weights"]),
               abs(table["no weights"] - table["estimated weights"]))
    return Finding(diff <= 0.005, {"MAE no weights": rounded(table["no weights"]),
                                   "largest MAE change by weighting": rounded(diff)})


WHY_WEIGHTS = Lesson(
    key="why-weights", title="Why weights", page="pages/home.py",
    summary="A too-smooth model (a GP of input width 2) fitted to the training points misses the test "
            "region; re-weighting by w(x) = p_te/p_tr fixes it, with true or estimated weights. "
            "Move the width slider to 0.3: a flexible model barely needs the weights (Shimodaira, 2000).",
    settings={**data_settings("sinc"), **HYPER, "home_width": 2.0, "sigma_mode": "auto", "sigma": 0.3,
              "weights_for_models": "FCFWCS", "estimators": ["FCFWCS"]},
    banner="A too-smooth GP misses the test region unless the training points are weighted. "
           "Move the width slider to 0.3: a flexible model barely needs the weights.",
    invites=("home_width",),
    compares=("sinc.", "seed", "home_width", "weights_for_models", "sigma_mode", "sigma", "lambda_x"),
    eye="At width 2 the grey dashed unweighted fit leaves the test points at the left of the test region, the "
        "weighted fits pass through them; in the error panel below, its grey line stands above the others and the "
        "shaded grey area between them is the error the weights remove.",
    reveal=Reveal({"home_width": FLEXIBLE_WIDTH},
                  sees="At width 0.3 the three fits lie on top of each other in the test region: a flexible model "
                       "does not need the weights.",
                  claims=(Claim("home.fit", "A flexible model (width 0.3) barely needs the weights: they change "
                                            "its test MAE by at most 0.005.", _weights_barely_matter_here),)),
    question=Question("The model becomes flexible (width 0.3). What will the weights do to its test error?",
                      ("Lower it clearly, as for the smooth model", "Barely change it", "Make it worse"),
                      _what_weights_do_here),
    claims=(
        Claim("home.fit", "The weighted fits have a lower test error than the unweighted one "
                          "(by at least 0.01 in MAE).", _weighted_fit_wins),
        Claim("home.fit", "Weights estimated by FCFWCS do as well as the true ratio "
                          "(the MAEs differ by at most 0.005).", _estimated_as_good_as_true),
        Claim("home.width", "A flexible model (width 0.3) barely needs the weights: they change its "
                            "test MAE by at most 0.005.", _flexible_barely_needs_weights),
    ))


# ----------------------------------------------- KLIEP and its Frank-Wolfe solvers
_FW = ["FCFWCS", "PFWCS", "AFWCS", "FWCS"]
#: Relative duality gaps at which the solvers' sparsity is compared (equal accuracy, not equal iterations).
EQUAL_GAPS = (1e-3, 1e-4)


def _fcfwcs_certifies(run):
    model = run.view.weights("FCFWCS").model
    return Finding(bool(model.converged_) and model.n_iter_ <= 30,
                   {"FCFWCS iterations": int(model.n_iter_),
                    "final relative gap": significant(readings.relative_gaps(model.history_)[-1])})


def _same_optimum(run):
    best = run.view.weights("FCFWCS").model.objective_
    shortfall = {n: significant((best - run.view.weights(n).model.objective_) / abs(best)) for n in _FW[1:]}
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


#: The solver the KLIEP lesson's reveal replays: one that moves weight between two atoms per step.
REPLAYED = "PFWCS"


def _replayed_creeps(run):
    """On the revealed view (the replay shows PFWCS): the replayed solver first reaches relative gap 1e-4 after more
    than 500 iterations (or never within its budget), with at least 20 drop or swap steps on its way."""
    name = run.setting("replay")
    history = run.view.weights(name).model.history_
    reached, _ = readings.first_at_gap(history, EQUAL_GAPS[1])
    until = len(history.step_kind) if reached is None else reached
    kinds = list(history.step_kind[:until])
    drops, swaps = kinds.count("drop"), kinds.count("swap")
    return Finding(name != "FCFWCS" and (reached is None or reached > 500) and drops + swaps >= 20,
                   {"replayed solver": name, f"first iteration at relative gap {EQUAL_GAPS[1]:g}": reached or "never",
                    "drop steps before it": drops, "swap steps before it": swaps})


def _steps_to_tight_gap(run):
    """The KLIEP question's answer: the replayed solver reaches relative gap 1e-4 within 30 iterations (0), within
    300 (1), or later or never (2)."""
    name = run.setting("replay")
    reached, _ = readings.first_at_gap(run.view.weights(name).model.history_, EQUAL_GAPS[1])
    index = 2 if reached is None or reached > 300 else 0 if reached <= 30 else 1
    return index, {"replayed solver": name, f"first iteration at relative gap {EQUAL_GAPS[1]:g}": reached or "never"}


KLIEP_SOLVERS = Lesson(
    key="kliep-solvers", title="KLIEP and its Frank-Wolfe solvers", page="pages/weights.py", main_figure="weights.gap",
    summary="The four Frank-Wolfe solvers of KLIEP on the paper's sinc data, all with the same sigma = 0.3 "
            "(one problem). FCFWCS certifies the optimum in about a dozen steps; FWCS, AFWCS and PFWCS creep "
            "towards it. Compare the atoms they keep when they reach the same duality gap.",
    settings={**data_settings("sinc"), **HYPER, "estimators": list(_FW), "sigma_mode": "manual",
              "sigma": 0.3, "gap_axis": "iteration", "weights_for_models": "FCFWCS", "replay": "FCFWCS"},
    banner="Replay each solver step by step: FCFWCS certifies the optimum in a dozen steps, the others creep.",
    invites=("replay", "gap_axis"),
    eye="On the dotted line of gap 0.001 each solver's first iterate is ringed and labelled with its atoms: "
        "FCFWCS's ring comes first, within ten iterations, with the fewest atoms; the others' come after a hundred "
        "or more, with many more atoms.",
    reveal=Reveal({"replay": REPLAYED},
                  sees="The replay now plays PFWCS: one small pairwise step after another, atoms dropped and swapped "
                       "on the way, hundreds of steps for the gap FCFWCS reaches in about ten.",
                  claims=(Claim("weights.gap", f"PFWCS, replayed, creeps: its relative gap first reaches "
                                               f"{EQUAL_GAPS[1]:g} after more than 500 iterations (FCFWCS: about ten), "
                                               "with at least 20 drop or swap steps on the way.", _replayed_creeps),)),
    question=Question("The replay switches to PFWCS, which moves weight between two atoms per step. How many steps "
                      "will it need for the accuracy FCFWCS reaches in about ten?",
                      ("About ten, like FCFWCS", "A few hundred at most", "Many hundreds, or it never gets there"),
                      _steps_to_tight_gap),
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
    return Finding(ratio >= 2, {"weight error (mean-1 scale)": {n: rounded(e) for n, e in errors.items()},
                                "worst / best": rounded(ratio, 1)})


def _width_rule_matters(run):
    errors = _weight_errors(run)
    return Finding(errors["RuLSIF"] < errors["FCFWCS"], {"RuLSIF (its own cross-validation)": rounded(errors["RuLSIF"]),
                                                         "FCFWCS (likelihood cross-validation)": rounded(errors["FCFWCS"])})


def _disagree_with_one_width(run):
    """On the revealed view (one kernel width for all): the worst weight error is still at least 3 times the best."""
    errors = _weight_errors(run)
    ratio = max(errors.values()) / min(errors.values())
    return Finding(run.setting("sigma_mode") == "manual" and ratio >= 3,
                   {"kernel width of all": rounded(float(run.setting("sigma")), 3),
                    "weight error (mean-1 scale)": {n: rounded(e, 3) for n, e in errors.items()},
                    "worst / best": rounded(ratio, 1)})


def _do_they_agree(run):
    """The Estimators-disagree question's answer: 1 the worst weight error is at least twice the best (they still
    disagree), 0 it is not (they agree)."""
    errors = _weight_errors(run)
    return int(max(errors.values()) >= 2 * min(errors.values())), {
        "worst weight error": rounded(max(errors.values()), 3), "best weight error": rounded(min(errors.values()), 3)}


ESTIMATORS_DISAGREE = Lesson(
    key="estimators-disagree", title="Estimators disagree", page="pages/weights.py", main_figure="weights.curves",
    summary="Eight estimators of w(x) on the same sinc data, against the true ratio. Their kernel widths come "
            "from three rules (the table's sigma): likelihood cross-validation (FCFWCS), the median heuristic "
            "(the five KMM variants and LogisticRatio) and RuLSIF's own cross-validation. The weight error "
            "(NMSE on the mean-1 scale) ranks them.",
    settings={**data_settings("sinc"), **HYPER, "estimators": list(_ESTIMATORS), "sigma_mode": "auto",
              "sigma": 0.3, "weights_for_models": "FCFWCS", "replay": "FCFWCS"},
    banner="Eight estimators of w(x): here the three with a curve, against the true ratio (dotted); below, KMM's five "
           "at the training points and all eight weight errors. Is it only their kernel widths?",
    invites=("replay", "gap_axis", "sigma_mode", "sigma"),
    eye="Three curves in three hues (pink FCFWCS, green LogisticRatio, indigo RuLSIF) against the dotted truth; in "
        "the error panel below, the lower a line the closer that estimator: RuLSIF's indigo line runs below "
        "FCFWCS's pink one, and so does its dotted mean-error line.",
    reveal=Reveal({"sigma_mode": "manual"},
                  sees="All eight now use one kernel width, 0.3: the curves still differ from each other and from the "
                       "dotted truth, so the estimator itself matters, not only its width.",
                  claims=(Claim("weights.curves", "With one kernel width for all (0.3) the estimators still disagree: "
                                                  "the worst weight error is at least 3 times the best.",
                                _disagree_with_one_width),)),
    question=Question("All eight estimators get the same kernel width (0.3). Will they agree?",
                      ("Yes: their weight errors become about equal", "No: the worst error stays at least twice the "
                                                                        "best"), _do_they_agree),
    claims=(
        Claim("weights.table", "The estimators disagree: the worst weight error is at least twice the best.",
              _spread),
        Claim("weights.curves", "The width rule matters: RuLSIF, with the width of its own least-squares "
                                "cross-validation, estimates the ratio better than FCFWCS with the width of "
                                "likelihood cross-validation.", _width_rule_matters),
    ))
