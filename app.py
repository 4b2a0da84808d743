"""covshift teaching app: entry point (``streamlit run app.py``)."""

import streamlit as st

from teaching import ui

st.set_page_config(page_title="covshift: covariate shift, step by step", page_icon=":material/balance:", layout="wide")
ui.init()
page = st.navigation([
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/data.py", title="Data & shift", icon=":material/scatter_plot:"),
    st.Page("pages/weights.py", title="Importance weights", icon=":material/balance:"),
    st.Page("pages/regression.py", title="Structured regression", icon=":material/show_chart:"),
    st.Page("pages/classification.py", title="Classification under shift", icon=":material/call_split:"),
    st.Page("pages/transfer.py", title="Domain transfer", icon=":material/swap_horiz:"),
    st.Page("pages/scaling.py", title="Scaling", icon=":material/timer:"),
    st.Page("pages/reproduction.py", title="Reproduction", icon=":material/fact_check:"),
    st.Page("pages/theory.py", title="About & theory", icon=":material/menu_book:"),
])
ui.sidebar()
ui.link_notice()
try:
    page.run()
except Exception as exc:  # st.stop and reruns are not Exceptions and pass through
    ui.page_failed(exc)
