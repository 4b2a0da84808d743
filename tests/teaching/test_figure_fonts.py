"""Every public figure of teaching.figures, built on small inputs, draws no text below 14 px, and
presentation() makes every text in it larger (a projector at 1280 x 800, a student in the back row)."""

import importlib
import importlib.util
import inspect
import json
import pathlib
import pkgutil

import numpy as np
import plotly.graph_objects as go
import pytest

from covshift import metrics
from covshift.data import sinc_shift
from covshift.transfer import CuttingPlaneHistory
from covshift.weights import FCFWCS, PFWCS
from teaching import figures, fits

MIN_FONT = 14
ROOT = pathlib.Path(__file__).resolve().parents[2]
NOT_FIGURES = {"first_component", "density",  # public helpers of the page modules that return arrays
               "convergence",  # the rows of a Frank-Wolfe history that the convergence figures draw
               # the replay is an HTML component, not a plotly figure: test_replay_text_is_at_least_14_px
               "replay_payload", "replay_html", "replay_height",
               "row_figure"}  # which figure function draws a Reproduction row, and its arguments


def _public_figure_functions():
    """Every public function of every page module of teaching.figures (all but base and screens, which lay figures
    out)."""
    names = set()
    for info in pkgutil.iter_modules(figures.__path__):
        if info.name in ("base", "screens"):
            continue
        module = importlib.import_module(f"teaching.figures.{info.name}")
        names |= {name for name, f in inspect.getmembers(module, inspect.isfunction)
                  if not name.startswith("_") and f.__module__ == module.__name__}
    return names - NOT_FIGURES


def _small_inputs():
    """name -> a function that builds that figure on small inputs, as its page would."""
    data = sinc_shift(n_tr=80, n_te=60, random_state=0)
    grid = np.linspace(-1, 2, 30)
    pf = PFWCS(sigma=0.3, tol=1e-4, max_iter=200).fit(data.X_tr, data.X_te)
    fc = FCFWCS(sigma=0.3).fit(data.X_tr, data.X_te)
    Y2 = np.column_stack([data.Y_te[:, 0], np.cos(data.X_te[:, 0])])
    predictions = {"GPR": {"mean": Y2, "std": np.full_like(Y2, 0.1), "certainty": None},
            "SMTGP": {"mean": Y2, "std": None, "certainty": np.linspace(0.1, 1, 60)}}
    rows = json.loads((ROOT / "assets" / "reproduction.json").read_text())["rows"]
    row = {kind: next(r for r in rows if r["figure"] == kind) for kind in ("bars", "curve", "gaps")}
    toy = fits.classification.classification_toy(n=120, seed=1)
    outcomes = fits.classification.fit_shift_classifiers(toy, kernel="linear", weights_name="LogisticRatio")
    xs, ys, scores, p_test = fits.classification.classification_grid(outcomes, toy, resolution=20)
    toy_weights = fits.classification.training_weights(outcomes)["integrated"]
    fig3 = json.loads((ROOT / "assets" / "classification_fig3.json").read_text())
    curves = json.loads((ROOT / "assets" / "transfer_curves.json").read_text())["multiclass"]
    rng = np.random.default_rng(0)
    history = CuttingPlaneHistory(np.array([0.5, 0.1, 1e-4]), np.array([1, 2, 3]), np.array([0.0, 0.2, 0.3]),
                                  np.array([0.01, 0.02, 0.03]))
    builders = {
        "input_densities": lambda: figures.input_densities(data.X_tr, data.X_te, np.ones(80)),
        "data_scatter": lambda: figures.data_scatter(data.X_tr, data.Y_tr, data.X_te, data.Y_te),
        "output_plane": lambda: figures.output_plane(Y2, Y2, {"GPR": Y2}),
        "shift_overview": lambda: figures.shift_overview(data.X_tr, data.Y_tr, data.X_te, data.Y_te, grid[:, None],
                                                         {"no weights": np.sinc(grid)}, focus=(0.5, 1.5)),
        "error_by_width": lambda: figures.error_by_width({0.3: {"no weights": 0.1, "true weights": 0.09},
                                                          2.0: {"no weights": 0.3, "true weights": 0.1}}, 2.0),
        "weights_vs_truth": lambda: figures.weights_vs_truth(grid, {"PFWCS": pf.predict_weights(grid[:, None])},
                                                             data.density_ratio(grid[:, None]),
                                                             errors=(data.X_tr[:, 0], {"PFWCS": pf.weights_},
                                                                     data.density_ratio(data.X_tr))),
        "weights_on_points": lambda: figures.weights_on_points(data.X_tr[:, 0], {"PFWCS": pf.weights_},
                                                               data.density_ratio(data.X_tr)),
        "weight_histogram": lambda: figures.weight_histogram({"PFWCS": pf.weights_}),
        "alpha_stems": lambda: figures.alpha_stems({"PFWCS": (pf.center_index_, pf.alpha_)}),
        "duality_gaps": lambda: figures.duality_gaps({"PFWCS": pf.history_, "FCFWCS": fc.history_}, levels=(1e-2, 1e-3)),
        "active_set_sizes": lambda: figures.active_set_sizes({"PFWCS": pf.history_}),
        "inner_iterations": lambda: figures.inner_iterations({"FCFWCS": fc.history_}),
        "cv_curve": lambda: figures.cv_curve(_cv_results(data)),
        "regression_fits": lambda: figures.regression_fits(data.X_te[:, 0], Y2, predictions,
                                                           labelled=(data.X_te[:3, 0], Y2[:3]),
                                                           ratio=(grid, data.density_ratio(grid[:, None]))),
        "error_vs_certainty": lambda: figures.error_vs_certainty(np.ones(60), np.linspace(0, 1, 60), "SMTGP"),
        "error_by_certainty_bin": lambda: figures.error_by_certainty_bin(
            metrics.certainty_error_bins(np.linspace(0, 1, 60), np.linspace(1, 0, 60) ** 2), "SMTGP"),
        "predicted_vs_true": lambda: figures.predicted_vs_true(Y2, {"GPR": Y2}),
        "digits_grid": lambda: figures.digits_grid(rng.uniform(size=(4, 48)), rng.uniform(size=(4, 16)),
                                                   {"GPR": rng.uniform(size=(4, 16))}, n_images=4),
        "scaling": lambda: figures.scaling({"PFWCS": ([100, 200, 400], [0.1, 0.3, 1.0])}),
        "reproduction_bars": lambda: figures.reproduction_bars(row["bars"]["full"]["metrics"],
                                                               row["bars"]["paper_values"], "bars"),
        "reproduction_curve": lambda: figures.reproduction_curve(row["curve"]["full"]["metrics"], "curve"),
        "reproduction_gaps": lambda: figures.reproduction_gaps(row["gaps"]["trace"]),
        "classification_map": lambda: figures.classification_map(
            toy.X_tr, toy.Y_tr, toy.X_te, toy.Y_te, xs, ys, scores, p_test, toy_weights, "integrated",
            true_boundary=fits.classification.classification_true_boundary(xs)),
        "fig3_curves": lambda: figures.fig3_curves(fig3),
        "transfer_curves": lambda: figures.transfer_curves(curves),
        "transfer_digit_grid": lambda: figures.transfer_digit_grid(
            rng.uniform(size=(10, 8, 8)), [str(i % 10) for i in range(10)],
            {"source only": ["1"] * 10, "domain transfer": [str(i % 10) for i in range(10)]}),
        "cutting_plane_progress": lambda: figures.cutting_plane_progress(history, 1e-3),
    }
    if importlib.util.find_spec("teaching.figures.check"):  # the Check your data page (another branch)
        from teaching.figures import check

        X = rng.normal(size=(50, 3))
        builders["null_distribution"] = lambda: check.null_distribution(rng.normal(size=200), 2.5, "mmd", 0.01)
        builders["shifted_inputs"] = lambda: check.shifted_inputs(X, X + 0.5, ["a", "b", "c"], [0, 2],
                                                                  [0.3, 0.1, 0.2])
    return builders


def _cv_results(data):
    return FCFWCS(sigma="auto").fit(data.X_tr, data.X_te).cv_results_


def font_sizes(node, path=""):
    """(path, size) of every font size set anywhere in a figure's JSON (layout, traces, frames)."""
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}.{key}"
            if key.endswith("font") and isinstance(value, dict) and "size" in value:
                for size in np.ravel(value["size"]):
                    yield where, float(size)
            yield from font_sizes(value, where)
    elif isinstance(node, (list, tuple)):
        for i, value in enumerate(node):
            yield from font_sizes(value, f"{path}[{i}]")


def required_fonts(fig):
    """Sizes the figure must set itself (Streamlit's chart theme would shrink the ones it leaves
    unset to 12 px): the base font, visible axes' tick labels and titles, the legend, annotations
    (subplot titles), colour bars."""
    layout = fig.layout
    required = {"layout.font": layout.font.size}
    if layout.showlegend is not False:
        required["layout.legend.font"] = layout.legend.font.size
    for name in [a for a in layout if a.startswith(("xaxis", "yaxis"))]:
        axis = layout[name]
        if axis.visible is not False:
            required[f"{name}.tickfont"] = axis.tickfont.size
            if axis.title.text:
                required[f"{name}.title.font"] = axis.title.font.size
    for i, annotation in enumerate(layout.annotations):
        required[f"annotations[{i}].font"] = annotation.font.size
    for i, trace in enumerate(fig.data):
        colorbar = getattr(getattr(trace, "marker", None), "colorbar", None) or getattr(trace, "colorbar", None)
        if getattr(trace, "showscale", None) is not False and colorbar is not None and colorbar.to_plotly_json():
            required[f"data[{i}].colorbar.tickfont"] = colorbar.tickfont.size
    return required


@pytest.fixture(scope="module")
def built():
    return {name: make() for name, make in _small_inputs().items() if make is not None}


def test_every_public_figure_function_is_built_here():
    assert set(_small_inputs()) == _public_figure_functions()


def test_replay_text_is_at_least_14_px_and_presentation_enlarges_it():
    """The replay draws its own SVG: its base font (CSS, px) times the smallest relative size of
    any of its texts (replay.js, em) is at least 14 px, and presentation mode scales all of it."""
    import re

    from teaching.figures import replay

    base = float(re.search(r"font-size:calc\((\d+(?:\.\d+)?)px\*var\(--scale\)\)", replay._CSS).group(1))
    script = replay.SCRIPT.read_text()
    relative = [float(v) for v in re.findall(r'font-size="([\d.]+)em"', script)]
    assert relative and not re.search(r'font-size="[\d.]+px"', script)  # every text is relative to the base
    assert base * min(relative) >= MIN_FONT, (base, min(relative))
    assert "--scale:1.0" in replay.replay_html({"meta": {"name": "PFWCS"}}, presentation=False)
    assert re.search(r"--scale:1\.[1-9]", replay.replay_html({"meta": {"name": "PFWCS"}}, presentation=True))


@pytest.mark.parametrize("name", sorted(_public_figure_functions()))
def test_no_text_below_14_px_and_presentation_enlarges_all_of_it(built, name):
    fig = built[name]
    assert isinstance(fig, go.Figure)
    missing = [where for where, size in required_fonts(fig).items() if size is None]
    assert not missing, f"{name}: font size left to the chart theme at {missing}"
    sizes = dict(font_sizes(fig.to_plotly_json()))
    small = {where: size for where, size in sizes.items() if size < MIN_FONT}
    assert not small, f"{name}: text below {MIN_FONT} px: {small}"
    big = dict(font_sizes(figures.presentation(fig).to_plotly_json()))
    not_larger = {where: (size, big.get(where)) for where, size in sizes.items()
                  if big.get(where) is None or big[where] <= size}
    assert not not_larger, f"{name}: presentation() leaves these sizes (before, after): {not_larger}"
    assert figures.presentation(fig).layout.font.size > fig.layout.font.size
