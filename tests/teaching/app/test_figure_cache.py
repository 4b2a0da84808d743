"""Issue 12, item 1: figures are built once per content of their inputs (ui.figure), never by names.

A warm rerun reuses the figures instead of validating every plotly property again; a change of
content (new data, another setting) must give a new figure, equal to one built from scratch.
"""

import json

import numpy as np
import plotly.io as pio
import streamlit as st

from teaching import ui
from teaching import catalog, figures
from tests.teaching.app.helpers import go, no_exception, open_link

SMALL = {"sinc.n_tr": "100", "sinc.n_te": "60"}


def test_content_key_sees_every_element_of_a_large_array():
    """st.cache_data samples arrays above 500,000 elements; the figure key must not."""
    a = np.zeros(600_000)
    b = a.copy()
    b[123_457] = 1e-12
    assert ui.content_key(a) != ui.content_key(b)
    assert ui.content_key(a) == ui.content_key(a.copy())  # content, not identity


def test_content_key_separates_dtype_shape_nesting_and_kind():
    x = np.arange(6.0)
    keys = {ui.content_key(x), ui.content_key(x.astype(np.float32)), ui.content_key(x.reshape(2, 3)),
            ui.content_key({"a": x}), ui.content_key({"b": x}), ui.content_key([x]), ui.content_key((x,)),
            ui.content_key(1), ui.content_key(1.0), ui.content_key("1"), ui.content_key(None),
            ui.content_key(np.array(["a", None], dtype=object)), ui.content_key(np.array(["b", None], dtype=object))}
    assert len(keys) == 13


def test_content_key_of_a_solver_history_follows_its_content():
    data = catalog.make_dataset("sinc", seed=0, n_tr=60, n_te=40)
    history = catalog.make_weight_estimator("FWCS", 0.5).fit(data.X_tr, data.X_te).history_
    other = catalog.make_weight_estimator("FWCS", 0.7).fit(data.X_tr, data.X_te).history_
    assert ui.content_key(history) == ui.content_key(history)
    assert ui.content_key(history) != ui.content_key(other)


def test_content_key_reads_a_dataclass_by_its_class_and_fields():
    import dataclasses

    data = catalog.make_dataset("sinc", seed=0, n_tr=60, n_te=40)
    history = catalog.make_weight_estimator("PFWCS", 0.5).fit(data.X_tr, data.X_te).history_
    assert dataclasses.is_dataclass(history)
    twin = dataclasses.replace(history, **{f.name: np.copy(getattr(history, f.name)) for f in dataclasses.fields(history)})
    assert ui.content_key(twin) == ui.content_key(history)  # content, not identity
    moved = np.copy(history.iterate_mu)
    moved[-1] = np.nextafter(moved[-1], np.inf)
    assert ui.content_key(dataclasses.replace(history, iterate_mu=moved)) != ui.content_key(history)
    fields = [(f.name, getattr(history, f.name)) for f in dataclasses.fields(history)]
    assert ui.content_key(fields) != ui.content_key(history)  # the class counts too
    assert ui.content_key(history.gap[::2]) == ui.content_key(np.ascontiguousarray(history.gap[::2]))


def test_figure_is_reused_for_equal_content_and_rebuilt_for_new_content():
    st.cache_resource.clear()
    grid = np.linspace(0, 1, 50)
    first = ui.figure(figures.weights_vs_truth, grid, {"KMM": grid ** 2}, grid)
    again = ui.figure(figures.weights_vs_truth, grid.copy(), {"KMM": grid ** 2}, grid.copy())
    changed = ui.figure(figures.weights_vs_truth, grid, {"KMM": grid ** 3}, grid)
    assert again is first
    assert changed is not first
    fresh = figures.weights_vs_truth(grid, {"KMM": grid ** 3}, grid)
    assert pio.to_json(changed) == pio.to_json(fresh)
    assert pio.to_json(changed) != pio.to_json(first)


def test_presentation_figure_is_cached_apart_from_the_plain_one():
    st.cache_resource.clear()
    grid = np.linspace(0, 1, 20)
    plain = ui.figure(figures.weights_vs_truth, grid, {"KMM": grid}, grid)
    big = ui.figure(figures.weights_vs_truth, grid, {"KMM": grid}, grid, presentation=True)
    assert big.layout.font.size > plain.layout.font.size
    # the same figure (the cache lays out the figure it just built in place, so the layout's keys may come in another
    # order than in presentation's copy: compared as the figure, not as its JSON text)
    assert json.loads(pio.to_json(big)) == json.loads(pio.to_json(figures.presentation(
        figures.weights_vs_truth(grid, {"KMM": grid}, grid))))


def test_unpicklable_arguments_are_drawn_without_the_cache():
    figure = ui.figure(lambda f: figures.weights_vs_truth(np.arange(3.0), {}, f(np.arange(3.0))), lambda v: v)
    assert len(figure.data) == 1


def _charts(at):
    return [json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart")]


def test_a_new_seed_redraws_the_charts_as_a_fresh_session_draws_them():
    at = no_exception(go(open_link(SMALL), "pages/data.py"))
    before = _charts(at)
    assert no_exception(at.run()) and _charts(at) == before  # warm rerun: same charts
    at.sidebar.number_input(key="w.seed").set_value(1).run()
    after = _charts(no_exception(at))
    assert after != before
    st.cache_data.clear()
    st.cache_resource.clear()
    fresh = no_exception(go(open_link({**SMALL, "seed": "1"}), "pages/data.py"))
    assert _charts(fresh) == after


def test_functions_outside_covshift_are_never_cached_by_their_name():
    """Two lambdas (or two pages' local functions) can share a name; they must not share figures."""
    st.cache_resource.clear()
    grid = np.arange(3.0)
    first = ui.figure(lambda g: figures.weights_vs_truth(g, {}, g), grid)
    second = ui.figure(lambda g: figures.weights_vs_truth(g, {}, 2 * g), grid)
    assert list(first.data[0].y) != list(second.data[0].y)
