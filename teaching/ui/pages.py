"""The app's pages, listed once: app.py's navigation and the recovery of a page run alone use this list."""

import streamlit as st

#: (file, title, icon) of every page, in the sidebar's order; the first is the default.
PAGES = [
    ("pages/home.py", "Home", ":material/home:"),
    ("pages/data.py", "Data & shift", ":material/scatter_plot:"),
    ("pages/check.py", "Check your data", ":material/troubleshoot:"),
    ("pages/weights.py", "Importance weights", ":material/balance:"),
    ("pages/regression.py", "Structured regression", ":material/show_chart:"),
    ("pages/classification.py", "Classification under shift", ":material/call_split:"),
    ("pages/transfer.py", "Domain transfer", ":material/swap_horiz:"),
    ("pages/scaling.py", "Scaling", ":material/timer:"),
    ("pages/reproduction.py", "Reproduction", ":material/fact_check:"),
    ("pages/theory.py", "About & theory", ":material/menu_book:"),
    ("pages/join.py", "Join a poll", ":material/how_to_vote:"),  # a student's phone (Ask the class)
]


def pages():
    """The st.Page objects of :data:`PAGES` (Home is the default)."""
    return [st.Page(path, title=title, icon=icon, default=i == 0) for i, (path, title, icon) in enumerate(PAGES)]
