import numpy as np
import pandas as pd
import streamlit as st

import ui
from covshift import catalog, metrics, plots

st.title("Importance weights")
st.markdown(
    "Each estimator learns w(x) = p_te(x) / p_tr(x) from the inputs alone. KLIEP maximises the "
    "test log-likelihood of p_te = w p_tr; its Frank-Wolfe solvers add one Gaussian atom per "
    "step, so their mixing coefficients alpha stay sparse, and the **duality gap** certifies how "
    "far from the optimum they are. **FCFWCS** (fully corrective) is the fast exact choice.")

data = ui.current_data()
if data is None:
    st.stop()

c1, c2, c3 = st.columns([3, 1, 1])
with c1:
    chosen = ui.widget(st.multiselect, "Estimators", "estimators", catalog.WEIGHT_ESTIMATORS)
with c2:
    mode = ui.widget(st.radio, "Kernel width sigma", "sigma_mode", ["auto", "manual"],
                     help="auto: likelihood cross-validation (KLIEP family), median heuristic (KMM), "
                          "their own CV (RuLSIF).")
with c3:
    if mode == "manual":
        ui.widget(st.slider, "sigma", "sigma")
if not chosen:
    st.info("Choose at least one estimator.")
    st.stop()

outcomes = ui.run_each(chosen, ui.weights, "Estimating the weights", "Weights ready")
if not outcomes:
    st.stop()

shared = ui.shared_sigma() if set(outcomes) & catalog.KLIEP_FAMILY else None
truth = data.true_weights
rows = []
for name, outcome in outcomes.items():
    est, w = outcome.model, outcome.model.weights_
    rows.append({
        "estimator": name,
        "choose sigma (s)": shared.seconds if shared and name in catalog.KLIEP_FAMILY else None,
        "solve (s)": outcome.seconds, "iterations": getattr(est, "n_iter_", None),
        "non-zeros": int(np.count_nonzero(est.alpha_)) if hasattr(est, "alpha_") else None,
        "objective": getattr(est, "objective_", None), "ESS": ui.quiet(metrics.effective_sample_size, w),
        "max weight": ui.quiet(metrics.max_weight, w),
        "NMSE": ui.quiet(metrics.normalized_mse, w, truth) if truth is not None else None,
        "sigma": getattr(est, "sigma_", None)})
st.dataframe(pd.DataFrame(rows).set_index("estimator"), width="stretch",
             column_config={"NMSE": st.column_config.NumberColumn(format="%.2e"),
                            "objective": st.column_config.NumberColumn(format="%.4f"),
                            "choose sigma (s)": st.column_config.NumberColumn(format="%.3f"),
                            "solve (s)": st.column_config.NumberColumn(format="%.3f")})
if shared:
    st.caption(f"sigma = {shared.sigma:.3g} chosen by {shared.rule_label} for all KLIEP-family solvers"
               + (f" (once, {shared.seconds:.2f} s)." if shared.rule != "manual" else "."))
    ui.show_warnings("sigma", shared.warnings)

if data.X_tr.shape[1] == 1:
    x = data.X_tr[:, 0]
    grid = np.linspace(min(x.min(), data.X_te.min()), max(x.max(), data.X_te.max()), 300)
    curves, on_points = {}, {}
    for name, outcome in outcomes.items():
        try:
            curves[name] = outcome.model.predict_weights(grid[:, None])
        except NotImplementedError:
            on_points[name] = outcome.model.weights_
    true_curve = data.density_ratio(grid[:, None]) if data.density_ratio is not None else None
    if curves:
        st.plotly_chart(plots.weights_vs_truth(grid, curves, true_curve), width="stretch")
    if on_points:
        st.plotly_chart(plots.weights_on_points(x, on_points, truth), width="stretch")
else:
    left, right = st.columns(2)
    left.plotly_chart(plots.weight_histogram({n: o.model.weights_ for n, o in outcomes.items()}),
                      width="stretch")
    first = next(iter(outcomes))
    ui.chart("Input densities", plots.input_densities, data.X_tr, data.X_te, outcomes[first].model.weights_,
             key="weights.densities", where=right)
    right.caption(f"Dashed: the training density re-weighted by {first}; it should move onto the test density.")

if shared and shared.cv_results is not None and "mean_log_likelihood" in shared.cv_results:
    with st.expander("KLIEP family: how sigma was chosen"):
        ui.chart("How sigma was chosen", plots.cv_curve, shared.cv_results, key="weights.cv.shared")

kliep_family = {n: o.model for n, o in outcomes.items() if n in catalog.KLIEP_FAMILY}
if kliep_family:
    st.subheader("Sparsity of alpha")
    st.plotly_chart(plots.alpha_stems({n: (m.center_index_, m.alpha_) for n, m in kliep_family.items()}),
                    width="stretch")

histories = {n: o.model.history_ for n, o in outcomes.items() if n in catalog.FRANK_WOLFE
             and o.model.history_ is not None}
if histories:
    st.subheader("Frank-Wolfe: duality gap, active set, steps")
    axis = ui.widget(st.radio, "x axis", "gap_axis", ["iteration", "seconds"], horizontal=True)
    left, right = st.columns(2)
    left.plotly_chart(plots.duality_gaps(histories, axis), width="stretch")
    right.plotly_chart(plots.active_set_sizes(histories), width="stretch")
    if "FCFWCS" in histories:
        st.plotly_chart(plots.inner_iterations({"FCFWCS": histories["FCFWCS"]}), width="stretch")

    st.subheader("Replay a run step by step")
    name = ui.widget(st.selectbox, "Solver", "replay", list(histories))
    replay = ui.guard("Replay", ui.replay_figure, ui.data_spec(), name, ui.sigma_setting())
    if replay is not None:
        figure, n_frames, one_d = replay
        st.plotly_chart(figure, width="stretch", key="weights.replay")
        rows = len(histories[name])
        shown = "every iteration" if n_frames == rows else \
            f"{n_frames} of the {rows} iterations, evenly spaced (first and last included)"
        where = ("Each grey stem stands at its centre's x with height alpha_l; the pink curve is the "
                 "current w_t(x) and the dashed line the true ratio.") if one_d else \
            ("The x axis is the index j of the test point x_te_j that serves as the centre (the inputs "
             "have more than one dimension); each stem's height is alpha_l.")
        st.caption(f"Play, Pause, Back, Step and the slider run in your browser; the frames show {shown}. "
                   f"{where} A green triangle marks an atom that entered in the step that led to this "
                   "iterate, a red x one that left (at its last alpha). The text in the chart describes "
                   "the iterate drawn: t, its active atoms, objective F and duality gap.")
