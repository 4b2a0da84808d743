"""Figures are pure functions: data in, plotly Figure out, with the traces the pages rely on."""

import numpy as np
import plotly.graph_objects as go

from teaching import figures
from teaching.figures.base import only_used_template
from covshift.data import circle_outputs, sinc_shift
from covshift.weights import FCFWCS, PFWCS


def test_method_colours_are_consistent_and_distinct_within_a_family():
    weights = ["KLIEP", "FWCS", "AFWCS", "PFWCS", "FCFWCS"]
    assert len({figures.color(n) for n in weights}) == len(weights)
    assert figures.color("unknown") == "#777777"


def test_weight_figures():
    data = sinc_shift(n_tr=200, n_te=150)
    est = PFWCS(sigma=0.3, tol=1e-4).fit(data.X_tr, data.X_te)
    grid = np.linspace(-1, 2, 50)
    fig = figures.weights_vs_truth(grid, {"PFWCS": est.predict_weights(grid[:, None])},
                                 data.density_ratio(grid[:, None]))
    assert isinstance(fig, go.Figure) and [t.name for t in fig.data] == ["true ratio", "PFWCS"]
    assert fig.data[1].line.color == figures.color("PFWCS")
    gap = figures.duality_gaps({"PFWCS": est.history_})
    assert gap.layout.yaxis.type == "log"
    kinds = {t.name for t in gap.data}
    assert "PFWCS" in kinds and any("drop" in k or "swap" in k for k in kinds)
    assert gap.layout.xaxis.type == "log"  # a 12-step run stays visible next to a 2000-step one
    stems = figures.alpha_stems({"PFWCS": (est.center_index_, est.alpha_)})
    assert f"{np.count_nonzero(est.alpha_)} non-zero" in stems.layout.annotations[0].text
    # one stem per non-zero alpha (x, x, gap), the axis over every centre
    assert len(stems.data[0].x) == 3 * np.count_nonzero(est.alpha_)
    assert stems.layout.xaxis.range == (est.center_index_.min() - 1, est.center_index_.max() + 1)
    assert len(figures.active_set_sizes({"PFWCS": est.history_}).data) == 1
    fc = FCFWCS(sigma=0.3).fit(data.X_tr, data.X_te)
    assert figures.inner_iterations({"FCFWCS": fc.history_}).data[0].type == "bar"


def test_data_and_regression_figures():
    data = circle_outputs(n_tr=50, n_te=40)
    assert len(figures.input_densities(data.X_tr, data.X_te, np.ones(50)).data) == 3
    assert len(figures.data_scatter(data.X_tr, data.Y_tr, data.X_te, data.Y_te).data) == 2
    fits = {"GPR": {"mean": data.Y_te, "std": np.full_like(data.Y_te, 0.1), "certainty": None},
            "SMTGP": {"mean": data.Y_te, "std": None, "certainty": np.linspace(0.1, 1, 40)}}
    fig = figures.regression_fits(data.X_te[:, 0], data.Y_te, fits)
    assert any(t.fill == "toself" for t in fig.data)
    smtgp = next(t for t in fig.data if t.name == "SMTGP")  # a Twin GP: markers in its own colour and symbol
    assert smtgp.mode == "markers" and smtgp.marker.color == figures.color("SMTGP")
    errors = {t.name: t for t in fig.data if t.name and t.name.startswith("error: ")}  # the error panel below
    assert set(errors) == {"error: GPR", "error: SMTGP"} and np.allclose(errors["error: SMTGP"].y, 0)
    labelled = figures.regression_fits(data.X_te[:, 0], data.Y_te, fits, labelled=(data.X_te[:3, 0], data.Y_te[:3]))
    rings = next(t for t in labelled.data if t.name == "labelled target points")
    assert len(rings.x) == 3
    plane = figures.output_plane(data.Y_tr, data.Y_te, {"GPR": data.Y_te})
    assert plane.layout.xaxis.title.text == "output 1" and plane.layout.yaxis.title.text == "output 2"
    assert list(plane.data[0].y) == list(data.Y_tr[:, 1])
    assert len(figures.predicted_vs_true(data.Y_te, {"GPR": data.Y_te}).data) == 4
    assert len(figures.error_vs_certainty(np.ones(40), np.ones(40), "SMTGP").data) == 1


def test_first_component_projects_multidimensional_inputs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3)) * [5, 1, 0.1]
    a, b, label = figures.first_component(X[:20], X[20:])
    assert a.shape == (20,) and b.shape == (10,) and "principal" in label
    assert abs(np.corrcoef(np.r_[a, b], X[:, 0])[0, 1]) > 0.99


def test_digits_grid_and_scaling():
    X = np.random.default_rng(0).uniform(size=(3, 48))
    Y = np.random.default_rng(1).uniform(size=(3, 16))
    fig = figures.digits_grid(X, Y, {"GPR": Y}, n_images=3)
    assert len(fig.data) == 6
    assert figures.scaling({"PFWCS": ([100, 200], [0.1, 0.3])}).layout.xaxis.type == "log"


def test_every_method_has_its_own_colour_marker_and_dash_within_a_figure_family():
    families = [["KLIEP", "FWCS", "AFWCS", "PFWCS", "FCFWCS"],
                ["FCFWCS", "KMM", "ENSKMM", "ENSTRKMM", "VFKMM", "EVFKMM", "LogisticRatio", "RuLSIF"],
                ["GPR", "WKNN", "KLTGP", "IKLTGP", "SMTGP", "IW-GPR", "IW-KLTGP", "IW-SMTGP"],
                ["no adaptation", "importance weighting", "delta adaptation"],
                ["no weights", "true weights", "estimated weights"],
                ["iid", "two-stage LogisticRatio", "two-stage FCFWCS", "two-stage KMM", "integrated"],
                ["source only", "target only", "pooled", "domain transfer"]]
    for family in families:
        styles = [tuple(figures.style(n).values()) for n in family]
        assert len({s[0] for s in styles}) == len(family), family
        assert len(set(styles)) == len(family)
        for a, b in zip(styles, styles[1:]):  # neighbours differ in marker or dash, not only in colour
            assert a[1:] != b[1:] or a[0] != b[0]


def test_projector_fonts_legend_below_and_presentation_mode():
    fig = figures.weights_vs_truth(np.linspace(0, 1, 5), {"FWCS": np.ones(5)}, np.ones(5))
    assert fig.layout.font.size >= 14 and fig.layout.xaxis.tickfont.size >= 14
    assert fig.layout.legend.y < 0  # below the plot: never over the title
    big = figures.presentation(fig)
    assert big.layout.font.size > fig.layout.font.size
    assert big.data[1].line.width > fig.data[1].line.width
    assert big.layout.xaxis.tickfont.size > fig.layout.xaxis.tickfont.size  # tick labels grow too
    assert big.layout.yaxis.title.font.size > fig.layout.yaxis.title.font.size
    assert fig.layout.font.size == figures.BASE_FONT  # the original is unchanged


def test_presentation_enlarges_lines_and_text_traces():
    fig = go.Figure([dict(type="scatter", x=[0, 1], y=[0, 1], mode="lines", line=dict(width=2)),
                     dict(type="scatter", x=[0], y=[1], mode="text", text=["t = 0"], textfont=dict(size=14))])
    big = figures.presentation(fig)
    assert big.data[0].line.width > 2 and big.data[1].textfont.size > 14


def test_log_axes_show_major_ticks_only():
    fig = figures.scaling({"PFWCS": ([100, 200, 400], [0.1, 0.3, 1.0])})
    assert fig.layout.yaxis.exponentformat == "power"


def test_scaling_labels_every_size_and_every_decade_and_shows_the_spread():
    fig = figures.scaling({"PFWCS": ([100, 200, 500, 1000], [(0.01, 0.02, 0.03), 0.05, 0.2, (1.0, 1.4)])},
                          slopes={"PFWCS": 1.5})
    assert list(fig.layout.xaxis.tickvals) == [100, 200, 500, 1000]
    assert {0.01, 0.1, 1.0} <= set(fig.layout.yaxis.tickvals)
    trace = fig.data[0]
    assert trace.name == "PFWCS (slope 1.50)" and list(trace.y) == [0.02, 0.05, 0.2, 1.2]
    assert np.allclose(trace.error_y.array, [0.01, 0, 0, 0.2]) and np.allclose(trace.error_y.arrayminus, [0.01, 0, 0, 0.2])


def test_coinciding_curves_are_detected_for_the_caption():
    x = np.linspace(0, 1, 50)
    curves = {"FWCS": x, "AFWCS": x + 1e-6, "PFWCS": x**2}
    assert figures.coinciding(curves) == [["FWCS", "AFWCS"]]
    gaps = {"a": np.logspace(0, -5, 20), "b": np.logspace(0, -3, 20)}
    assert figures.coinciding(gaps, log=True) == []
    assert figures.coinciding({"a": gaps["a"], "c": gaps["a"] * 1.0001}, log=True) == [["a", "c"]]


def test_numbers_for_people():
    assert figures.format_p(3.14159e-2) == "0.031" and figures.format_p(4e-6) == "< 1e-4"
    assert figures.format_p(float("nan")) == ""
    assert figures.format_number(None) == "" and figures.format_number(True) == "yes"
    assert figures.format_number(0.123456, ".2f") == "0.12"


def test_a_figure_carries_the_template_defaults_of_the_traces_it_draws_only():
    import plotly.io as pio

    fig = figures.finish(figures.new_figure("t", "x", "y").add_scatter(x=[0, 1], y=[1, 2]).add_bar(x=[0], y=[1]))
    white = pio.templates["plotly_white"]
    assert set(fig.layout.template.data.to_plotly_json()) == {"scatter", "bar"}
    assert fig.layout.template.data.bar == white.data.bar
    assert fig.layout.template.layout == white.layout


def test_default_template_gives_the_figure_plotly_white_by_name_gives():
    """Every figure starts from plotly's default template, set once to plotly_white's layout (no
    re-validation per figure; finish adds the drawn trace types' defaults); the figure must be the one
    that setting template="plotly_white" gives, and other figures must not share later changes."""
    import json

    import plotly.graph_objects as go
    import plotly.io as pio

    fast = figures.finish(figures.new_figure("t", "x", "y"))
    by_name = go.Figure().update_layout(template="plotly_white", **figures.STYLE)
    by_name.update_layout(xaxis_title="x", yaxis_title="y", title_text="t")
    by_name.update_layout(**figures.STYLE)
    by_name.update_layout(height=figures.HEIGHT + 30, margin=dict(b=110))
    by_name.update_xaxes(title_standoff=8, tickfont_size=figures.BASE_FONT, title_font_size=figures.BASE_FONT + 1)
    by_name.update_yaxes(tickfont_size=figures.BASE_FONT, title_font_size=figures.BASE_FONT + 1)
    assert json.loads(fast.to_json()) == json.loads(only_used_template(by_name).to_json())
    fast.layout.template.layout.paper_bgcolor = "red"  # a change to one figure's template ...
    assert json.loads(fast.to_json())["layout"]["template"]["layout"]["paper_bgcolor"] == "red"
    assert figures.new_figure("t", "x", "y").layout.template.layout.paper_bgcolor != "red"  # ... stays there
    assert pio.templates["plotly_white"].layout.paper_bgcolor != "red"


def test_shift_overview_draws_each_fits_binned_test_error():
    x_te = np.linspace(-1, 1, 80)[:, None]
    y_te = np.zeros((80, 1))
    grid = np.linspace(-2, 2, 50)[:, None]
    fits = {"no weights": grid[:, 0] ** 2, "true weights": np.zeros(50)}
    fig = figures.shift_overview(x_te, y_te, x_te, y_te, grid, fits, focus=(-1.05, 1.05))
    errors = {t.name: t for t in fig.data if t.name.startswith("error: ")}
    assert set(errors) == {"error: no weights", "error: true weights"}
    assert np.allclose(errors["error: true weights"].y, 0)
    no = errors["error: no weights"]  # |x^2| on the grid, interpolated: largest in the outer bins
    assert len(no.y) == 8 and no.y[0] > 0.5 > no.y[3] and no.y[-1] > 0.5


def test_fit_height_caps_a_stage_figure_and_keeps_its_title_on_one_line_at_the_top():
    tall = figures.presentation(figures.finish(figures.new_figure("A long title " * 6, "x", "y")
                                               .add_scatter(x=[0, 1], y=[0, 1]), height=700))
    assert "<br>" in tall.layout.title.text  # presentation wraps it for half a page
    fitted = figures.fit_height(tall, 440)
    assert fitted.layout.height == 440 and tall.layout.height > 440  # a copy; the cached figure is unchanged
    assert "<br>" not in fitted.layout.title.text
    assert (fitted.layout.title.yref, fitted.layout.title.y, fitted.layout.title.yanchor) == ("container", 1, "top")
    short = figures.finish(figures.new_figure("t", "x", "y"), height=300)
    assert figures.fit_height(short, 440) is short


def test_a_long_gap_curve_keeps_the_band_of_every_log_bucket():
    """duality_gaps draws a 2000-step curve through fewer points: in each 1/PER_DECADE decade of the log x axis the
    drawn points span every point's value (the line on screen is the same), and short runs keep every point."""
    from teaching.figures import weights

    rng = np.random.default_rng(0)
    x = np.arange(1, 2002, dtype=float)
    y = np.exp(-np.log(x)) * (1 + rng.random(x.size))  # a zig-zag that falls
    kept = weights._log_envelope(x, y)
    assert kept[0] == 0 and kept[-1] == x.size - 1 and np.all(np.diff(kept) > 0) and kept.size < x.size / 2
    bucket = np.floor(np.log10(x) * weights.PER_DECADE)
    for b in np.unique(bucket):
        inside = bucket == b
        drawn = y[kept][bucket[kept] == b]
        assert drawn.min() == y[inside].min() and drawn.max() == y[inside].max()
    np.testing.assert_array_equal(weights._log_envelope(x[:30], y[:30]), np.arange(30))  # one point per bucket


def test_an_active_set_step_line_keeps_its_steps():
    from teaching.figures import weights

    sizes = np.array([2, 3, 3, 3, 4, 4, 3, 3, 3, 5, 5])
    kept = weights._changes(sizes)
    np.testing.assert_array_equal(kept, [0, 1, 4, 6, 9, 10])
    x = np.arange(sizes.size)
    np.testing.assert_array_equal(sizes[kept][np.searchsorted(x[kept], x, side="right") - 1], sizes)  # shape "hv"


def test_a_figure_built_in_one_go_is_the_figure_finish_makes():
    from teaching.figures.base import built, finish, new_figure

    old = new_figure("t", "x", "y", xaxis_type="log")
    old.add_scatter(x=[1, 2], y=[3, 4], name="a")
    old.add_annotation(x=1, y=3, text="label")
    old = finish(old, legend_rows=2)
    new = built([dict(type="scatter", x=[1, 2], y=[3, 4], name="a")],
                {"title": {"text": "t"}, "xaxis": {"title": {"text": "x"}, "type": "log"},
                 "yaxis": {"title": {"text": "y"}}, "annotations": [dict(x=1, y=3, text="label")]}, legend_rows=2)
    assert new.to_plotly_json() == old.to_plotly_json()
