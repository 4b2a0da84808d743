"""covshift teaching app: entry point (``streamlit run app.py``)."""

import streamlit as st

from teaching import serve

loading = serve.loading()  # the server's first run: a frame while the app loads (the browser loads plotly meanwhile)
serve.start()  # once per server, first: step cache, the app's imports; fit workers and warm-up after the first run

from teaching import ui  # noqa: E402

try:
    if loading is not None:
        loading.empty()
    st.set_page_config(page_title="covshift: covariate shift, step by step", page_icon=":material/balance:",
                       layout="wide")
    ui.init()
    page = st.navigation(ui.pages())
    ui.sidebar(page)
    ui.link_notice()
    try:
        page.run()
    except Exception as exc:  # st.stop and reruns are not Exceptions and pass through
        ui.page_failed(exc)
finally:
    serve.script_finished()  # the first run over (however it ended), the fit workers start
