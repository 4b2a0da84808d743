import streamlit as st

from teaching import ui
from teaching import catalog, figures

ui.through_app()
st.title("Scaling")
st.markdown("Run time of the weight estimators against the sample size n_tr = n_te on the paper's "
            "synthetic data with sigma = 0.3 (paper Fig. 2g). The full table with many more "
            "numbers is produced by `python bench/weights.py`.")

choices = ui.widget(st.multiselect, "Estimators", "scaling_estimators")  # options from teaching.settings
sizes = ui.widget(st.multiselect, "Sample sizes", "scaling_sizes")


@st.cache_data(show_spinner=False)
def timing(name, n):
    data = catalog.make_dataset("sinc", seed=0, n_tr=n, n_te=n)
    return catalog.fit_weights(data, name, 0.3).seconds


if st.button("Run", key="scaling_run", type="primary"):
    ui.put("scaling_run", True)  # in the link: the chart is part of the view
if ui.get("scaling_run") and choices and sizes:
    progress = st.progress(0.0, text="timing...")
    results, total, done = {}, len(choices) * len(sizes), 0
    for name in choices:
        seconds = []
        for n in sorted(sizes):
            value = ui.guard(f"{name} at n = {n}", timing, name, n)
            seconds.append(value if value is not None else float("nan"))
            done += 1
            progress.progress(done / total, text=f"{name}, n = {n}")
        results[name] = (sorted(sizes), seconds)
    ui.chart("Scaling", figures.scaling, results, key="scaling.chart")
else:
    st.info("Press Run: results are cached, so a second run is instant; after it the chart "
            "follows your choices.")
