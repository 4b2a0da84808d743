import numpy as np
import pandas as pd
import streamlit as st

import ui
from covshift import catalog, metrics, plots

st.title("Structured regression")
st.markdown(
    "Gaussian process regression predicts each output separately. **Twin GPs** predict all "
    "outputs together by making the GP over outputs agree with the GP over inputs (KL, the "
    "SMTGP paper's eq. 7 \"inverse KL\", which is not the exact inverse KL, or Sharma-Mittal "
    "divergence). The **IW-** models weight each training point by its "
    "importance: a point of weight w behaves as if its noise were lambda / w. SMTGP predictions "
    "come with a **certainty** phi in (0, 1] (SMTGP paper eq. 17); the papers report that it "
    "correlates negatively with the error. For KLTGP and IKLTGP the certainty shown is this "
    "app's analogue (agreement of the input and output predictive variances), not a paper quantity.")

data = ui.current_data()
if data is None:
    st.stop()

c1, c2 = st.columns([3, 2])
with c1:
    models = ui.widget(st.multiselect, "Models", "models", list(catalog.REGRESSORS),
                       format_func=catalog.model_label)
with c2:
    ui.widget(st.selectbox, "Weights for the IW- models", "weights_for_models", catalog.WEIGHT_ESTIMATORS)
with st.expander("Hyper-parameters (kernels exp(-||a-b||^2 / (2 rho^2)) + lambda on the diagonal)"):
    paper = catalog.paper_tgp_defaults(ui.data_name())
    if paper:
        st.button("Use the paper's values for this data set", key="paper_values", on_click=ui.apply,
                  args=(paper,))
    h1, h2, h3 = st.columns(3)
    with h1:
        ui.widget(st.slider, "theta (SM order)", "theta")  # ranges from covshift.settings
        ui.widget(st.slider, "gamma (SM degree)", "gamma")
    with h2:
        ui.widget(st.number_input, "rho_x (input width)", "rho_x", format="%.4f")
        ui.widget(st.number_input, "rho_y (output width)", "rho_y", format="%.4f")
    with h3:
        ui.widget(st.number_input, "lambda_x", "lambda_x", format="%.2e")
        ui.widget(st.number_input, "lambda_y", "lambda_y", format="%.2e")
if not models:
    st.info("Choose at least one model.")
    st.stop()

results = ui.run_each(models, ui.prediction, "Fitting the models", "Predictions ready")
if not results:
    st.stop()

Y = data.Y_te
rows, errors = [], {}
for name, outcome in results.items():
    pred = outcome.model["mean"]
    errors[name] = metrics.euclidean_errors(Y, pred)
    rows.append({"model": name, "MAE": metrics.mae(Y, pred), "RMSE": float(np.mean(metrics.rmse(Y, pred))),
                 "R^2": float(np.mean(metrics.r2(Y, pred))), "mean Euclidean error": float(errors[name].mean()),
                 "seconds": outcome.seconds})
table = pd.DataFrame(rows).set_index("model")
best = ui.quiet(table["mean Euclidean error"].idxmin)  # None when no model gave finite errors
table["paired t-test vs best (p)"] = [ui.quiet(lambda: metrics.paired_ttest(errors[n], errors[best])[1])
                                      if n != best else None
                                      for n in table.index]
st.dataframe(table, width="stretch")
st.caption(f"Lowest error: {best}. A small p-value says the difference to it is unlikely to be chance.")

fits = {n: o.model for n, o in results.items()}
if data.X_te.shape[1] == 1:
    output = 0
    if Y.shape[1] > 1:
        output = ui.widget(st.selectbox, "Output to plot", "plot_output", list(range(Y.shape[1])))
    st.plotly_chart(plots.regression_fits(data.X_te[:, 0], Y, fits, output), width="stretch")
if Y.shape[1] > 1 and Y.shape[1] != 16:
    st.plotly_chart(plots.predicted_vs_true(Y, {n: f["mean"] for n, f in fits.items()}), width="stretch")
if Y.shape[1] == 16 and data.X_te.shape[1] == 48:
    st.plotly_chart(plots.digits_grid(data.X_te, Y, {n: f["mean"] for n, f in fits.items()}),
                    width="stretch")

with_certainty = {n: f for n, f in fits.items() if f["certainty"] is not None}
if with_certainty:
    st.subheader("Certainty and error")
    cols = st.columns(min(len(with_certainty), 3))
    for i, (name, fit) in enumerate(with_certainty.items()):
        r_p = ui.quiet(metrics.certainty_error_correlation, fit["certainty"], errors[name])
        ui.chart(f"{name}: certainty and error", plots.error_vs_certainty, errors[name], fit["certainty"], name,
                 key=f"regression.certainty.{name}", where=cols[i % len(cols)])
        cols[i % len(cols)].caption(f"Pearson r = {r_p[0]:.2f} (p = {r_p[1]:.2g})" if r_p else
                                    "Pearson r needs at least 3 test points with finite values.")

st.subheader("A few target labels")
if ui.widget(st.toggle, "Compare no adaptation, importance weighting and delta adaptation", "few_labels"):
    n_labels = ui.widget(st.slider, "labelled test points", "n_labels")
    weights = ui.guard("Weights", ui.weights, ui.get("weights_for_models"))
    if weights is not None:
        outcome = ui.guard("Few labels", catalog.few_labels_comparison, data, weights.model.weights_,
                           n_labels=n_labels, seed=int(ui.get("seed")), rho_x=float(ui.get("rho_x")),
                           lambda_x=float(ui.get("lambda_x")))
        if outcome is not None:
            X_eval, Y_eval, preds = outcome
            st.dataframe(pd.DataFrame({"MAE": {n: metrics.mae(Y_eval, p) for n, p in preds.items()}}),
                         width="stretch")
            if X_eval.shape[1] == 1:
                st.plotly_chart(plots.regression_fits(X_eval[:, 0], Y_eval, {n: {"mean": p} for n, p in preds.items()}),
                                width="stretch")
