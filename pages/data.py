import io

import numpy as np
import streamlit as st

from teaching import ui
from teaching import catalog, figures, report, uploads

ui.through_app()
st.title("Data & shift")
st.markdown("Choose the data and how the training inputs are shifted from the test inputs. "
            "The densities show the shift; where the densities are known, the true importance "
            "$w(x) = p_{te}(x) / p_{tr}(x)$ is drawn too.")

HELP = {
    "n_tr": "Number of training points (inputs with labels).",
    "n_te": "Number of test points (the inputs the model must predict).",
    "mean_tr": "Centre of the training inputs' Gaussian density.",
    "std_tr": "Spread of the training inputs.",
    "mean_te": "Centre of the test inputs' Gaussian density: move it away from the training centre to shift.",
    "std_te": "Spread of the test inputs; narrower than training makes large importance weights.",
    "noise": "Standard deviation of the noise added to the outputs.",
    "shift": "Strength of the selection bias: training points are kept with probability exp(-shift * "
             "(x - min) / range), so larger values keep fewer points at large x. 0 = no shift.",
}

if ui.get("source") == "built-in":
    name = ui.get("dataset")
    label, params = catalog.DATASETS[name]
    st.subheader(label)
    cols = st.columns(4)
    for i, param in enumerate(params):
        with cols[i % 4]:
            ui.widget(st.slider, param, f"{name}.{param}",  # range and step from teaching.settings
                      help=HELP.get(param, "Training images are chosen by the selection-bias sampler."))
    size_notice = st.container()  # filled once the view is built, below every widget of the page
else:
    upload = st.file_uploader("Upload a CSV (header row, numeric columns)", type=["csv"], key="csv_upload")
    if upload is not None:
        st.session_state["csv_bytes"] = upload.getvalue()
    raw = st.session_state.get("csv_bytes")
    if raw is None:
        st.info("Upload a CSV to use your own data; until then nothing is shown. "
                "(Uploaded data are not part of the shareable link.)")
        st.stop()
    table = ui.guard("CSV", ui.csv_table, raw)
    if table is None:
        st.stop()
    for note in table.notes:  # notes quote column names and cells of the file: shown as text, never as Markdown
        st.warning(report.markdown_text(note))
    offer_ids = bool(table.id_like) and st.checkbox("Offer identifier columns as inputs", key="csv_offer_ids",
                                                     help="Columns that look like row identifiers: "
                                                          + report.markdown_text(", ".join(table.id_like)))
    chosen = ui.get("csv_inputs")
    offered = [c for c in table.columns if offer_ids or c not in table.id_like or c in chosen]
    cols = st.columns(3)
    with cols[0]:
        inputs = ui.widget(st.multiselect, "Input columns", "csv_inputs", offered, wrap=True)
    with cols[1]:
        outputs = ui.widget(st.multiselect, "Output columns", "csv_outputs",
                            [c for c in table.columns if c not in inputs], wrap=True)
    with cols[2]:
        split = ui.widget(st.selectbox, "Train/test split", "csv_split", uploads.split_choices(table, inputs, outputs),
                          help="The selection-bias sampler; the rows without outputs as the test rows (the usual "
                               "covariate-shift file: labelled training rows, unlabelled test rows); a column of "
                               "0 (test) / 1 (training); or a date column (training rows dated before a date).")
    if split in table.dates:
        ui.widget(st.text_input, "First test date (empty: the median date)", "csv_split_date",
                  help="Rows dated before this date are training rows, the others test rows. Write it as 2021-03-04.")
        if not ui.get("csv_split_date"):
            st.caption(f"Training rows: dated before {uploads.date_cutoff(table, split).astype('datetime64[D]')} "
                       "(the median date of the column).")
    ui.link_limits()  # a name too long for a link, or too many: a copied link would show another view
    if [c for c in inputs if c in table.id_like]:
        st.warning(f"Input(s) {report.markdown_text(', '.join(c for c in inputs if c in table.id_like))} look like "
                   "row identifiers: if they follow the order of the file, they alone can make the split look like a "
                   "shift. Deselect them unless they measure something.", icon=":material/badge:")
    ui.widget(st.toggle, "Standardise the inputs and outputs", "csv_standardise",
              help="Centre every input column and divide it by its standard deviation over all rows (training and "
                   "test), so that kernel widths and models see the inputs on one scale; the regression models are "
                   "fitted to the outputs centred and scaled to standard deviation 1 over the training rows, and "
                   "their predictions mapped back to your units. Recommended unless the inputs already share a unit.")
    if not inputs or not outputs:
        st.info("Choose at least one input and one output column.")
        st.stop()

view = ui.view()
if ui.get("source") == "built-in" and "n_tr" in params and "n_te" in params:
    refused = view.refused_at_size(int(ui.get(f"{name}.n_tr")), int(ui.get(f"{name}.n_te")))
    if refused:
        listed = ", ".join(f"{method} (at most {limit})" for method, limit in refused.items())
        size_notice.warning(f"At this size the app will refuse {listed} points per side: choose fewer points, "
                            "or other methods on their pages.", icon=":material/timer_off:")
data = ui.current_data(view)
if data is None:
    st.stop()

c1, c2, c3 = st.columns(3)
c1.metric("training points", len(data.X_tr))
c2.metric("test points", len(data.X_te))
c3.metric("inputs / outputs", f"{data.X_tr.shape[1]} / {data.Y_tr.shape[1]}")
if ui.get("source") == "csv":
    st.caption("Inputs standardised (each column centred and scaled to standard deviation 1 over all rows); the "
               "regression models fit the outputs standardised likewise and predict in your units."
               if ui.get("csv_standardise") else "Inputs and outputs in the file's units (not standardised).")
for sentence in view.csv_rows():
    st.info(report.markdown_text(sentence), icon=":material/table_rows:")
few = report.small_sample_warning(len(data.X_tr))
if few:
    st.warning(few, icon=":material/warning:")
st.page_link("pages/check.py", label="Check this data: is there a shift, where, what weights cost, with a report",
             icon=":material/troubleshoot:")

left, right = st.columns(2)
ui.chart("input densities", figures.input_densities, data.X_tr, data.X_te, data.true_weights, key="data.input_densities", where=left)
left.caption("Kernel density estimates of the training (blue) and test (orange, dashed) inputs"
             + ("; dotted: the training density re-weighted by the true ratio. In expectation it is the test "
                "density; with a finite sample it only approaches it (where the test inputs lie, few training "
                "points carry large weights, and both curves are smoothed)."
                if data.true_weights is not None else ".") + (" With several inputs, x is their first principal "
                                                             "component." if data.X_tr.shape[1] > 1 else ""))
ui.chart("data scatter", figures.data_scatter, data.X_tr, data.Y_tr, data.X_te, data.Y_te, key="data.data_scatter", where=right)
right.caption("Training and test points: the output y0 against the input. Where there are test points but few "
              "training points, a model has to extrapolate.")
if data.Y_tr.shape[1] == 2:
    ui.chart("output plane", figures.output_plane, data.Y_tr, data.Y_te, key="data.output_plane")
    st.caption("The two outputs of every point drawn as y1 against y0: the Circle data lie on the unit circle, "
               "a structure a model that predicts the outputs separately does not know.")
if data.density_ratio is not None and data.X_tr.shape[1] == 1:
    x = data.X_tr[:, 0]
    grid = np.linspace(x.min(), x.max(), 300)
    ui.chart("weights vs truth", figures.weights_vs_truth, grid, {}, data.density_ratio(grid[:, None]), heading="True importance w(x)", key="data.weights_vs_truth")
    st.caption("The true ratio w(x) = p_te(x) / p_tr(x): training points where it is large stand for many test "
               "points, those where it is near 0 for none.")
elif data.density_ratio is None:
    st.caption("The true ratio of this data set is not known; the weight error (NMSE) is not available.")

buffer = io.StringIO()
table = np.column_stack([
    np.vstack([data.X_tr, data.X_te]), np.vstack([data.Y_tr, data.Y_te]),
    np.r_[np.ones(len(data.X_tr)), np.zeros(len(data.X_te))]])
header = ([f"x{i}" for i in range(data.X_tr.shape[1])] + [f"y{i}" for i in range(data.Y_tr.shape[1])]
          + ["train"])
np.savetxt(buffer, table, delimiter=",", header=",".join(header), comments="", fmt="%.6g")
st.download_button("Download the data as CSV", buffer.getvalue(), file_name="covshift_data.csv",
                   mime="text/csv")
