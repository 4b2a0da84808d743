"""Where plotly puts a figure's texts, estimated from the figure's layout as Chromium draws it here: the boxes
of its title and labels (annotations), its plot area (margins and plotly's automargin) and its tick labels, and the
checks tests/teaching/test_figure_text_overlap.py makes of them (texts that run into each other, a title outside
its margin, an axis title longer than its axis, tick labels that crowd).

The boxes are estimated from the layout as plotly places the texts (margins, automargin, anchors, pads, borders,
axis domains and ranges) and from the font sizes. A text is as wide as Chromium draws it here: plotly's font
("Open Sans", verdana, arial) is Liberation Sans, Arial's widths (:data:`WIDTHS`, in font sizes: "gap 0.0001" at
12 px 60 px, "2 atoms" 43 px, the IW-SMTGP lesson's "training region" 0.43 font sizes a character); lines 1.3 font
sizes apart (plotly's line spacing); the box of one line of a title 1.15 font sizes high, of an annotation 1.2 font
sizes and 2 px of padding, plus its border and border pad on each side (Chromium's boxes of the IW-SMTGP lesson's
title and region labels: 16, 21 and 30 px at 14, 19 and 26 px; 17, 20 and 25 px at 12, 15 and 20 px). Two boxes
run into each other when they are less than :data:`CLEARANCE` px apart. The boxes a browser draws are measured in
tests/teaching/browser/test_devices_browser.py.
"""

import base64
import re

import numpy as np

LINE = 1.3
TITLE_LINE, ANNOTATION_LINE, ANNOTATION_PAD = 1.15, 1.2, 2
#: Two texts less than this many px apart touch (Chromium draws a box's border and a label's descenders there).
CLEARANCE = 2
#: Arial's advance widths (Liberation Sans: the same metrics), in font sizes: each group of characters, its width.
WIDTHS = {" !,./:;I[\\]ijlft|": 0.278, "0123456789#$?L_abdeghnopqu": 0.556, "ckvxyzJsF": 0.5, "Z": 0.611,
          "\"": 0.355, "'": 0.191, "()-`r": 0.333, "*": 0.389, "+<=>~−±×≤≥": 0.584, "%": 0.889,
          "&ABEKPSVXY": 0.667, "CDHNRUw": 0.722, "GOQ": 0.778, "Mm": 0.833, "W": 0.944, "@": 1.015, "^": 0.469,
          "{}": 0.334, "–": 0.556, "—…": 1.0, "·": 0.333}
WIDTH = {character: width for characters, width in WIDTHS.items() for character in characters}
#: How far (font sizes) a title anchored at its top reaches above its anchor (its letters' ascent over the cap height).
TOP_ASCENT = 0.23
#: Any other character (Greek letters, check marks: Liberation Sans's or a fallback font's) and a superscript's size.
OTHER_WIDTH, SUPERSCRIPT = 0.6, 0.7


def text_width(line, font):
    """The width in px of one line of text at ``font`` px (a <sup>/<sub> part at 70 %, other tags dropped)."""
    width, scale = 0.0, 1.0
    for part in re.split(r"(<[^>]*>)", line):
        if part.startswith("<"):
            scale = SUPERSCRIPT if re.match(r"<su[bp]", part) else 1.0 if re.match(r"</su[bp]", part) else scale
        else:
            width += scale * sum(WIDTH.get(character, OTHER_WIDTH) for character in part)
    return width * font


def _text_size(text, font, line_box):
    """(width, height) in px of ``text`` (plotly's <br> line breaks) at ``font`` px, whose one line's box is
    ``line_box`` font sizes high."""
    lines = re.split(r"<br\s*/?>", str(text))
    return max(text_width(line, font) for line in lines), font * (line_box + LINE * (len(lines) - 1))


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


def _template(fig, name):
    """The figure's template's layout entry ``name`` ("yaxis"), e.g. plotly_white's automargin and title standoff."""
    template = fig.layout.template
    return template.layout[name] if template is not None and template.layout is not None else None


def _setting(fig, axis_name, path):
    """An axis's setting ``path`` ("title.standoff"), or its template's where the axis leaves it unset."""
    value = fig.layout[axis_name]
    for key in path.split("."):
        value = value[key] if value is not None else None
    if value is None:
        value = _template(fig, axis_name.rstrip("0123456789"))
        for key in path.split("."):
            value = value[key] if value is not None else None
    return value


def tick_labels(fig, axis_name, low, high):
    """The tick labels plotly writes on axis ``axis_name`` over its range (``low``, ``high``; log10 of the
    values on a log axis), as plotly's HTML: explicit ticktext, one power of ten per ``dtick`` decades on a log
    axis (10<sup>k</sup>, or 1e-k in the "e" format; 0.01 to 100 as numbers), or round steps of 1, 2 or 5 x 10^k
    (~6 of them) on a linear axis."""
    axis = fig.layout[axis_name]
    if axis.ticktext:
        return [str(text) for text in axis.ticktext]
    if axis.type == "category" or high < low:
        return []
    if axis.type == "log":
        step = int(axis.dtick) if isinstance(axis.dtick, (int, float)) and axis.dtick >= 1 else 1
        labels = []
        for k in range(int(np.ceil(low / step) * step), int(np.floor(high)) + 1, step):
            if -2 <= k <= 2 and (k >= 0 or axis.exponentformat == "e"):
                labels.append(f"{10.0 ** k:g}")
            else:
                labels.append(f"1e{k:+d}".replace("-", "−") if axis.exponentformat == "e" else f"10<sup>{k}</sup>")
        return labels
    rough = (high - low) / 6 or 1.0
    step = min((m * 10 ** np.floor(np.log10(rough)) for m in (1, 2, 5, 10)), key=lambda s: abs(s - rough))
    decimals = max(0, -int(np.floor(np.log10(step))))
    values = np.arange(np.ceil(low / step), np.floor(high / step) + 1) * step
    return [f"{v:.{decimals}f}".replace("-", "−") for v in values]


#: A power of ten's label (10<sup>k</sup>) is this many font sizes wider than its digits (Chromium: 2.39-2.41 font
#: sizes for 10^-2 at 15 and 20 px, its digits 1.91).
POWER_SPACE = 0.48


def _tick_width(fig, axis_name, labels):
    """The width (px) of the widest of ``labels`` at the axis's tick font."""
    font = _setting(fig, axis_name, "tickfont.size") or fig.layout.font.size or 12
    power = POWER_SPACE * font if fig.layout[axis_name].exponentformat == "power" else 0.0
    return max((text_width(label, font) + (power if "<sup>" in label else 0.0) for label in labels), default=0.0)


class Frame:
    """Where a figure of ``width`` px places its plot area: px from the figure's top left corner."""

    def __init__(self, fig, width):
        layout, margin = fig.layout, fig.layout.margin
        self.fig, self.width, self.height = fig, width, layout.height or 450
        self.top = margin.t if margin.t is not None else 100
        bottom = margin.b if margin.b is not None else 80
        self.left = margin.l if margin.l is not None else 80
        right = margin.r if margin.r is not None else 80
        self.left = max([self.left] + [self.automargin_left(name) for name in layout
                                       if name.startswith("yaxis") and layout[name].overlaying is None
                                       and layout[name].side != "right"])
        self.plot_width = width - self.left - right
        bottom_axes = [name for name in layout if name.startswith("xaxis") and layout[name].overlaying is None
                       and layout[name].side != "top" and min(self._counter_domain(name)) < 1e-9]
        self.bottom = max([bottom] + [self.automargin_bottom(name) for name in bottom_axes])
        self.plot_height = self.height - self.top - self.bottom

    def _counter_domain(self, axis_name):
        """The domain of the axis that ``axis_name`` is drawn along (an x axis's y axis)."""
        anchor = self.fig.layout[axis_name].anchor or "y"
        if anchor == "free":
            return (0, 1)
        return self.fig.layout[f"yaxis{anchor[1:]}"].domain or (0, 1)

    def automargin_bottom(self, axis_name):
        """The bottom margin plotly's automargin makes room in for a bottom x axis's tick labels (slanted by
        ``tickangle``: w sin + h cos of each) and its title, and for a legend in the margin below them
        (plotly_white's automargin; the legend: its rows at ~1.6 font sizes, as teaching.figures lays them)."""
        fig = self.fig
        if not _setting(fig, axis_name, "automargin"):
            return 0.0
        axis = fig.layout[axis_name]
        font = _setting(fig, axis_name, "tickfont.size") or fig.layout.font.size or 12
        labels = tick_labels(fig, axis_name, *self.range(axis_name)) if axis.type != "category" and not \
            self._categories(axis_name) else [str(t) for t in (axis.ticktext or self._categories(axis_name))]
        angle = np.radians(abs(axis.tickangle or 0)) if isinstance(axis.tickangle, (int, float)) else 0.0
        heights = [max(text_width(line, font) for line in re.split(r"<br\s*/?>", label)) * np.sin(angle)
                   + font * (TITLE_LINE + LINE * label.count("<br>")) * np.cos(angle) for label in labels]
        height = max(heights, default=0.0) + 3
        if axis.title.text:
            size = _setting(fig, axis_name, "title.font.size") or fig.layout.font.size or 12
            height += 2 + TITLE_LINE * size + (_setting(fig, axis_name, "title.standoff") or 0)
        return height

    def _categories(self, axis_name):
        """The category names on x axis ``axis_name`` (its traces' x values that are not numbers), in order."""
        suffix = axis_name[5:]
        names = []
        for trace in self.fig.data:
            if (trace.xaxis or "x") == f"x{suffix}" and trace.x is not None and not isinstance(trace.x, dict):
                names += [str(v) for v in trace.x if isinstance(v, str) and str(v) not in names]
        return names

    def automargin_left(self, axis_name):
        """The left margin plotly's automargin (the axis's or its template's, plotly_white's) makes room in for
        the axis's tick labels and its title, standing ``title.standoff`` px from them (Chromium: the plot area
        75, 91 and 46 px from the left of the KLIEP lesson's figure at 15, 20 and 11 px tick labels)."""
        fig = self.fig
        if not _setting(fig, axis_name, "automargin") or fig.layout[axis_name].showticklabels is False:
            return 0.0
        width = _tick_width(fig, axis_name, tick_labels(fig, axis_name, *self.range(axis_name)))
        title = fig.layout[axis_name].title
        if title.text:
            size = _setting(fig, axis_name, "title.font.size") or fig.layout.font.size or 12
            lines = str(title.text).count("<br>") + 1
            width += 2 + 1.1 * size * lines + (_setting(fig, axis_name, "title.standoff") or 0)
        return width + 3

    def range(self, axis_name):
        """(low, high) of data axis ``axis_name`` ("xaxis2"): its range, else its traces' data (log10 of them on
        a log axis)."""
        axis = self.fig.layout[axis_name]
        if axis.range is not None and None not in axis.range:
            return tuple(axis.range)
        letter, suffix = axis_name[0], axis_name[5:]
        values = np.concatenate([_numbers(trace[letter]) for trace in self.fig.data
                                 if (trace[f"{letter}axis"] or letter) == f"{letter}{suffix}"]
                                or [np.array([0.0, 1.0])])
        if axis.type == "log":
            values = np.log10(values[values > 0])
        values = values[np.isfinite(values)]
        return (values.min(), values.max()) if values.size else (0.0, 1.0)

    def _axis_fraction(self, axis_name, value):
        """Where ``value`` of data axis ``axis_name`` ("xaxis2") lies in its range (0: start, 1: end)."""
        low, high = self.range(axis_name)
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
    if yanchor == "top":  # plotly sets a title's first line at its top and moves a wrapped one up by half a line for
        # each line after the first (Chromium: a title of 1 and 2 lines at 26 px 6 px above and 24 px above its anchor)
        font = title.font.size or fig.layout.font.size or 12
        shift = TOP_ASCENT * font + LINE / 2 * font * str(title.text).count("<br>")
        top, bottom = top - shift, bottom - shift
    return left, top, right, bottom


def annotation_box(fig, annotation, frame):
    """(left, top, right, bottom) of ``annotation``'s text, as plotly places it (its arrow's tail for an arrow)."""
    font = annotation.font.size or fig.layout.font.size or 12
    width, height = _text_size(annotation.text, font, ANNOTATION_LINE)
    border = annotation.borderwidth or 0
    pad = annotation.borderpad if annotation.borderpad is not None else 1
    width += 2 * (pad + border)  # plotly's box: the text, its border pad and its border on each side
    height += ANNOTATION_PAD + 2 * (pad - 1 + border)
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


def _overlap(a, b, clearance=CLEARANCE):
    """Whether boxes ``a`` and ``b`` are less than ``clearance`` px apart in both directions (overlap or touch)."""
    return a[0] < b[2] + clearance and b[0] < a[2] + clearance and a[1] < b[3] + clearance and b[1] < a[3] + clearance


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


def title_outside(fig, width):
    """What of the title lies outside the figure's top margin (above the figure, past its right edge, or into the
    plot area), or None."""
    frame = Frame(fig, width)
    box = title_box(fig, frame)
    if box is None:
        return None
    if box[1] < 0:
        return f"title {fig.layout.title.text!r} {-box[1]:.0f} px above the figure"
    if box[2] > width:
        return f"title {fig.layout.title.text!r} {box[2] - width:.0f} px past the figure's right edge"
    if box[3] > frame.top + CLEARANCE:
        return f"title {fig.layout.title.text!r} {box[3] - frame.top:.0f} px into the plot area"
    return None


def axis_titles_too_long(fig, width):
    """[(axis, title, its length, the axis's length)] of the axis titles longer than their axis (px): a y title
    longer than its panel's height runs into the title or the legend above the plot."""
    frame, found = Frame(fig, width), []
    for name in [a for a in fig.layout if a.startswith(("xaxis", "yaxis")) and fig.layout[a].title.text]:
        axis = fig.layout[name]
        size = _setting(fig, name, "title.font.size") or fig.layout.font.size or 12
        length = max(text_width(line, size) for line in re.split(r"<br\s*/?>", str(axis.title.text)))
        low, high = axis.domain or (0, 1)
        room = (high - low) * (frame.plot_height if name.startswith("y") else frame.plot_width)
        if length > room:
            found.append((name, str(axis.title.text), round(length), round(room)))
    return found


def crowded_log_ticks(fig, width):
    """[(axis, px between its labels, a label's height)] of the log y axes whose tick labels (one per dtick
    decades) stand closer than their own height: they run into each other."""
    frame, found = Frame(fig, width), []
    for name in [a for a in fig.layout if a.startswith("yaxis") and fig.layout[a].type == "log"]:
        axis = fig.layout[name]
        low, high = frame.range(name)
        labels = tick_labels(fig, name, low, high)
        if len(labels) < 2:
            continue
        step = int(axis.dtick) if isinstance(axis.dtick, (int, float)) and axis.dtick >= 1 else 1
        domain_low, domain_high = axis.domain or (0, 1)
        apart = step / ((high - low) or 1.0) * (domain_high - domain_low) * frame.plot_height
        font = _setting(fig, name, "tickfont.size") or fig.layout.font.size or 12
        height = font * (TITLE_LINE + (POWER_RAISE if any("<sup>" in label for label in labels) else 0))
        if apart < height:
            found.append((name, round(apart), round(height)))
    return found


def crowded_category_ticks(fig, width):
    """[(axis, px from one name to the next, what one needs)] of the category x axes whose names run into each
    other: upright, wider than the room of a category; slanted by ``tickangle``, the names' lines thicker than
    the distance between two names across the slant."""
    frame, found = Frame(fig, width), []
    for name in [a for a in fig.layout if a.startswith("xaxis")]:
        axis = fig.layout[name]
        labels = [str(t) for t in (axis.ticktext or frame._categories(name))] if (
            axis.type == "category" or frame._categories(name)) else []
        if len(labels) < 2:
            continue
        font = _setting(fig, name, "tickfont.size") or fig.layout.font.size or 12
        low, high = axis.domain or (0, 1)
        room = (high - low) * frame.plot_width / len(labels)
        angle = np.radians(abs(axis.tickangle or 0)) if isinstance(axis.tickangle, (int, float)) else 0.0
        if angle == 0:
            needed = max(max(text_width(line, font) for line in re.split(r"<br\s*/?>", label)) for label in labels)
            apart = room
        else:
            needed = max(font * (TITLE_LINE + LINE * label.count("<br>")) for label in labels)
            apart = room * np.sin(angle)
        if apart < needed + CLEARANCE:
            found.append((name, round(apart), round(needed)))
    return found


#: A power of ten's label stands this many font sizes higher than a plain one (its raised exponent).
POWER_RAISE = 0.3
