"""covshift teaching app: entry point (``streamlit run app.py``)."""

import streamlit as st

st.set_page_config(page_title="covshift: covariate shift, step by step", layout="wide")

st.title("covshift")
st.markdown(
    """
Under **covariate shift** the training inputs come from p_tr(x) and the test inputs from
p_te(x), while p(y|x) stays the same. Re-weighting each training point by the
**importance** w(x) = p_te(x) / p_tr(x) removes the bias that the shift causes.

This app shows how the weights are learned: KLIEP and its Frank-Wolfe solvers
(FWCS, AFWCS, PFWCS and the fully-corrective FCFWCS), with their duality-gap
certificates and the sparsity of the mixing coefficients.
"""
)
