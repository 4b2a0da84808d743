import streamlit as st

import ui
from covshift import catalog, plots

st.title("Scaling")
st.markdown("Run time of the weight estimators against the sample size n_tr = n_te on the paper's "
            "synthetic data with sigma = 0.3 (paper Fig. 2g). The full table with many more "
            "numbers is produced by `python bench/weights.py`.")

choices = st.multiselect("Estimators", catalog.WEIGHT_ESTIMATORS, default=["KLIEP", "PFWCS", "FCFWCS"],
                         key="scaling_estimators")
sizes = st.multiselect("Sample sizes", [100, 200, 500, 1000, 2000], default=[100, 200, 500, 1000],
                       key="scaling_sizes")


@st.cache_data(show_spinner=False)
def timing(name, n):
    data = catalog.make_dataset("sinc", seed=0, n_tr=n, n_te=n)
    return catalog.fit_weights(data, name, 0.3).seconds


if st.button("Run", key="scaling_run", type="primary") and choices and sizes:
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
    st.session_state["scaling_results"] = results
if "scaling_results" in st.session_state:
    st.plotly_chart(plots.scaling(st.session_state["scaling_results"]), width="stretch")
else:
    st.info("Press Run: results are cached, so a second run is instant.")
