import pandas as pd
import streamlit as st

from teaching import catalog, figures, report, settings, ui

ui.through_app()
st.title("Check your data")
st.markdown("On the current data (built-in, or your CSV uploaded on **Data & shift**): do the training and test "
            "inputs differ, which inputs moved, what importance weights cost, and what they change in a model's "
            "error estimate. Everything below can be downloaded as one report.")
st.page_link("pages/data.py", label="Choose or upload the data on Data & shift", icon=":material/scatter_plot:")

view = ui.view()  # the choices of this page only name the method each section shows, passed to its call
data = ui.current_data(view)
if data is None:
    st.stop()
csv = ui.get("source") == "csv"
names, X_tr, X_te = view.inputs_in_units()
n_tr, n_te, d = len(data.X_tr), len(data.X_te), data.X_tr.shape[1]
c1, c2, c3 = st.columns(3)
c1.metric("training points", n_tr)
c2.metric("test points", n_te)
c3.metric("inputs", d)
if csv:
    st.caption(("Inputs standardised (each column centred and scaled to standard deviation 1 over all rows) before the "
                "split, the weights and the models; tables and histograms show the file's units."
                if ui.get("csv_standardise") else
                "Inputs **not standardised**: kernels mix them in the file's units, so a column with large numbers "
                "dominates every distance.") + " Switch: *Standardise the inputs and outputs* on Data & shift.")
row_notes = view.csv_rows()
for sentence in row_notes:
    st.info(report.markdown_text(sentence), icon=":material/table_rows:")
few = report.small_sample_warning(n_tr)
if few:
    st.warning(few, icon=":material/warning:")

# ---------------------------------------------------------------- 1. is there a shift?
st.subheader("1. Do the training and test inputs differ?")
ui.widget(st.radio, "Test", "check_test", horizontal=True,
          format_func={"mmd": "kernel MMD (any difference)", "classifier": "linear classifier (shifted means)"}.get,
          help="Both compare the observed training/test split with random re-splits of the pooled inputs "
               "(permutations): the p-value is the share of re-splits that look at least as different.")
with st.spinner("Testing..."):
    tested = ui.guard("Shift test", view.shift_test, ui.get("check_test"))
sections = []
if tested is not None:
    result = tested.model
    ui.show_warnings("Shift test", tested.warnings)
    verdict = report.test_sentence(result)
    (st.warning if result.p_value < report.ALPHA else st.info)(f"**{verdict}**", icon=":material/query_stats:")
    left, right = st.columns([3, 2])
    ui.chart("permutation null", figures.null_distribution, result.null_distribution, result.statistic,
             result.method, result.p_value, key="check.null", where=left)
    right.markdown(report.statistic_sentence(result))
    right.caption("Grey: the statistic on random re-splits of the pooled inputs, which have no shift by "
                  "construction. Orange line: the observed split. The further right of the grey mass, the stronger "
                  "the evidence of a shift.")
    sections.append(("Is there a shift?", [("p", verdict), ("p", report.statistic_sentence(result))]))

# ---------------------------------------------------------------- 2. where?
st.subheader("2. Which inputs moved?")
shift = ui.guard("Shift per input", view.column_shift)
if shift is not None:
    top = list(shift.ranking[:3])
    shift_words = report.shift_sentence(names, shift, markdown=False)  # the report's plain text
    st.markdown(report.shift_sentence(names, shift))
    left, right = st.columns([5, 2])
    ui.chart("shifted inputs", figures.shifted_inputs, X_tr, X_te, names, top, shift.statistic,
             key="check.inputs", where=left)
    rows = report.ranking_rows(names, shift)
    with right:
        ui.show_table([{"input": r[0], "KS": float(r[1]), "p-value": r[2], "corrected p": r[3]} for r in rows],
                      "input", formats={"KS": ".3f"},
                      help={"KS": "Kolmogorov-Smirnov statistic of this input: higher = more shifted.",
                            "p-value": "KS test of this input alone (not corrected for testing several inputs).",
                            "corrected p": f"{report.correction_name(shift)}'s correction for testing {len(names)} "
                                           "inputs: an input is named as shifted only when this is below "
                                           f"{report.ALPHA:g}."}, wrap=True)
    st.caption("Each input is compared alone; a shift of how inputs combine, with every input's own distribution "
               "unchanged, is seen by the test above but not here.")
    sections.append(("Which inputs moved?", [
        ("p", shift_words + " Kolmogorov-Smirnov statistic per input, most shifted first, with "
              f"the p-value of each input alone and after {report.correction_name(shift)}'s correction:"),
        ("table", ["input", "KS statistic", "p-value", f"corrected p ({report.correction_name(shift)})"], rows)]))

# ---------------------------------------------------------------- 3. what the weights cost
st.subheader("3. What do importance weights cost?")
estimator = ui.widget(st.selectbox, "Weight estimator", "check_weights", catalog.WEIGHT_ESTIMATORS,
                      help="Its kernel width follows the rule set on the Importance weights page (auto by default).")
with st.spinner(f"Fitting {estimator}..."):
    checked = ui.guard("Weights", view.weight_check, estimator)
output_names = view.output_names()
weight_rows = None
if checked is not None:
    ui.show_warnings(estimator, view.weights(estimator).warnings)
    summary, w = checked["summary"], checked["weights"]
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("ESS (effective sample size)", f"{summary.ess:.0f}", help="(sum w)^2 / sum w^2")
    m2.metric("ESS / training points", f"{100 * summary.ess_fraction:.0f} %")
    m3.metric("largest weight / mean", f"{summary.max_weight:.1f}")
    m4.metric("weight on the top 1 %", f"{100 * summary.top_share:.0f} %")
    st.markdown(report.weights_sentence(estimator, summary))
    uncorrected = report.weights_warning(estimator, summary, tested.model if tested is not None else None)
    if uncorrected:
        st.warning(uncorrected, icon=":material/balance:")
    left, right = st.columns([1, 1])
    ui.chart("weight histogram", figures.weight_histogram, {estimator: w}, key="check.weights", where=left)
    weight_rows = [{"training point": int(i), **{n: float(X_tr[i, j]) for j, n in enumerate(names)},
                    **{n: float(data.Y_tr[i, k]) for k, n in enumerate(output_names)}, "weight": float(w[i])}
                   for i in checked["top"]]
    with right:
        st.markdown(f"The {len(weight_rows)} largest weights and their training points"
                    + (" (inputs in the file's units)" if csv else ""))
        ui.show_table(weight_rows, "training point", formats={"weight": ".2f"})
    frame = pd.DataFrame({"training point": range(n_tr), **{n: X_tr[:, j] for j, n in enumerate(names)},
                          **{n: data.Y_tr[:, k] for k, n in enumerate(output_names)}, "weight": w})
    st.download_button("Download the weights (one row per training point) as CSV", report.csv_text(frame),
                       file_name=f"covshift_weights_{estimator}.csv", mime="text/csv", key="check.weights_csv")
    sections.append(("What do the weights cost?", [
        ("p", report.weights_sentence(estimator, summary)), *([("p", uncorrected)] if uncorrected else []),
        ("table", ["training point", *names, *output_names, "weight"],
         [[r["training point"], *(f"{r[n]:.4g}" for n in [*names, *output_names]), f"{r['weight']:.3f}"]
          for r in weight_rows])]))

# ---------------------------------------------------------------- 4. what they change in a model's error estimate
st.subheader("4. What do they change in a model's error estimate?")
model = ui.widget(st.selectbox, "Model", "check_model", list(catalog.CHECK_MODELS), format_func=catalog.model_label,
                  help="GPR and W-KNN are fitted without weights, IW-GPR with the weights above; the hyper-parameters "
                       "are those of the Structured regression page.")
with st.spinner(f"Cross-validating {model}..."):
    errors = ui.guard("Cross-validation", view.cv_errors, model, estimator)
if errors is not None:
    cv = errors["cv"]
    sentence = report.cv_sentence(model, cv, errors["test"], errors["baseline"], errors["n_scored"], n_te)
    st.markdown(sentence)
    cv_rows = [{"estimate": f"ordinary {cv.n_folds}-fold CV (training inputs)", "mean squared error": cv.unweighted,
                "standard error": cv.unweighted_se},
               {"estimate": f"importance-weighted CV with {estimator} (test inputs)", "mean squared error": cv.weighted,
                "standard error": cv.weighted_se},
               {"estimate": f"actual error on the {errors['n_scored']} test points with outputs",
                "mean squared error": errors["test"], "standard error": None},
               {"estimate": "for scale: predicting the training mean (training points)",
                "mean squared error": errors["baseline"], "standard error": None}]
    ui.show_table(cv_rows, "estimate", formats={"mean squared error": ".4g", "standard error": ".2g"},
                  help={"mean squared error": "Squared error summed over the outputs, averaged over the points.",
                        "standard error": "Standard deviation of the fold values / sqrt(folds): how much the "
                                          "estimate could move with other folds (rough: the folds share points)."})
    st.caption("Ordinary cross-validation measures the error where the training inputs are; importance-weighted "
               "cross-validation (Sugiyama et al. 2007) re-weights each held-out point by w(x) to estimate the error "
               "where the test inputs are. Both use the same fold models. The weighting costs variance: with a few "
               "hundred training points IWCV chose the better model only about half the time on real data, even with "
               "the exact weights; it clearly pays from a few thousand.")
    sections.append((f"What do the weights change in {model}'s error estimate?", [
        ("p", sentence), ("table", ["estimate", "mean squared error"],
                          [[r["estimate"], "not measured" if r["mean squared error"] is None else
                            f"{r['mean squared error']:.4g}"
                            + ("" if r["standard error"] is None else f" ± {r['standard error']:.2g}")]
                           for r in cv_rows])]))

# ---------------------------------------------------------------- the report
st.subheader("The report")
base = (st.context.url or "").split("?")[0]
query = settings.query_string(st.session_state.settings)
link = f"{base}?{query}" if query else base
modelled = ui.quiet(view.model_hyper)  # None when too few training rows have outputs to fit a model
hyper, standardised_outputs = modelled or ({}, False)
auto_widths = csv and ui.get("csv_hyper") == "auto"
facts = [("data", "uploaded CSV" if csv else catalog.DATASETS[ui.get("dataset")][0]), ("seed", ui.get("seed")),
         ("training / test points", f"{n_tr} / {n_te}"),
         ("rows with outputs (training / test)", f"{int(data.labelled_tr.sum())} / {int(data.labelled_te.sum())}"),
         ("inputs", ", ".join(names)),
         ("outputs", ", ".join(output_names)),
         ("inputs standardised", ("yes (each column centred and scaled to standard deviation 1 over all rows)"
                                  if ui.get("csv_standardise") else "no (the file's units)") if csv else
          "not applicable (built-in data)"),
         ("shift test", ui.get("check_test")),
         ("per-input p-values corrected by", report.CORRECTIONS[shift.correction] if shift is not None else "-"),
         ("weight estimator", estimator),
         ("kernel width rule", "auto" if ui.get("sigma_mode") == "auto" else f"manual, sigma = {ui.get('sigma')}"),
         ("model", model), ("rho_x, lambda_x", f"{hyper['rho_x']:.4g}, {hyper['lambda_x']:.4g}"
                                               + (" (chosen from the data)" if auto_widths else "") if modelled
                                               else "none (too few training rows with outputs to fit a model)")]
if csv:
    dated = ui.get("csv_split") in view.csv_table().dates
    first_test = ui.get("csv_split_date") or "the median date"
    facts.append(("train/test split", ui.get("csv_split") + (f" (test rows from {first_test})" if dated else "")))
    if modelled:
        facts.append(("how the models fit your data", report.scale_sentence(hyper, standardised_outputs, auto_widths)))
if row_notes:
    sections.insert(0, ("Rows", [("p", sentence) for sentence in row_notes]))
if few:
    sections.append(("Warnings", [("p", few)]))
blocks = report.document("covshift: check of the data", facts, link or "(address not available)", sections)
d1, d2 = st.columns(2)
d1.download_button("Download the report (Markdown)", report.to_markdown(blocks), file_name="covshift_check.md",
                   mime="text/markdown", key="check.report_md")
d2.download_button("Download the report (HTML)", report.to_html(blocks), file_name="covshift_check.html",
                   mime="text/html", key="check.report_html")
st.caption("The report holds the verdicts, tables and settings above and the link to this view.")
