import streamlit as st

from teaching import ui
from teaching import figures, steps

ui.through_app()
st.title("Scaling")
PAPER_SIGMA = ui.DEFAULTS["sigma"]  # the setting's default: the width of the paper's Fig. 2g
intro = st.container()
choices = ui.widget(st.multiselect, "Estimators", "scaling_estimators")  # options from teaching.settings
sizes_column, width_column = st.columns([2, 1])
sizes = ui.widget(sizes_column.multiselect, "Sample sizes", "scaling_sizes")
ui.widget(width_column.slider, "Kernel width sigma (fixed)", "sigma",
          help="One width for every estimator, timed without a width rule: the width of the manual mode on "
               f"Importance weights (the same setting). The paper's Fig. 2g uses {PAPER_SIGMA:g}.")
view = ui.view()  # the estimators, sizes and width of the timings (view.scaling)
intro.markdown(f"CPU time of the weight estimators against the sample size n_tr = n_te on the paper's synthetic "
               f"data with a fixed width sigma = {view.scaling.sigma:g} (paper Fig. 2g"
               + ("" if view.scaling.sigma == PAPER_SIGMA else f": {PAPER_SIGMA:g}") + "). Each point is the "
               f"median of up to {steps.TIMING_RUNS} runs after a warm-up run (bars: fastest to slowest run); the "
               "slope of each line on the log-log axes says how the time grows: 1 means in proportion to n, 2 to n². "
               "The full table with many more numbers is produced by `python bench/weights.py`.")

if st.button("Run", key="scaling_run", type="primary"):
    ui.put("scaling_run", True)  # in the link: the chart is part of the view
if ui.get("scaling_run") and choices and sizes:
    progress = st.progress(0.0, text="timing...")
    timings, total, done = {}, len(view.scaling.estimators) * len(view.scaling.sizes), 0
    for name in view.scaling.estimators:
        timings[name] = {}
        for n in view.scaling.sizes:
            progress.progress(done / total, text=f"timing {name} at n = {n}")
            value = ui.guard(f"{name} at n = {n}", view.timing, name, n)
            if value is not None:
                timings[name][n] = value
            done += 1
    progress.empty()  # the run is over: no bar left standing above the results
    rows, slopes = steps.timing_summary(timings)
    results = {name: (sorted(by_size), [by_size[n][0] for n in sorted(by_size)])
               for name, by_size in timings.items() if by_size}
    if results:
        left, right = st.columns([4, 3])
        ui.chart("Scaling", figures.scaling, results, slopes=slopes, key="scaling.chart", where=left)
        with right:
            ui.show_table([{"method": row["method"], "n": row["n"], "median s": row["median s"], "runs": row["runs"],
                            "iter.": row["iterations"], "ms/iter.": row["ms / iteration"]} for row in rows],
                          formats={"n": "d", "median s": ".3g", "runs": "d", "iter.": "d", "ms/iter.": ".3g"},
                          help={"median s": "median CPU seconds of the timed runs",
                                "runs": "timed runs after the warm-up (fewer for slow fits: the time budget)",
                                "iter.": "iterations of the solver until it stopped",
                                "ms/iter.": "median CPU milliseconds per iteration"})
        capped = sorted({row["method"] for row in rows if row["at iteration limit"]})
        st.caption(
            "Slopes (least squares on the medians): "
            + ", ".join(f"{name} {slope:.2f}" for name, slope in slopes.items()) + ". "
            "The time of one iteration grows with n, but the number of iterations does not: it depends on "
            "how fast each solver converges on these data (the iterations column), so a curve can be flat or dip. "
            "KLIEP keeps at most 100 kernel centres whatever n, so its cost per iteration grows slowly. "
            + (f"{', '.join(capped)} stopped at its iteration limit at some sizes: there the time "
               "follows the cost per iteration only. " if capped else "")
            + "Times are CPU seconds of the computing thread, so other users of the machine hardly change them.")
else:
    st.info("Press Run: results are cached, so a second run is instant; after it the chart "
            "follows your choices.")
