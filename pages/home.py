import numpy as np
import streamlit as st

import ui
from covshift import plots
from covshift.data import sinc_shift

st.title("Covariate shift, step by step")
st.markdown(
    "Training inputs come from **p_tr(x)**, test inputs from **p_te(x)**, and the relation "
    "**p(y|x)** is the same for both. A model fitted where the training data are dense can be "
    "wrong where the test data are: below, a straight line fitted to the training points misses "
    "the test region. Re-weighting each training point by the **importance** "
    "w(x) = p_te(x) / p_tr(x) makes the training loss an unbiased estimate of the test loss.")

data = sinc_shift(random_state=int(ui.get("seed")))
grid = np.linspace(-1.2, 2.2, 300)[:, None]
line = np.polyfit(data.X_tr[:, 0], data.Y_tr[:, 0], 1)
st.plotly_chart(plots.shift_overview(data.X_tr, data.Y_tr, data.X_te, data.Y_te, grid,
                                     np.polyval(line, grid[:, 0])), width="stretch")

st.subheader("How to use the app")
st.markdown(
    "1. **Data & shift**: pick a data set (or upload a CSV) and set the shift.\n"
    "2. **Importance weights**: estimate w(x) with KLIEP, its Frank-Wolfe solvers, KMM, a "
    "logistic classifier or RuLSIF; watch the duality gap and replay the solver step by step.\n"
    "3. **Structured regression**: compare GPR and Twin GPs with and without the weights.\n"
    "4. **Scaling** and **About & theory** explain the speed and the equations.\n\n"
    "The presets in the sidebar set everything up for a lesson; every setting is kept in the "
    "address bar, so a copied link reproduces the view.")
st.subheader("Presets")
cols = st.columns(2)
for i, (label, note) in enumerate([
        ("Paper Fig. 2 (sinc shift)", "KLIEP, FWCS, AFWCS, PFWCS on the paper's data: sparsity and duality gaps."),
        ("S-shape Toy 1", "Multi-valued S curve: Twin GPs beat GPR."),
        ("Double S Toy 2", "Two S curves: SMTGP vs KLTGP vs IKLTGP."),
        ("Digits centre pixels under selection bias", "Reconstruct the centre of 8x8 digits.")]):
    cols[i % 2].markdown(f"**{label}**: {note}")
