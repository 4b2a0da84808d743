"""The figures' plotly property paths are parsed once (teaching/figures/base.py): the same answers, the same figures."""

import json

import numpy as np
import plotly.basedatatypes

from teaching import figures
from teaching.figures import base

PATHS = ["", "title", "title_text", "title.font.size", "xaxis2.title_font_size", "marker_line_width", "error_x",
         "error_x_array", "annotations[0].font.size", "legend_font", "yaxis_type", "font__size", "_private", "a_"]


def test_the_remembered_parser_gives_plotlys_answers():
    parse = plotly.basedatatypes._str_to_dict_path_full
    assert parse.remembered is not None  # installed by importing teaching.figures
    original = parse.__wrapped__
    for path in PATHS:
        for _ in range(2):  # parsed, then remembered
            assert parse(path) == original(path), path


def test_a_caller_changing_its_answer_changes_no_other():
    parse = plotly.basedatatypes._str_to_dict_path_full
    first = parse("title.font.size")
    first[1].append(99)
    assert parse("title.font.size") == parse.__wrapped__("title.font.size")


def test_figures_are_the_same_with_plotlys_own_parser(monkeypatch):
    rng = np.random.default_rng(0)
    grid = np.linspace(-1, 2, 50)
    alphas = {"FCFWCS": (np.arange(20), np.where(rng.random(20) > 0.7, rng.random(20), 0.0)),
              "PFWCS": (np.arange(20), np.where(rng.random(20) > 0.5, rng.random(20), 0.0))}
    curves = {"FCFWCS": 1 + np.sin(grid), "RuLSIF": 1 + np.cos(grid)}
    x = rng.random(30)
    build = [lambda: figures.alpha_stems(alphas),
             lambda: figures.presentation(figures.weights_vs_truth(grid, curves, 1 + grid ** 2,
                                                                   errors=(x, {"FCFWCS": x + 1}, x + 0.5))),
             lambda: figures.phone(figures.alpha_stems(alphas))]
    remembered = [json.loads(make().to_json()) for make in build]
    monkeypatch.setattr(plotly.basedatatypes, "_str_to_dict_path_full",
                        plotly.basedatatypes._str_to_dict_path_full.__wrapped__)
    assert [json.loads(make().to_json()) for make in build] == remembered
    assert base.PROPERTY_PATHS >= 300
