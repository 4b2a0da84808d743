"""No label of a figure runs into its title, on every screen a figure is drawn for: a phone
(teaching.figures.phone), the projector (presentation, and a lesson's stage at its height: fit_height) and a
screen without presentation. The IW-SMTGP lesson's "training region" label stood over the title on a phone: the
phone's layout left a row for labels above the plot only when they were placed in paper coordinates, not on the
top of the upper panel's domain (``yref="y domain"``).

The boxes are estimated from the layout as plotly places the texts (margins, anchors, pads, axis domains and
ranges) and from the font sizes, as the other figure tests estimate text sizes: a character 0.45 font sizes wide
(Chromium drew the lesson's title and labels at 0.43-0.44; the other tests' 0.55 bounds a title's wrapping), lines
1.3 font sizes apart (plotly's line spacing); the box of one line of a title 1.15 font sizes high, of an
annotation 1.2 font sizes and 2 px of padding (Chromium's boxes of the IW-SMTGP lesson's title and region labels:
16, 21 and 30 px at 14, 19 and 26 px; 17, 20 and 25 px at 12, 15 and 20 px). The boxes a browser draws are measured in tests/teaching/browser/test_devices_browser.py.
"""

import base64
import inspect
import re

import numpy as np
import pytest

from teaching import figures, lessons
from teaching.lessons import LessonRun, stage
from teaching.figures.screens import PHONE_WIDTH, PRESENTATION_WIDTH
from teaching.ui.cache import STAGE_HEIGHTS, STAGE_LEGEND_WIDTH
from tests.teaching.test_figure_fonts import _public_figure_functions, _small_inputs

CHAR, LINE = 0.45, 1.3
TITLE_LINE, ANNOTATION_LINE, ANNOTATION_PAD = 1.15, 1.2, 2
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


def _text_size(text, font, line_box):
    """(width, height) in px of ``text`` (plotly's <br> line breaks, other tags dropped) at ``font`` px, whose
    one line's box is ``line_box`` font sizes high."""
    lines = [re.sub(r"<[^>]*>", "", line) for line in re.split(r"<br\s*/?>", str(text))]
    return CHAR * font * max(len(line) for line in lines), font * (line_box + LINE * (len(lines) - 1))


def _span(position, size, anchor, low_side):
    """(low, high) of a box of ``size`` whose ``anchor`` (``low_side``: "left"/"top", the other side, or the
    middle) is at ``position``."""
    if anchor == low_side:
        return position, position + size
    if anchor in ("center", "middle"):
        return position - size / 2, position + size / 2
    return position - size, position


def _numbers(values):
    """The numbers of a trace's coordinates (plotly's typed arrays decoded; none for a missing or non-numeric one,
    e.g. category names)."""
    if isinstance(values, dict) and "bdata" in values:  # {"dtype": "f8", "bdata": base64, "shape": ...}
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).astype(float)
    try:
        return np.ravel(np.asarray(values, dtype=float))
    except (TypeError, ValueError):
        return np.array([])


class Frame:
    """Where a figure of ``width`` px places its plot area: px from the figure's top left corner."""

    def __init__(self, fig, width):
        layout, margin = fig.layout, fig.layout.margin
        self.fig, self.width, self.height = fig, width, layout.height or 450
        self.top = margin.t if margin.t is not None else 100
        bottom = margin.b if margin.b is not None else 80
        self.left = margin.l if margin.l is not None else 80
        right = margin.r if margin.r is not None else 80
        automargin = [layout[a] for a in layout if a.startswith("yaxis") and layout[a].automargin]
        if automargin:  # plotly widens the left margin to the tick labels (~5 characters) and the axis title
            axis = automargin[0]
            self.left = max(self.left, CHAR * (axis.tickfont.size or 12) * 5 + 4
                            + LINE * (axis.title.font.size or 12) + (axis.title.standoff or 0))
        self.plot_width = width - self.left - right
        self.plot_height = self.height - self.top - bottom

    def _axis_fraction(self, axis_name, value):
        """Where ``value`` of data axis ``axis_name`` ("xaxis2") lies in its range (0: start, 1: end)."""
        axis = self.fig.layout[axis_name]
        if axis.range is not None and None not in axis.range:
            low, high = axis.range
        else:  # autorange: the data of the traces on this axis
            letter, suffix = axis_name[0], axis_name[5:]
            values = np.concatenate([_numbers(trace[letter]) for trace in self.fig.data
                                     if (trace[f"{letter}axis"] or letter) == f"{letter}{suffix}"] or [np.array([0.0, 1.0])])
            if axis.type == "log":
                values = np.log10(values[values > 0])
            values = values[np.isfinite(values)]
            low, high = (values.min(), values.max()) if values.size else (0.0, 1.0)
        return (value - low) / ((high - low) or 1.0)

    def _paper(self, reference, value, letter):
        """``value`` in ``reference`` ("paper", "x2 domain", "y"; None: plotly's default, the first data axis) as
        a fraction of the plot area."""
        if reference == "paper":
            return value
        name = (reference or letter).split()[0]
        axis_name = f"{letter}axis{name[1:]}"
        low, high = self.fig.layout[axis_name].domain or (0, 1)
        fraction = value if (reference or "").endswith(" domain") else self._axis_fraction(axis_name, value)
        return low + fraction * (high - low)

    def x(self, reference, value):
        if reference == "container":
            return value * self.width
        return self.left + self._paper(reference, value, "x") * self.plot_width

    def y(self, reference, value):
        if reference == "container":
            return (1 - value) * self.height
        return self.top + (1 - self._paper(reference, value, "y")) * self.plot_height


def title_box(fig, frame):
    """(left, top, right, bottom) of the figure's title, or None."""
    title = fig.layout.title
    if not title.text:
        return None
    width, height = _text_size(title.text, title.font.size or fig.layout.font.size or 12, TITLE_LINE)
    x, y = title.x if title.x is not None else 0.5, title.y if title.y is not None else 0.97
    xanchor = title.xanchor if title.xanchor not in (None, "auto") else \
        ("left" if x < 1 / 3 else "right" if x > 2 / 3 else "center")
    yanchor = title.yanchor if title.yanchor not in (None, "auto") else ("top" if y > 0.5 else "bottom")
    left, right = _span(frame.x(title.xref or "container", x) + (title.pad.l or 0), width, xanchor, "left")
    pad = (title.pad.t or 0) if yanchor == "top" else -(title.pad.b or 0) if yanchor == "bottom" else 0
    top, bottom = _span(frame.y(title.yref or "container", y) + pad, height, yanchor, "top")
    return left, top, right, bottom


def annotation_box(fig, annotation, frame):
    """(left, top, right, bottom) of ``annotation``'s text, as plotly places it (its arrow's tail for an arrow)."""
    font = annotation.font.size or fig.layout.font.size or 12
    width, height = _text_size(annotation.text, font, ANNOTATION_LINE)
    height += ANNOTATION_PAD + 2 * ((annotation.borderpad or 1) - 1 + (annotation.borderwidth or 0))
    arrow = annotation.showarrow is not False
    x = frame.x(annotation.xref, annotation.x) + (annotation.xshift or 0)
    y = frame.y(annotation.yref, annotation.y) - (annotation.yshift or 0)
    if arrow:  # the text at the arrow's tail, ax and ay px away (plotly's defaults: -10, -30)
        x += annotation.ax if annotation.ax is not None else -10
        y += annotation.ay if annotation.ay is not None else -30

    def auto(anchor, value, reference, sides):
        if anchor not in (None, "auto"):
            return anchor
        if arrow or reference is None or reference != "paper" and not reference.endswith(" domain"):
            return sides[1]
        return sides[0] if value < 1 / 3 else sides[2] if value > 2 / 3 else sides[1]

    xanchor = auto(annotation.xanchor, annotation.x, annotation.xref, ("left", "center", "right"))
    yanchor = auto(annotation.yanchor, annotation.y, annotation.yref, ("bottom", "middle", "top"))
    left, right = _span(x, width, xanchor, "left")
    top, bottom = _span(y, height, yanchor, "top")
    return left, top, right, bottom


def _overlap(a, b, margin=1.0):
    """Whether boxes ``a`` and ``b`` overlap by more than ``margin`` px in both directions."""
    return a[0] < b[2] - margin and b[0] < a[2] - margin and a[1] < b[3] - margin and b[1] < a[3] - margin


def overlaps(fig, width, between_labels=False):
    """[(text, text, box, box)] of the labels (annotations) of ``fig`` that run into its title at ``width`` px
    (``between_labels``: also into each other)."""
    frame = Frame(fig, width)
    boxes = [(str(a.text), annotation_box(fig, a, frame)) for a in fig.layout.annotations if a.visible is not False]
    title = title_box(fig, frame)
    first = [(f"title {fig.layout.title.text!r}", title)] if title is not None else []
    pairs = [(t, b) for t in first for b in boxes]
    if between_labels:
        pairs += [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]]
    return [(a[0], b[0], tuple(round(v) for v in a[1]), tuple(round(v) for v in b[1]))
            for a, b in pairs if _overlap(a[1], b[1])]


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


@pytest.mark.parametrize("screen", ("phone", "presentation stage", "stage"))
@pytest.mark.parametrize("key", [lesson.key for lesson in lessons.LESSONS.values()])
def test_a_lessons_stage_figure_keeps_its_labels_apart_and_clear_of_its_title(key, screen):
    """Each lesson's stage figure (seed 0, as teaching.lessons.stage builds it from the lesson's view) on the
    screens a stage is drawn on: no label over the title nor over another label."""
    lesson = next(lesson for lesson in lessons.LESSONS.values() if lesson.key == key)
    width, lay_out = SCREENS[screen]
    fig = lay_out(stage.stage_figure(LessonRun(lesson, 0)).build())
    found = overlaps(fig, width, between_labels=True)
    assert not found, f"{key} on the {screen}: {found}"


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
