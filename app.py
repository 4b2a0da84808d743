"""covshift teaching app: entry point (``streamlit run app.py``)."""

import streamlit as st

import ui

st.set_page_config(page_title="covshift: covariate shift, step by step", page_icon="⚖️", layout="wide")
ui.init()
page = st.navigation([
    st.Page("pages/home.py", title="Home", icon="🏠", default=True),
    st.Page("pages/data.py", title="Data & shift", icon="📊"),
    st.Page("pages/weights.py", title="Importance weights", icon="⚖️"),
    st.Page("pages/regression.py", title="Structured regression", icon="📈"),
    st.Page("pages/scaling.py", title="Scaling", icon="⏱️"),
    st.Page("pages/theory.py", title="About & theory", icon="📖"),
])
ui.sidebar()
page.run()
