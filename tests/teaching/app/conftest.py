"""Make AppTest run pages the way the server does.

AppTest builds a new PagesManager for every run, which sees the ``pages/`` folder and runs a
switched-to page file on its own (multipage v1), skipping app.py. The server runs app.py on
every run once st.navigation has been called (it sets ``uses_pages_directory = False`` for the
process), so app.py's settings, sidebar and address sync run on every page. The fixture keeps
that flag as the server has it.
"""

import pytest
from streamlit.runtime.pages_manager import PagesManager


@pytest.fixture(autouse=True)
def run_app_py_on_every_page(monkeypatch):
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
