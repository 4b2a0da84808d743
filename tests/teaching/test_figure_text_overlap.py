"""No label of a figure runs into its title, on every screen a figure is drawn for: a phone
(teaching.figures.phone), the projector (presentation, and a lesson's stage at its height: fit_height) and a
screen without presentation. The IW-SMTGP lesson's "training region" label stood over the title on a phone: the
phone's layout left a row for labels above the plot only when they were placed in paper coordinates, not on the
top of the upper panel's domain (``yref="y domain"``). A lesson's stage figure also keeps its labels apart: the
KLIEP lesson's "2 atoms" box touched the "gap 0.0001" label on a phone (seed 0, Chromium: 4 px into it). Every
title stays inside the figure's top margin; the Reproduction page's figures also keep their axis titles and tick
labels readable. How the boxes are estimated: tests/teaching/figure_text.py.
"""

import inspect
import json
import pathlib
import re

import pytest

from teaching import figures, lessons
from teaching.lessons import LessonRun, stage
from teaching.figures.screens import PHONE_WIDTH, PRESENTATION_WIDTH
from teaching.ui.cache import STAGE_HEIGHTS, STAGE_LEGEND_WIDTH
from tests.teaching.figure_text import (LINE, Frame, _tick_width, annotation_box, axis_titles_too_long,
                                        crowded_category_ticks, crowded_log_ticks, overlaps, text_width,
                                        title_outside)
from tests.teaching.test_figure_fonts import _public_figure_functions, _small_inputs

#: The width (px) of a lesson's stage figure at 1280 x 800 (measured in Chromium: 484 px without presentation, 664 px with it).
STAGE_WIDTH, PRESENTATION_STAGE_WIDTH = 484, 664
#: Each screen: (the figure's width in px, the figure laid out for it as the app lays it out, teaching.ui.cache).
SCREENS = {
    "phone": (PHONE_WIDTH, lambda fig: figures.phone(fig)),
    "presentation": (PRESENTATION_WIDTH, lambda fig: figures.presentation(fig)),
    "presentation stage": (PRESENTATION_STAGE_WIDTH, lambda fig: figures.fit_height(figures.presentation(fig),
                                                                                STAGE_HEIGHTS[True], STAGE_LEGEND_WIDTH)),
    "screen": (700, lambda fig: fig),
    "stage": (STAGE_WIDTH, lambda fig: figures.fit_height(fig, STAGE_HEIGHTS[False])),
}


@pytest.fixture(scope="module")
def small():
    return {name: make() for name, make in _small_inputs().items()}


#: The figure functions lessons' stages draw (teaching.lessons.stage): the only ones laid out at a stage's height.
STAGE_FIGURES = set(re.findall(r"figures\.(\w+)\(?", inspect.getsource(stage))) & _public_figure_functions()
#: The screens of every figure: the stages' only for STAGE_FIGURES.
PAGE_SCREENS = ("phone", "presentation", "screen")


@pytest.mark.parametrize("name,screen", [(name, screen) for name in sorted(_public_figure_functions())
                                         for screen in sorted(SCREENS)
                                         if screen in PAGE_SCREENS or name in STAGE_FIGURES])
def test_no_label_runs_into_the_title(small, name, screen):
    width, lay_out = SCREENS[screen]
    fig = lay_out(small[name])
    assert not overlaps(fig, width), f"{name} on the {screen}: {overlaps(fig, width)}"
    assert title_outside(fig, width) is None, f"{name} on the {screen}: {title_outside(fig, width)}"


@pytest.mark.parametrize("seed", (0, 1, 2))
@pytest.mark.parametrize("screen", ("phone", "presentation stage", "stage"))
@pytest.mark.parametrize("key", [lesson.key for lesson in lessons.LESSONS.values()])
def test_a_lessons_stage_figure_keeps_its_labels_apart_and_clear_of_its_title(key, screen, seed):
    """Each lesson's stage figure (seeds 0-2, as teaching.lessons.stage builds it from the lesson's view) on the
    screens a stage is drawn on: no label over the title nor over another label, none closer than CLEARANCE px."""
    lesson = next(lesson for lesson in lessons.LESSONS.values() if lesson.key == key)
    width, lay_out = SCREENS[screen]
    fig = lay_out(stage.stage_figure(LessonRun(lesson, seed)).build())
    found = overlaps(fig, width, between_labels=True)
    assert not found, f"{key}, seed {seed}, on the {screen}: {found}"


def test_the_stage_figures_are_known():
    assert {"regression_fits", "shift_overview", "duality_gaps", "weights_vs_truth",
            "classification_map"} <= STAGE_FIGURES


def test_the_estimate_finds_the_region_label_over_the_title_as_the_phone_drew_it_before():
    """The IW-SMTGP lesson's stage figure (seed 0) in the phone's layout before the fix (no row for the labels on
    the upper panel's domain): the estimate sees the overlap Chromium drew (title 492-508 px and "training region"
    498-515 px from the page's top, 20-199 and 110-189 px from its left)."""
    fig = figures.phone(stage.stage_figure(LessonRun(lessons.IW_SMTGP, 0)).build())
    title_rows = 16 + round(LINE * fig.layout.title.font.size)  # as screens.phone counts them
    fig.layout.margin.t = title_rows  # as before: the title's rows only
    fig.layout.title.y = 1 - (title_rows / 2 + 2) / fig.layout.height
    found = overlaps(fig, PHONE_WIDTH)
    assert any(label == "training region" for _, label, *_ in found), found


def test_the_estimate_finds_the_atoms_label_on_the_gap_label_as_the_phone_drew_it_before():
    """The KLIEP lesson's stage figure (seed 0) on a phone with its first "n atoms" label straight below its ring,
    45 px down, as before the fix: the estimate sees what Chromium drew, "2 atoms" (94-141 x 244-262 px from the
    figure's top left) 4.5 px into "gap 0.0001" (46.5-109.5 x 231.5-248.5). Before, the estimate took a character as
    0.45 font sizes and left out the box's border and border pad: "gap 0.0001" 54 px wide instead of 63, so the two
    boxes stood 4 px apart."""
    fig = figures.phone(stage.stage_figure(LessonRun(lessons.KLIEP_SOLVERS, 0)).build())
    first = next(a for a in fig.layout.annotations if str(a.text) == "2 atoms")
    first.update(ax=0, ay=45)
    found = overlaps(fig, PHONE_WIDTH, between_labels=True)
    assert [(a, b) for a, b, *_ in found] == [("2 atoms", "gap 0.0001")], found
    frame = Frame(fig, PHONE_WIDTH)
    gap_label = next(a for a in fig.layout.annotations if str(a.text) == "gap 0.0001")
    left, top, right, bottom = annotation_box(fig, gap_label, frame)
    assert right - left == pytest.approx(63, abs=2) and bottom - top == pytest.approx(17, abs=1.5)
    left, top, right, bottom = annotation_box(fig, first, frame)
    assert right - left == pytest.approx(49, abs=2) and bottom - top == pytest.approx(20, abs=1.5)


def test_the_texts_are_as_wide_as_chromium_draws_them():
    """Widths Chromium drew (Liberation Sans): the KLIEP lesson's labels at 12 px, the IW-SMTGP lesson's "training
    region" at 15 px (0.43 font sizes a character), a power of ten's tick label at 15 and 20 px."""
    assert text_width("gap 0.0001", 12) == pytest.approx(60, abs=1.5)
    assert text_width("2 atoms", 12) == pytest.approx(43, abs=1.5)
    assert text_width("training region", 15) / 15 / 15 == pytest.approx(0.43, abs=0.01)
    fig = figures.phone(stage.stage_figure(LessonRun(lessons.KLIEP_SOLVERS, 0)).build())
    assert _tick_width(fig, "yaxis", ["1e−8"]) == pytest.approx(24.8, abs=1)


#: The rows of the Reproduction page (assets/reproduction.json) whose figure it draws: bars, curves, gaps.
REPRODUCTION_ROWS = json.loads((pathlib.Path(__file__).resolve().parents[2] / "assets" / "reproduction.json")
                               .read_text())["rows"]


#: The width (px) of a figure of the Reproduction page (its left column, 3 of 5 parts) on each screen (Chromium at
#: 1280 x 800: 484 px, 664 px in presentation mode; a phone's whole width).
REPRODUCTION_WIDTHS = {"phone": PHONE_WIDTH, "presentation": 664, "screen": 484}


@pytest.mark.parametrize("screen", PAGE_SCREENS)
@pytest.mark.parametrize("index", range(len(REPRODUCTION_ROWS)))
def test_a_reproduction_figure_reads_cleanly_on_every_screen(index, screen):
    """Each figure of the Reproduction page, as the page draws it (teaching.figures.row_figure: its title, its
    bars' names), on a phone, the projector and a screen: its title inside the figure's top margin, its labels
    apart, its axis titles no longer than their axes, its tick labels apart. In presentation mode a wrapped title
    stood half a line above the figure, "value (mean ± sd over seeds)" (292 px) stood along a plot 195-276 px high
    and the duality gaps' 17 labels of 10^k ran into each other."""
    row = REPRODUCTION_ROWS[index]
    width, lay_out = REPRODUCTION_WIDTHS[screen], SCREENS[screen][1]
    make_figure, args = figures.row_figure(row)
    fig = lay_out(make_figure(*args))
    where = f"{row['key']} on the {screen}"
    assert title_outside(fig, width) is None, f"{where}: {title_outside(fig, width)}"
    assert not overlaps(fig, width, between_labels=True), f"{where}: {overlaps(fig, width, between_labels=True)}"
    assert not axis_titles_too_long(fig, width), f"{where}: {axis_titles_too_long(fig, width)}"
    assert not crowded_log_ticks(fig, width), f"{where}: {crowded_log_ticks(fig, width)}"
    assert not crowded_category_ticks(fig, width), f"{where}: {crowded_category_ticks(fig, width)}"
