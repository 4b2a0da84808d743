import functools
import io

import numpy as np
import streamlit as st

from teaching import ui
from teaching.readings import metrics
from teaching import catalog, lessons, figures, readings

ui.through_app()
st.title("Importance weights")
ui.ask_the_class("pages/weights.py", beside=ui.lesson_banner("pages/weights.py"))
INTRO = (
    "Each estimator learns $w(x) = p_{te}(x) / p_{tr}(x)$ from the inputs alone. **KLIEP** maximises the "
    "test log-likelihood of $p_{te} = w\\,p_{tr}$; its **Frank-Wolfe** solvers add one Gaussian bump (an *atom*) "
    "per step, so few coefficients are non-zero, and the **duality gap** bounds how far they are from the optimum. "
    "**KMM** matches kernel means, **LogisticRatio** asks a classifier, **RuLSIF** fits the ratio by least squares.")

view = ui.view()
data = ui.current_data(view)
if data is None:
    st.stop()

# The stage (first screen): a lesson's figure with its control and claims beside it. The KLIEP lesson's figure is
# the solvers' duality gaps, with the replay's solver beside it and the replay under it; otherwise the weights
# against the true ratio. The estimators and sigma come under the stage, the table and the other figures below.
REPLAY_STAGE = ui.stage_lesson("pages/weights.py") is lessons.KLIEP_SOLVERS
stage_figure, stage_side = st.container(key="stage").columns([3, 2])
side_control = stage_side.container()
under_stage = st.container()
c1, c2, c3 = st.columns([3, 1, 1])
with c1:
    chosen = ui.widget(st.multiselect, "Estimators", "estimators", catalog.WEIGHT_ESTIMATORS, wrap=True)
with c2:
    mode = ui.widget(st.radio, "Kernel width sigma", "sigma_mode", ["auto", "manual"],
                     help="auto: likelihood cross-validation (KLIEP family), median heuristic (KMM), "
                          "their own CV (RuLSIF). manual: one sigma for every estimator (the same problem).")
with c3:
    if mode == "manual":
        ui.widget(st.slider, "sigma", "sigma",
                  help="Width of the Gaussian kernel exp(-||a-b||^2 / (2 sigma^2)) shared by all estimators.")
if not chosen:
    st.info("Choose at least one estimator.")
    st.stop()


REPLAY_ON_STAGE = False  # the KLIEP lesson's stage shows the replay instead of the gaps (setting weights_stage)
_LEFT = "a red cross and dashed stem: an atom that left, at its last alpha"
#: What the replay of each solver marks (its legend names the same, replay.js's legendUses).
_REPLAY_MARKS = {"FWCS": "Blue: the towards vertex l^FW.",
                 "AFWCS": f"Blue: the towards vertex l^FW; orange: the away vertex l^AFW; {_LEFT}.",
                 "PFWCS": f"Blue: the towards vertex l^FW; orange: the away vertex l^AFW; {_LEFT}; a purple arrow: "
                          "weight that moved from one atom to another.",
                 "FCFWCS": f"Blue: the vertex l^FW that received weight; {_LEFT}."}
_STAGE_WORDS = {"gaps": "the solvers' duality gaps", "replay": "the replay, step by step"}


def _replay_chosen(name):
    """Another solver in the replay (setting ``name``): its replay starts at iteration 0 (one address, one
    history entry)."""
    ui.apply({name: st.session_state[f"w.{name}"], "step": 0})


def _budget_warning(name, message):
    """Frank-Wolfe solvers stopped at their budget: the table reports it (final gap), no warning box."""
    return name in catalog.FRANK_WOLFE and "stopped after" in message


#: Table header of "active atoms when the gap first reached level" (short, to fit 1280 px).
_AT_GAP = {level: f"atoms {level:.0e}".replace("e-0", "e-") for level in lessons.EQUAL_GAPS}

outcomes = ui.run_each(chosen, view.weights, "Estimating the weights", "Weights ready", hide=_budget_warning)
if not outcomes:
    st.stop()

shared = view.shared_sigma if set(outcomes) & catalog.KLIEP_FAMILY else None
truth = data.true_weights
rows = []
for name, outcome in outcomes.items():
    est, w = outcome.model, outcome.model.weights_
    history = getattr(est, "history_", None) if name in catalog.FRANK_WOLFE else None
    row = {"estimator": name,
           "NMSE": ui.quiet(readings.weight_error, w, truth) if truth is not None else None,
           "fit (s)": outcome.seconds, "sigma": getattr(est, "sigma_", None),
           "iter.": getattr(est, "n_iter_", None),
           "conv.": getattr(est, "converged_", None) if name in catalog.KLIEP_FAMILY else None,
           "gap": readings.relative_gaps(history)[-1] if history is not None else None}
    for level in lessons.EQUAL_GAPS:
        row[_AT_GAP[level]] = readings.first_at_gap(history, level)[1] if history is not None else None
    row.update({"atoms at end": int(np.count_nonzero(est.alpha_)) if hasattr(est, "alpha_") else None,
                "objective": getattr(est, "objective_", None), "ESS": ui.quiet(metrics.effective_sample_size, w),
                "max w": ui.quiet(metrics.max_weight, w)})
    rows.append(row)
ui.lesson_summary("pages/weights.py")
st.markdown(INTRO)
st.subheader("The estimators side by side")
ui.show_table(rows, "estimator",
              formats={"fit (s)": ".2f", "objective": ".4g", "iter.": ".0f",
                       "atoms at end": ".0f", **{_AT_GAP[level]: ".0f" for level in lessons.EQUAL_GAPS}, "ESS": ".0f",
                       "max w": ".2f", "gap": ".1e", "NMSE": ".3f", "sigma": ".3g"},
              help={"fit (s)": "Time of the fit with sigma fixed (other estimators: including their own width rule); "
                                "the KLIEP family's shared choice of sigma is timed in the caption below.",
                    "iter.": "Iterations of the solver.",
                    "conv.": "Converged: did the solver reach its tolerance (relative duality gap <= 1e-5) within 2000 "
                                 "iterations?",
                    "gap": "Final relative duality gap (gap / objective) at the returned solution: an upper bound on how "
                                          "far (relatively) the objective is from the optimum.",
                    **{_AT_GAP[level]: f"Active atoms (non-zero alpha_l) of the first iterate whose relative duality "
                                       f"gap reached {level:g} (–: never within its budget; the gap can rise again "
                                       "later). Sparsity compared at equal accuracy." for level in lessons.EQUAL_GAPS},
                    "atoms at end": "Atoms with alpha_l > 0 in the returned solution (the stems of the sparsity "
                                    "plot below), after the solver's last iteration.",
                    "objective": "KLIEP objective: sum of log w over the test points (higher is better).",
                    "ESS": "Effective sample size (sum w)^2 / sum w^2: how many equally weighted training points "
                           "the weights are worth.",
                    "max w": "Largest weight when the weights have mean 1.",
                    "NMSE": "Normalised mean squared error against the true ratio, on the mean-1 "
                                           "scale: mean_i (w_i / mean(w) - t_i / mean(t))^2. 0 is perfect; 1 is an "
                                           "error as large as the weights themselves."})
st.caption("One row per estimator; hover over a column header for its meaning. Two counts of atoms: "
           "*atoms 1e-3* (and 1e-4) are those active when the solver first reached that relative duality gap "
           "(sparsity at equal accuracy); *atoms at end* are the alpha_l > 0 of the returned solution (the stems "
           "of the sparsity plot). A dash (–) means no value: "
           "the column does not apply (e.g. iterations of a closed-form estimator), or the solver did not "
           "reach that duality gap within its budget. The gap of a Frank-Wolfe iterate can rise again after "
           "a step, so a solver can first reach a gap and end above it. NMSE compares the weights with the true ratio, "
           "which no solver sees: KLIEP maximises the test log-likelihood (the *objective*), so an unconverged "
           "solver can stop nearer the true ratio by chance while a certified optimum of the objective sits "
           "farther from it; compare solvers by objective and gap, estimators by NMSE."
           + (f" sigma = {shared.sigma:.3g} chosen by {shared.rule_label} for all KLIEP-family solvers"
              + (f" (once, {shared.seconds:.2f} s)." if shared.rule != "manual" else ".") if shared else ""))
if shared:
    ui.show_warnings("sigma", shared.warnings)
ui.claims("weights.table")

if data.X_tr.shape[1] == 1:
    x = data.X_tr[:, 0]
    grid, curves, on_points, true_curve = ui.of_view(readings.weight_curves, view, tuple(outcomes))
    if curves:
        scored = (x, {n: outcomes[n].model.weights_ for n in curves}, truth) if truth is not None else None
        ui.chart("weights vs truth", figures.weights_vs_truth, grid, curves, true_curve, errors=scored,
                 key="weights.weights_vs_truth",
                 where=None if REPLAY_STAGE else stage_figure, height=None if REPLAY_STAGE else ui.stage_height())
        same = figures.coinciding(curves)
        (st if REPLAY_STAGE else under_stage).caption("Each estimator's w(x) on a grid of x" + (", the dotted black line the true ratio; below, each "
                   "estimator's squared error against the true ratio at the training points (mean-1 scale, 16 bins of "
                   "equal count along x): the lowest curve is the closest estimator, the mean of its curve its NMSE"
                   if true_curve is not None else "") + ". Where w(x) > 1 the test density is the larger one."
                   + "".join(f" The curves of {' and '.join(g)} coincide: only the last one drawn is visible."
                             for g in same))
    if on_points:
        ui.chart("weights on points", figures.weights_on_points, x, on_points, truth, key="weights.weights_on_points")
        st.caption("Estimators that only weight the training points themselves (KMM and its ensembles): one "
                   "marker per training point."
                   + "".join(f" {' and '.join(g)} coincide (the same weight on every training point): the "
                             f"markers of {' and '.join(g[1:])} lie on those of {g[0]}."
                             for g in figures.coinciding(on_points)))
    with st.container() if REPLAY_STAGE else stage_side:
        ui.claims("weights.curves")
else:
    left, right = st.columns(2)
    ui.chart("weight histogram", figures.weight_histogram, {n: o.model.weights_ for n, o in outcomes.items()}, key="weights.weight_histogram", where=left)
    left.caption("How the weights are spread; a long tail means a few points dominate the weighted fit.")
    first = next(iter(outcomes))
    ui.chart("input densities", figures.input_densities, data.X_tr, data.X_te, outcomes[first].model.weights_, key="weights.input_densities", where=right)
    right.caption(f"Dotted: the training density re-weighted by {first}; it should move onto the test density.")
    ui.claims("weights.curves")



def _weights_csv(X_tr, truth, weights):
    """The CSV of the download: one row per training point, its inputs, the true ratio and each estimator's weight."""
    table = np.column_stack([X_tr, truth if truth is not None else np.full(len(X_tr), np.nan)] + list(weights.values()))
    header = [f"x{i}" for i in range(X_tr.shape[1])] + ["true_ratio"] + list(weights)
    buffer = io.StringIO()
    np.savetxt(buffer, table, delimiter=",", header=",".join(header), comments="", fmt="%.6g")
    return buffer.getvalue()


# written when the button is pressed (a callable: Streamlit's deferred download), not on every run of the page
st.download_button("Download the weights (one row per training point) as CSV",
                   functools.partial(_weights_csv, data.X_tr, truth, {n: o.model.weights_ for n, o in outcomes.items()}),
                   file_name="covshift_weights.csv", mime="text/csv")

if shared and shared.cv_results is not None and "mean_log_likelihood" in shared.cv_results:
    with st.expander("KLIEP family: how sigma was chosen"):
        ui.chart("How sigma was chosen", figures.cv_curve, shared.cv_results, key="weights.cv.shared")
        st.caption("Held-out log-likelihood of the test points for each candidate sigma (mean and spread "
                   "over folds); the chosen sigma is marked.")

kliep_family = {n: o.model for n, o in outcomes.items() if n in catalog.KLIEP_FAMILY}
if kliep_family:
    st.subheader("Sparsity of alpha")
    ui.chart("alpha stems", figures.alpha_stems, {n: (m.center_index_, m.alpha_) for n, m in kliep_family.items()}, key="weights.alpha_stems")
    st.caption("One stem per Gaussian atom of the returned solution (alpha_l > 0 after the last iteration: the "
               "table's *atoms at end*, not its *atoms 1e-3*, which counts the atoms active when the gap first "
               "reached 1e-3): its height is the mixing coefficient alpha, its position the test point it is "
               "centred on. Fewer stems = a sparser, cheaper w(x).")

histories = {n: figures.convergence(o.model.history_) for n, o in outcomes.items() if n in catalog.FRANK_WOLFE
             and o.model.history_ is not None}  # the rows the figures draw (their cache hashes them on every run)
if histories:
    st.subheader("Frank-Wolfe: duality gap, active set, steps")
    if REPLAY_STAGE:  # the lesson's stage: the solvers' gaps or the replay, beside them the replay's solver and the axis
        name = ui.widget(side_control.selectbox, "Replay the steps of", "replay", list(histories),
                         on_change=_replay_chosen)
        REPLAY_ON_STAGE = ui.widget(side_control.radio, "On the stage", "weights_stage", ["gaps", "replay"],
                                    format_func=_STAGE_WORDS.get, horizontal=True) == "replay"
        axis = ui.widget(side_control.radio, "x axis of the gaps", "gap_axis", ["iteration", "seconds"],
                         horizontal=True)
        ui.chart("duality gaps", figures.duality_gaps, histories, axis, levels=lessons.EQUAL_GAPS,
                 key="weights.duality_gaps", where=under_stage if REPLAY_ON_STAGE else stage_figure,
                 height=None if REPLAY_ON_STAGE else ui.stage_height())
        ui.chart("active set sizes", figures.active_set_sizes, histories, key="weights.active_set_sizes")
    else:
        axis = ui.widget(st.radio, "x axis", "gap_axis", ["iteration", "seconds"], horizontal=True)
        left, right = st.columns(2)
        ui.chart("duality gaps", figures.duality_gaps, histories, axis, levels=lessons.EQUAL_GAPS,
                 key="weights.duality_gaps", where=left)
        ui.chart("active set sizes", figures.active_set_sizes, histories, key="weights.active_set_sizes", where=right)
    same = figures.coinciding({n: readings.relative_gaps(h) for n, h in histories.items()}, log=True)
    st.caption(("The lesson's figure (at the top): " if REPLAY_STAGE else "Left: ")
               + "the relative duality gap of every iterate (both axes logarithmic, so a 12-step run is as "
               "visible as a 2000-step one); open crosses mark drop steps (an atom leaves), open diamonds swap "
               f"steps; the dotted lines are the relative gaps {' and '.join(f'{g:g}' for g in lessons.EQUAL_GAPS)}, "
               f"and the ring on each curve with its count is the first iterate at gap {lessons.EQUAL_GAPS[0]:g} and "
               "its active atoms (sparsity at equal accuracy). "
               + ("Above: " if REPLAY_STAGE else "Right: ") + "how many atoms are active."
               + "".join(f" The gap curves of {' and '.join(g)} coincide." for g in same))
    with stage_side if REPLAY_STAGE else st.container():
        ui.claims("weights.gap")
    if "FCFWCS" in histories:
        ui.chart("inner iterations", figures.inner_iterations, {"FCFWCS": histories["FCFWCS"]}, key="weights.inner_iterations")
        st.caption("FCFWCS re-optimises all active atoms after each new one (corrective Newton steps): "
                   "more work per step, far fewer steps.")
    with st.expander("The maths"):
        st.markdown("KLIEP models the importance as a mixture of Gaussian atoms centred on test points and "
                    "maximises the test log-likelihood:")
        st.latex(r"\hat w(x) = \sum_{l=1}^{b} \alpha_l\, \kappa_l(x), \quad "
                 r"\kappa_l(x) = \exp\!\Big(-\frac{\lVert x - c_l \rVert^2}{2\sigma^2}\Big), \qquad "
                 r"\max_{\alpha \ge 0} F(\alpha) = \sum_{j=1}^{n_{te}} \log \hat w(x^{te}_j)"
                 r"\ \ \text{s.t.}\ \ \frac{1}{n_{tr}} \sum_{i=1}^{n_{tr}} \hat w(x^{tr}_i) = 1")
        st.latex(r"\alpha_l = \beta_l\, \mu_l, \quad \beta_l = \frac{n_{tr}}{\sum_i \kappa_l(x^{tr}_i)}, "
                 r"\quad \mu \in \Delta = \{\mu \ge 0, \textstyle\sum_l \mu_l = 1\}, \qquad "
                 r"\mathrm{gap}_t = \max_l \nabla F(\mu_t)_l - \langle \nabla F(\mu_t), \mu_t \rangle "
                 r"\ \ge\ F(\mu^*) - F(\mu_t)")
        st.markdown(
            "- $c_l$: the centre of atom $l$ (a test point); $b$ atoms in all; $\\sigma$: the kernel width.\n"
            "- $\\alpha_l$: mixing coefficient of atom $l$; $\\beta_l$ rescales it so that the constraint "
            "becomes the simplex $\\Delta$ of weights $\\mu$ that sum to one.\n"
            "- $\\nabla F(\\mu_t)$: the gradient at iterate $t$. A Frank-Wolfe step moves towards the atom "
            "with the largest gradient entry (FWCS), away from the worst active atom (AFWCS), from the worst to "
            "the best (PFWCS, pairwise), or re-optimises all active atoms (FCFWCS, fully corrective).\n"
            "- $\\mathrm{gap}_t$: the Frank-Wolfe duality gap; it bounds the distance to the optimum "
            "$F(\\mu^*)$, so a small gap *certifies* the solution. The table divides it by $|F|$.\n"
            "- A *drop* step removes an atom (its weight reaches 0); a *swap* step moves all of one atom's "
            "weight to another.")

    replay_place = (stage_figure if REPLAY_ON_STAGE else under_stage) if REPLAY_STAGE else st.container()
    if not REPLAY_ON_STAGE:  # on the stage the radio beside it says what it is: its buttons come first
        replay_place.subheader(f"Replay {name} step by step" if REPLAY_STAGE else "Replay a run step by step")
    if not REPLAY_STAGE:
        name = ui.widget(st.selectbox, "Solver", "replay", list(histories), on_change=_replay_chosen)
    replay = ui.guard("Replay", view.replay, name, ui.device()["presentation"])
    if replay is not None:
        document, height, meta = replay
        with replay_place:
            st.iframe(document, height="content")  # sized to the replay (st.components.v1.html's successor)
        where = ("The grey stems stand at their centres' x with height alpha_l (right axis); the pink curve "
                 "is w_t(x) after the step, the faint one w_(t-1)(x) before it, the dashed line the true "
                 "ratio.") if meta["one_d"] else \
            ("The inputs have more than one dimension, so there is no curve to draw: the x axis is the index "
             "j of the test point x_te_j that serves as the atom's centre, and each stem's height is alpha_l.")
        (under_stage if REPLAY_ON_STAGE else replay_place).caption(
            f"Every one of the {meta['steps']} steps of {name}, in your browser: Step and Back move one iteration, "
            "the slider any number, Play runs at the chosen steps per second (Pause stops it), Next ... step jumps "
            f"to the next step of that kind. {where} {_REPLAY_MARKS.get(name, '')}"
            + " Below, the cursor shows iteration t on the relative duality gap and on the size of the active "
            "set. The iteration shown is in the page's address (step): a copied link opens the replay there.")
        with st.expander("Glossary: the kinds of Frank-Wolfe step"):
            st.markdown(
                "**Glossary** (the paper's names: Frank-Wolfe covariate shift, section III-B):\n"
                "- **towards step** (direction $d_t^{FW}$): move weight $\\rho \\in [0, 1]$ onto the Frank-Wolfe "
                "vertex $l_t^{FW}$, the atom with the largest gradient entry; all other weights shrink by $1-\\rho$.\n"
                "- **away step** ($d_t^{AFW}$, AFWCS): take weight from the away vertex $l_t^{AFW}$, the active atom "
                "with the smallest gradient entry, and grow the others by $1+\\rho$, up to "
                "$\\rho_{max} = \\mu_t(l^{AFW}) / (1 - \\mu_t(l^{AFW}))$.\n"
                "- **pairwise step** (PFWCS): move weight $\\rho \\le \\rho_{max} = \\mu_t(l^{AFW})$ from "
                "$l_t^{AFW}$ straight to $l_t^{FW}$; only these two atoms change.\n"
                "- **drop step**: the step size reached its bound $\\rho_{max} < 1$, so the away atom's weight "
                "became 0 and it left the active set $S_t$ ($|S_{t+1}| = |S_t| - 1$).\n"
                "- **swap step** (PFWCS): the bound was reached and $l_t^{FW}$ was not active: the away atom "
                "left and $l_t^{FW}$ entered, $|S_{t+1}| = |S_t|$.\n"
                "- **good step**: neither a drop nor a swap step (the line search stopped before the bound, or the "
                "bound was 1). The paper's linear convergence rate counts good steps only (a drop step \"cannot "
                "guarantee a decrease of the duality gap\", appendix B.2).\n"
                "- **fully-corrective step** (FCFWCS): after adding $l_t^{FW}$, all active weights are re-optimised "
                "by Newton steps on the face; atoms that reach 0 leave (a drop).")
