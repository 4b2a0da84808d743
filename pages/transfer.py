import pandas as pd
import streamlit as st

from teaching import ui
from teaching import figures, fits

ui.through_app()
st.title("Domain transfer")
st.markdown(
    "A model trained on one **source** domain often fails on a **target** domain whose inputs "
    "look different, and the target has only a few labels. Domain transfer structured output "
    "learning (Wang) keeps the source model's scores f_S(x, y) and learns only a small **delta "
    "function** w'Ψ(x, y) from the l labelled target examples: f_T(x, y) = f_S(x, y) + w'Ψ(x, y). "
    "Here the source is scikit-learn's 8x8 digits and the target is other digits redrawn with "
    "thicker strokes, a rotation, a blur or inverted contrast.")


c1, c2, c3, c4 = st.columns(4)
with c1:
    task = ui.widget(st.radio, "Task", "dt_task", fits.transfer.TRANSFER_TASKS, horizontal=True,
                     help="multiclass: the digit 0-9 (0/1 loss). multilabel: four yes/no attributes "
                          "(Hamming loss).")
with c2:
    ui.widget(st.selectbox, "Target transformation", "dt_shift", fits.transfer.TRANSFER_SHIFTS)
with c3:
    ui.widget(st.slider, "l: labelled target examples", "dt_l", 1, fits.transfer.TRANSFER_MAX_LABELLED)
with c4:
    ui.widget(st.select_slider, "C of the delta function", "dt_C",
                  help="Large C follows the l target labels closely; C -> 0 keeps the source model. "
                       "auto: chosen by cross-validation on the l labels, C = 0 (the source model) "
                       "among the choices.")
ui.widget(st.select_slider, "epsilon (cutting-plane stopping threshold)", "dt_epsilon")
view = ui.view()  # the task, its data and fits of the dt_* settings (view.domain_transfer)
n_labelled, epsilon = view.domain_transfer.n_labelled, view.domain_transfer.epsilon
if task == "multilabel":
    st.caption("Multi-label outputs are four 0/1 digits, in this order: even, greater than 4, has a closed "
               "loop (0, 6, 8, 9), prime. So 8 is 1110 and 7 is 0101.")

# ----------------------------------------------------------------- stored curves
st.subheader("How many target labels does transfer need?")
curves = fits.transfer.transfer_stored_curves()
if curves is None:
    st.info("No stored results yet: run `python bench/transfer.py` to write assets/transfer_curves.json.")
else:
    left, right = st.columns([3, 2])
    left.plotly_chart(ui.figure(figures.transfer_curves, curves[task], **ui.device()), width="stretch", theme=None,
                      config=ui.chart_config())
    left.caption(
        f"Stored results of bench/transfer.py ({curves['settings']['shift']} shift, C = {curves['settings']['C']:g} "
        f"for the three plain SVMs, C = {curves['settings'].get('C_domain_transfer', 'auto')} for domain transfer, "
        f"{curves[task]['n_seeds']} seeds; bars are ± one standard deviation). They do not change with the "
        "settings above: recomputing them takes minutes.")
    right.markdown(
        "**Source only** ignores the target labels. **Target only** trains from scratch on the l "
        "examples and has too little data. **Pooled** trains on the source plus the l examples, "
        "which barely move a model fitted to ~900 source digits. **Domain transfer** starts from the "
        "source scores and corrects them where the target labels disagree: the delta function "
        "w'Ψ(x, y) only has to learn the *difference* between the domains.")
    mild = curves.get("mild_shift", {}).get(task)
    if mild is not None and "10" in mild.get("domain transfer at fixed C", {}):
        source_mild, transfer_mild = mild["methods"]["source only"]["mean"], mild["methods"]["domain transfer"]["mean"]
        fixed_mild = mild["domain transfer at fixed C"]["10"]
        right.markdown(
            f"**Where a fixed C hurts.** Under a milder shift ({curves['mild_shift']['shift']}) the source model "
            f"still scores {source_mild[0]:.2f}, and a delta with C = 10 *hurts*: {fixed_mild[0]:.2f} with "
            f"l = {mild['l'][0]}, {fixed_mild[-1]:.2f} with l = {mild['l'][-1]}. A few labels pull the "
            "scores of their own classes up for every input. So C is chosen from the labels (C = auto): "
            "cross-validation keeps the source model (C = 0) unless a delta clearly helps on held-out "
            f"labels, and domain transfer scores {transfer_mild[0]:.2f} and {transfer_mild[-1]:.2f} there; "
            "try the blur transformation above with C = 10 and with auto.")

# ----------------------------------------------------------------- live fit
st.subheader(f"Source model vs domain transfer with l = {n_labelled}")
with st.spinner("Fitting the source model (once per task and shift)..."):
    source = ui.guard("Source model", view.transfer_source)
with st.spinner("Learning the delta function..."):
    outcome = ui.guard("Domain transfer", view.transfer) if source is not None else None
if outcome is None:
    st.stop()
ui.show_warnings("Source model", source.warnings)
ui.show_warnings("Domain transfer", outcome.warnings)
fit = outcome.model
model = fit["model"]
data = view.transfer_data()
multiclass = task == "multiclass"
score_name = "target accuracy" if multiclass else "target Hamming loss"
source_value = fit["source_score"] if multiclass else 1 - fit["source_score"]
transfer_value = fit["transfer_score"] if multiclass else 1 - fit["transfer_score"]
explain = (f"{score_name} on {len(data.y_test)} held-out target digits "
           f"({'higher' if multiclass else 'lower'} is better)")
m1, m2, m3, m4 = st.columns(4)
m1.metric("source only", f"{source_value:.3f}", help=explain)
m2.metric("domain transfer", f"{transfer_value:.3f}", delta=f"{transfer_value - source_value:+.3f}",
          delta_color="normal" if multiclass else "inverse", help=explain)
m3.metric("cutting-plane iterations", model.n_iter_)
m4.metric("fit seconds (delta only)", f"{outcome.seconds:.2f}")

truth = fits.transfer.transfer_output_labels(task, data.y_test)
predictions = {"source only": fits.transfer.transfer_output_labels(task, fit["source_pred"]),
               "transfer": fits.transfer.transfer_output_labels(task, fit["transfer_pred"])}
st.plotly_chart(ui.figure(figures.transfer_digit_grid, data.images_test, truth, predictions, **ui.device()),
                width="stretch", theme=None, config=ui.chart_config())
st.caption("The first 16 target test digits (never used for training), with the source model's (S) and "
           "the transfer model's (T) predictions; mistakes are orange with ✗. "
           f"The delta function was learned from l = {n_labelled} other target digits drawn with seed {view.seed} "
           "(change the seed in the sidebar to draw others). The source model is fixed: only the "
           f"{model.coef_.size} weights of w were learned; with C -> 0 the transfer model is the source model.")

left, right = st.columns([3, 2])
left.plotly_chart(ui.figure(figures.cutting_plane_progress, model.history_, epsilon, **ui.device()),
                  width="stretch", theme=None, config=ui.chart_config())
left.caption("Each iteration adds the most violated constraint to the working set W and re-solves the QP over "
             "W; the algorithm stops once no constraint is violated by more than epsilon.")
if model.n_folds_:
    scores = ", ".join(f"{s:.2f}" for s in model.cv_scores_)
    grid = ", ".join(f"{c:g}" for c in model.C_grid_)
    chosen = (f"C = **{model.C_:g}**, chosen by {model.n_folds_}-fold cross-validation on the l labels "
              f"(held-out {'accuracy' if multiclass else '1 - Hamming loss'} {scores} for C = {grid}; "
              "C = 0 is the source model, kept unless a larger C beats it by more than a standard error). ")
else:
    chosen = f"C = **{model.C_:g}**. "
right.markdown(
    chosen + f"Converged: **{model.converged_}** after {model.n_iter_} iterations with {model.working_set_size_} "
    f"constraints; final violation {model.violation_:.2e}, objective ½‖w‖² + Cξ = {model.objective_:.4f}, "
    f"slack ξ = {model.slack_:.4f}.")
ui.show_table(pd.DataFrame({"iteration": range(1, model.n_iter_ + 1), "violation": model.history_.violation,
                            "working-set size": model.history_.working_set_size,
                            "QP objective": model.history_.objective}).tail(5), "iteration",
              formats={"violation": ".2e", "working-set size": ".0f", "QP objective": ".4f"})

with st.expander("The maths"):
    st.markdown(
        "**Symbols.** x ∈ ℝ^d is an input image (64 pixels), y ∈ 𝒴 an output (a digit 0-9, or a "
        "vector of four 0/1 attributes). f_S(x, y) is the source model's score of output y for input x; "
        "the prediction is the highest-scoring y. Ψ(x, y) ∈ ℝ^m is the joint feature map: for the digit "
        "it is φ(x) ⊗ e_y (the pixels and a constant 1, copied into the block of class y), for the "
        "attributes φ(x) ⊗ y. w ∈ ℝ^m are the delta weights, (x_i, y_i), i = 1..l the labelled target "
        "examples, L(y, y') the loss (0/1 for digits, the fraction of wrong attributes for the "
        "multi-label task), C > 0 the trade-off, ξ ≥ 0 the slack and ε the stopping threshold.")
    st.latex(r"f_T(x, y) = f_S(x, y) + w^\top \Psi(x, y) \qquad \text{(eq. 1)}")
    st.latex(r"\min_{w,\ \xi \ge 0}\ \tfrac12\|w\|_2^2 + C\xi \quad \text{s.t.}\ \forall\,\bar{\mathbf y}"
             r"\in\mathcal Y^l:\ \frac1l\sum_{i=1}^l \big[f_T(x_i, y_i) - f_T(x_i, \bar y_i)\big] \ \ge\ "
             r"\frac1l\sum_{i=1}^l L(y_i, \bar y_i) - \xi \qquad \text{(eq. 2)}")
    st.markdown(
        "There is one constraint per combination ȳ = (ȳ_1, ..., ȳ_l) of wrong outputs: 10^l for digits. "
        "Algorithm 1 never lists them. It keeps a working set W, solves the QP (eq. 5, through its dual "
        "eqs. 3-4: w = Σ_k α_k g_k with g_k = (1/l) Σ_i [Ψ(x_i, y_i) − Ψ(x_i, ȳ_i^k)], "
        "α_k ≥ 0, Σ_k α_k ≤ C) "
        "and then finds the most violated constraint by loss-augmented inference for each example:")
    st.latex(r"\bar y_i = \arg\max_{\tilde y\in\mathcal Y}\ L(y_i, \tilde y) + f_S(x_i, \tilde y) + "
             r"w^\top\Psi(x_i, \tilde y) \qquad \text{(eq. 6)}")
    st.markdown(
        "It stops when that constraint is violated by at most ε. (The paper prints a minus sign before "
        "f_S + w'Ψ in eq. 6; the most violated constraint needs a plus: a wrong output with a high loss "
        "*and* a high score.) For the attributes both L and the score are sums over the four labels, so "
        "the argmax is taken label by label.")
