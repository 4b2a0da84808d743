import functools
import io

import numpy as np
import streamlit as st

from teaching import ui
from teaching.readings import metrics
from teaching import catalog, figures, lessons, readings, report


def _interval(r, n):
    """A correlation's 95 % interval as "[low, high]" (Fisher's z), or "" for fewer than 4 points."""
    if n < 4:
        return ""
    low, high = metrics.correlation_interval(r, n)
    return f"[{low:.2f}, {high:.2f}]"


def _close_lines(preds, top, under):
    """A caption's sentence when line ``top`` runs within 5 % of the plotted range of line ``under`` on
    average (on screen: one on the other), with their mean distance, so that neither is taken for missing."""
    if top not in preds or under not in preds:
        return ""
    span = max(float(np.ptp(p)) for p in preds.values()) or 1.0
    distance = float(np.mean(np.abs(np.asarray(preds[top]) - np.asarray(preds[under]))))
    if distance > 0.05 * span:
        return ""
    return (f" The {top} line (dotted, drawn on top) runs close to the {under} line: their predictions differ "
            f"by {distance:.3f} on average, {100 * distance / span:.0f} % of the plotted range.")


def _true_ratio(data):
    """(grid, true w(x) on it) of 1-D data whose ratio is known (the figure shades where w > 1 and w < 1), or None."""
    if data.density_ratio is None or data.X_te.shape[1] != 1:
        return None
    x = np.concatenate([data.X_tr[:, 0], data.X_te[:, 0]])
    grid = np.linspace(x.min(), x.max(), 400)
    return grid, data.density_ratio(grid[:, None])


def _output_title(k, n_outputs):
    """An output's name for people: "y" for the only one, else "output 1", "output 2", ... (never "y0")."""
    return "y" if n_outputs == 1 else f"output {k + 1}"


ui.through_app()
st.title("Structured regression")
ui.ask_the_class("pages/regression.py", beside=ui.lesson_banner("pages/regression.py"))
INTRO = (
    "**Gaussian process regression (GPR)** predicts each output separately. **Twin GPs** predict all outputs "
    "together: they choose the output whose similarities to the training outputs best match the input's "
    "similarities to the training inputs (KL divergence: KLTGP; the SMTGP paper's eq. 7 \"inverse KL\", which is "
    "not the exact inverse KL: IKLTGP; Sharma-Mittal divergence: SMTGP). The **IW-** models weight each training "
    "point by its importance $w(x)$. SMTGP predictions come with a **certainty** $\\phi \\in (0, 1]$ (SMTGP "
    "paper eq. 17); for KLTGP and IKLTGP the certainty shown is this app's analogue, not a paper quantity.")

view = ui.view()
data = ui.current_data(view)
if data is None:
    st.stop()

# The stage (first screen): the lesson's figure, beside it the control it is about (rho_x; the labels of the
# few-labels lesson) and its claims; the models, the table, the other figures and the maths below.
FEW_STAGE = ui.stage_lesson("pages/regression.py") is lessons.FEW_LABELS and bool(ui.get("few_labels"))
stage_figure, stage_side = st.container(key="stage").columns([3, 2])
side_control = stage_side.container()
ui.lesson_summary("pages/regression.py")
with st.expander("What the models do", expanded=ui.active_lesson("pages/regression.py") is None):
    st.markdown(INTRO)
c1, c2 = st.columns([3, 2])
with c1:
    models = ui.widget(st.multiselect, "Models", "models", list(catalog.REGRESSORS),
                       format_func=catalog.model_label, wrap=True)
with c2:
    ui.widget(st.selectbox, "Weights for the IW- models", "weights_for_models", catalog.WEIGHT_ESTIMATORS,
              help="The importance-weight estimator whose weights the IW- models use (its sigma rule is set on "
                   "the Importance weights page).")
with st.expander("Hyper-parameters (kernels exp(-||a-b||^2 / (2 rho^2)) with lambda added on the diagonal)"):
    paper = catalog.paper_tgp_defaults(ui.data_name())
    if paper:
        st.button("Use the paper's values for this data set", key="paper_values", on_click=ui.apply,
                  args=(paper,))
    auto = ui.get("source") == "csv" and ui.widget(
        st.radio, "Widths and regularisers for your data", "csv_hyper", horizontal=True,
        format_func={"auto": "chosen from the data", "manual": "as set below"}.get,
        help="Chosen from the data: rho_x, lambda_x, rho_y and lambda_y follow the scale of your file "
             "(the values used are listed below the fields).") == "auto"
    h1, h2, h3 = st.columns(3)
    with h1:
        ui.widget(st.slider, "theta (Sharma-Mittal order)", "theta",
                  help="SMTGP only: theta -> 1 approaches the KL divergence (KLTGP).")
        ui.widget(st.slider, "gamma (Sharma-Mittal degree)", "gamma",
                  help="SMTGP only: gamma -> theta gives the Renyi divergence, gamma -> 1 the Tsallis one.")
    used = ui.quiet(view.model_hyper) if ui.get("source") == "csv" else None  # None: too few rows with outputs
    fields = {"rho_x": ("Input width", "%.3g", "Input kernel width (ρ_x in the maths): small = flexible, large = "
                                               "smooth."),
              "rho_y": ("Output width", "%.3g", "Output kernel width of the Twin GPs (ρ_y in the maths)."),
              "lambda_x": ("Input regulariser", "%.2e",
                           "Noise variance added to the input kernel, GPR and Twin GPs (λ_x in the maths)."),
              "lambda_y": ("Output regulariser", "%.2e", "Regulariser of the Twin GPs' output kernel (λ_y in the "
                                                         "maths).")}
    for column, names in [(h2, ["rho_y"]), (h3, ["lambda_x", "lambda_y"])]:
        with column:
            for name in names:
                label, number_format, tip = fields[name]
                if auto and used:  # the values used, where the fields would be (the fields keep the manual values)
                    st.markdown(f"{label}: **{used[0][name]:.3g}**", help=tip + " Chosen from the data.")
                else:
                    ui.widget(st.number_input, label, name, format=number_format, help=tip)
    if used:
        st.caption(report.scale_sentence(*used, auto))
    ui.widget(st.radio, "Twin-GP start", "tgp_start", horizontal=True,
              format_func={"linear": "linear least squares (original TGP code; SMTGP from KLTGP)",
                           "ridge": "kernel ridge"}.get,
              help="The Twin-GP costs have several local minima at every test point; the prediction is "
                   "the one reached from this start.")
with side_control:  # the input width, the setting the IW-SMTGP lesson is about, on the stage
    label, number_format, tip = fields["rho_x"]
    if auto and used:
        st.markdown(f"{label}: **{used[0]['rho_x']:.3g}**", help=tip + " Chosen from the data.")
    else:
        ui.widget(st.number_input, label, "rho_x", format=number_format, help=tip)
if not models:
    st.info("Choose at least one model.")
    st.stop()

LESSON = ui.active_lesson("pages/regression.py")
# On a lesson's page its claims say how many Twin-GP points stopped at the step limit (no warning box there).
results = ui.run_each(models, view.prediction, "Fitting the models", "Predictions ready",
                      hide=lambda name, message: LESSON is not None and "did not converge" in message)
if not results:
    st.stop()
if LESSON is None and any("did not converge" in message for outcome in results.values() for message in outcome.warnings):
    st.caption("Why some test points did not converge: a Twin GP minimises its cost for every test point with "
               "at most 50 quasi-Newton (BFGS) steps from its start. Points that have not met the stopping "
               "tolerance by then keep their last iterate (the line search accepts only steps that lower the cost) "
               "but it is not certified as a minimum; their errors are counted like the others.")

Y = data.Y_te
scored = data.labelled_te  # test rows with outputs (an uploaded file may have none): only they are scored
if scored.sum() < 2:
    st.info(f"Only {int(scored.sum())} of {len(scored)} test rows have outputs: the models are fitted on the "
            "training rows with outputs, but their test errors cannot be measured. **Check your data** says what "
            "can be said without test outputs: the shift, the weights and cross-validated errors.",
            icon=":material/table_rows:")
    st.page_link("pages/check.py", label="Check your data", icon=":material/troubleshoot:")
    st.stop()
if not scored.all():
    st.info(f"Outputs known on {int(scored.sum())} of {len(scored)} test rows: the errors below are over those rows "
            "only; the others are predicted, not scored.", icon=":material/table_rows:")
rows, errors, best = ui.of_view(readings.regression_table, view, tuple(results))  # best None: no finite errors
ui.show_table(rows, "model", formats={"MAE": ".4f", "RMSE": ".4f", "R^2": ".3f", "mean Euclidean error": ".4f",
                                      "seconds": ".2f"},
              help={"MAE": "Mean absolute error over all test points and outputs.",
                    "RMSE": "Root mean squared error, averaged over the outputs.",
                    "R^2": "Coefficient of determination: 1 is perfect, 0 is no better than the mean, < 0 is worse.",
                    "mean Euclidean error": "Mean over test points of ||prediction - truth|| over all outputs.",
                    "p-value vs best": "Paired t-test of this model's per-point errors against the best model's: "
                                       "a small p-value says the difference is unlikely to be chance.",
                    "seconds": "Wall time of fit and prediction (an SMTGP from the linear start includes the "
                                 "time of its KLTGP start, computed inside its own fit)."})
finite_rmse = [row for row in rows if np.isfinite(row["RMSE"])]
best_rmse = min(finite_rmse, key=lambda row: row["RMSE"])["model"] if finite_rmse else None
st.caption(f"Lowest mean Euclidean error: **{best}**. The p-values compare each model with it, point by point."
           + (f" **{best_rmse}** has the lowest RMSE: RMSE and R^2 square each point's error, so a few large "
              "errors (e.g. a Twin GP that follows the wrong branch at some test points) weigh more there than "
              "in the mean errors, and the rankings can differ." if best_rmse not in (None, best) else ""))
if any(catalog.REGRESSORS.get(n) is not None and "TGP" in n for n in results):
    st.caption("A Twin GP predicts the local minimum of its cost reached from its start (*Twin-GP start* under "
               "Hyper-parameters). The lessons on the papers' data use the papers' start, linear least squares; "
               "this view starts from kernel ridge by default, because from the linear start a Twin GP stays on a "
               "wrong branch where the data are far from linear, as on Sinc.")
negative = [row for row in rows if np.isfinite(row["R^2"]) and row["R^2"] < 0]
if negative:
    st.warning("Worse than predicting the mean of the test outputs (R^2 < 0): "
               + ", ".join(f"{row['model']} (R^2 = {row['R^2']:.2f})" for row in negative)
               + ". The model's widths do not suit the data's scale: " + (
                   "keep *Standardise the inputs and outputs* on (Data & shift) and the widths *chosen from the "
                   "data* under Hyper-parameters, or " if ui.get("source") == "csv" else "")
               + "try other input widths and regularisers under Hyper-parameters.", icon=":material/warning:")
few = report.small_sample_warning(len(data.X_tr))
if few:
    st.warning(few, icon=":material/warning:")
with st.container() if FEW_STAGE else stage_side:
    ui.claims("regression.table")

fits = {n: o.model for n, o in results.items()}
if data.X_te.shape[1] == 1:
    output = 0
    if Y.shape[1] > 1:
        output = ui.widget(st.selectbox if FEW_STAGE else side_control.selectbox, "Output to plot", "plot_output",
                           list(range(Y.shape[1])), format_func=lambda k: f"output {k + 1}")
    ui.chart("regression fits", figures.regression_fits, data.X_te[:, 0], Y, fits, output,
             train=(data.X_tr[:, 0], data.Y_tr[:, output]), ratio=_true_ratio(data),
             y_title=_output_title(output, Y.shape[1]), key="regression.regression_fits",
             where=None if FEW_STAGE else stage_figure, height=None if FEW_STAGE else ui.stage_height())
    same = figures.coinciding({n: f["mean"][:, output] for n, f in fits.items()})
    st.caption("Small blue dots: the training data; orange triangles: the true test outputs. Lines: GPR-type "
               "predictions (grey band: 2 standard deviations); markers: Twin GP predictions (each later one drawn "
               "smaller, on top). Shaded: where the test density is the larger one (orange, the test region) and "
               "where the training density is (blue). Below: each model's mean error on the test points, in 8 "
               "bins of equal count along x. Where the truth has several branches, see which branch each model "
               "follows."
               + "".join(f" The predictions of {' and '.join(g)} coincide." for g in same))
    with st.container() if FEW_STAGE else stage_side:
        ui.claims("regression.fits")
elif Y.shape[1] <= 2:
    input_names, _, X_te_units = view.inputs_in_units()
    along = ui.widget(st.selectbox, "Input along which to plot", "plot_input", list(range(data.X_te.shape[1])),
                      format_func=lambda j: input_names[j])
    output = 0
    if Y.shape[1] > 1:
        output = ui.widget(st.selectbox, "Output to plot", "plot_output", list(range(Y.shape[1])),
                           format_func=lambda k: f"output {k + 1}")
    ui.chart("regression fits", figures.regression_fits, X_te_units[:, along], Y, fits, output, points=True,
             x_title=input_names[along], heading=f"Predictions along {input_names[along]}",
             key="regression.regression_fits.along")
    st.caption(f"With {data.X_te.shape[1]} inputs each test point is drawn at its value of one input: open grey "
               "circles the true outputs, filled markers the predictions. Points close along this input can differ in the others, so the "
               "predictions scatter instead of following one curve.")
if Y.shape[1] == 2:
    ui.chart("output plane", figures.output_plane, data.Y_tr, Y, {n: f["mean"] for n, f in fits.items()},
                                heading="The second output against the first", key="regression.output_plane")
    st.caption("The two outputs of each point drawn as one point of the plane (the Circle data lie on the unit "
               "circle). A structured model keeps its predictions on the circle; averaging pulls them inside.")
elif Y.shape[1] > 2 and Y.shape[1] != 16:
    ui.chart("predicted vs true", figures.predicted_vs_true, Y, {n: f["mean"] for n, f in fits.items()}, key="regression.predicted_vs_true")
    st.caption("Predicted against true value per output: perfect predictions lie on the dotted diagonal.")
if Y.shape[1] == 16 and data.X_te.shape[1] == 48:
    ui.chart("digits grid", figures.digits_grid, data.X_te, Y, {n: f["mean"] for n, f in fits.items()}, key="regression.digits_grid")
    st.caption("Top row: true digits. Below: the same digits with the 4x4 centre predicted by each model from the "
               "48 outer pixels.")

with_certainty = ui.of_view(readings.certainty_readings, view, tuple(fits), lessons.CERTAINTY_BINS)
if with_certainty:
    st.subheader("Certainty and error")
    cols = st.columns(min(len(with_certainty), 3))
    for i, (name, (certainty, name_errors, r_p, bins, rho)) in enumerate(with_certainty.items()):
        ui.chart("error vs certainty", figures.error_vs_certainty, name_errors, certainty, name, key=f"regression.certainty.{name}", where=cols[i % len(cols)])
        if r_p is None:
            cols[i % len(cols)].caption("Pearson r needs at least 3 test points with finite values.")
            continue
        r, p = r_p
        column = cols[i % len(cols)]
        if bins is not None:
            ui.chart("error per certainty bin", figures.error_by_certainty_bin, bins, name,
                     key=f"regression.certainty_bins.{name}", where=column)
        n = len(name_errors)
        column.caption(f"Pearson r = {r:.2f} {_interval(r, n)} (p {'= ' if p >= 1e-4 else ''}{figures.format_p(p)})"
                       + (f"; Spearman rho = {rho:.2f} {_interval(rho, n)}" if rho is not None else "")
                       + " (95 % intervals). "
                       + ("Negative: lower certainty goes with larger errors here." if r < 0 and p < 0.01
                          else "No clear negative relation here."))
    st.caption("Top: each point is a test point, its certainty phi against its error; if certainty were a "
               "reliable warning, the cloud would fall from left to right. Below: the same points ranked by phi "
               f"and cut into {lessons.CERTAINTY_BINS} bins of equal size, from the least to the most certain (ranks, "
               "so a phi crowded near 1 still fills every bin): the mean error of each bin with its 95 % "
               "t-interval. Pearson r weighs the few far-out points heavily; Spearman rho uses ranks only.")
    ui.claims("regression.certainty")



def _predictions_csv(X_te, Y, means):
    """The CSV of the download: one row per test point, its inputs, true outputs and each model's predictions."""
    header = ([f"x{i}" for i in range(X_te.shape[1])] + [f"y{k}_true" for k in range(Y.shape[1])]
              + [f"{n}_y{k}" for n in means for k in range(Y.shape[1])])
    buffer = io.StringIO()
    np.savetxt(buffer, np.column_stack([X_te, Y] + list(means.values())), delimiter=",", header=",".join(header),
               comments="", fmt="%.6g")
    return buffer.getvalue()


# written when the button is pressed (a callable: Streamlit's deferred download), not on every run of the page
st.download_button("Download the predictions (one row per test point) as CSV",
                   functools.partial(_predictions_csv, data.X_te, Y, {n: f["mean"] for n, f in fits.items()}),
                   file_name="covshift_predictions.csv", mime="text/csv")

with st.expander("The maths"):
    st.markdown("GPR predicts each output $d$ with the kernel weights of the training inputs; the IW- form gives "
                "training point $i$ the noise variance $\\lambda_x / w_i$:")
    st.latex(r"\hat y_d(x) = k_x^\top \big(W^{1/2} K_X W^{1/2} + \lambda_x I\big)^{-1} W^{1/2} y_d")
    st.markdown("Twin GPs choose the output $y$ that makes the joint kernels of inputs and outputs agree; "
                "SMTGP minimises the Sharma-Mittal divergence between the two Gaussians:")
    st.latex(r"\hat y = \arg\min_y \frac{1}{\gamma - 1}\Big[\eta_y^{\frac{\theta(1-\gamma)}{2(1-\theta)}}\,"
             r"\eta_{xy}^{-\frac{1-\gamma}{2(1-\theta)}} - 1\Big], \qquad "
             r"\phi(x, y) = \frac{\eta_x^{1-\theta}\,\eta_y^{\theta}}{\eta_{xy}}")
    st.markdown(
        "- $K_X$: kernel matrix of the training inputs, $k_x$: kernel values between $x$ and them; "
        "$W = \\mathrm{diag}(w_i)$ the importance weights; $\\lambda_x$ the input regulariser.\n"
        "- $\\eta_x$, $\\eta_y$: the variances left in the new input and the candidate output after conditioning on "
        "the training inputs (resp. outputs), i.e. Schur complements of the joint kernel matrices.\n"
        "- $\\eta_{xy}$: the corresponding joint term that couples input and output similarities.\n"
        "- $\\theta$ (order) and $\\gamma$ (degree): the Sharma-Mittal parameters; $\\theta, \\gamma \\to 1$ gives KL.\n"
        "- $\\phi$: the certainty of a prediction, between 0 and 1.")

st.subheader("A few target labels")
if ui.widget(st.toggle, "Compare no adaptation, importance weighting and delta adaptation", "few_labels"):
    n_labels = ui.widget(side_control.slider if FEW_STAGE else st.slider, "labelled test points", "n_labels",
                         help="How many test points reveal their label to the delta adaptation.")
    outcome = ui.guard("Few labels", view.few_labels, n_labels)
    if outcome is not None:
        X_eval, Y_eval, preds = outcome
        ui.show_table([{"method": n, "MAE on the unlabelled test points": metrics.mae(Y_eval, p)}
                       for n, p in preds.items()], "method",
                      formats={"MAE on the unlabelled test points": ".4f"})
        if X_eval.shape[1] == 1:
            labelled = view.labelled_points(n_labels)
            ui.chart("regression fits", figures.regression_fits, X_eval[:, 0], Y_eval, {n: {"mean": p} for n, p in preds.items()},
                                           labelled=(data.X_te[labelled, 0], data.Y_te[labelled]),
                                           ratio=_true_ratio(data),
                                           y_title=_output_title(0, Y.shape[1]),
                                           heading="A few target labels: three GPs", key="regression.regression_fits.2",
                                           where=stage_figure if FEW_STAGE else None,
                                           height=ui.stage_height() if FEW_STAGE else None)
            st.caption("No adaptation fits the training data as they are; importance weighting re-weights them "
                       "(no target labels needed); delta adaptation adds a correction fitted to the labelled "
                       "test points (black rings). Errors are measured on the other test points."
                       + _close_lines(preds, "delta adaptation", "importance weighting"))
        with stage_side if FEW_STAGE else st.container():
            ui.claims("regression.few_labels")
