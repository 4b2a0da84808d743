"""Styles, layout and formatting every figure shares: one colour, marker and dash per method, the plotly template, presentation mode."""

import copy
import functools

import numpy as np
import plotly.basedatatypes
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from teaching.numbers import format_number, format_p  # noqa: F401  (figures.format_number for pages)

TRAIN, TEST, TRUTH = "#0072B2", "#D55E00", "#000000"
#: name -> (colour, marker symbol, line dash). Colours from the Okabe-Ito and Paul Tol palettes; the eight
#: estimators of the "Estimators disagree" lesson are chosen so that every pair differs by CIELAB
#: Delta E >= 20 in normal, deuteranopic and protanopic vision (Machado et al. 2009 simulation;
#: tests/teaching/test_figure_colours.py), and no two share a marker; the three it draws as curves (FCFWCS pink,
#: LogisticRatio green, RuLSIF indigo) differ in hue by at least 60 degrees and have 3:1 contrast on white.
#: The classifiers' boundaries (iid grey, two-stage indigo, integrated pink) keep 3:1 contrast on white, the
#: halo they are drawn on (tests/teaching/test_lesson_figures.py).
METHOD_STYLES = {
    "KLIEP": ("#999999", "circle", "solid"), "FWCS": ("#E69F00", "square", "dot"),
    "AFWCS": ("#56B4E9", "triangle-up", "dash"), "PFWCS": ("#009E73", "diamond", "longdash"),
    "FCFWCS": ("#CC79A7", "star", "solid"), "KMM": ("#0072B2", "circle", "dash"),
    "ENSKMM": ("#56B4E9", "square", "dot"), "ENSTRKMM": ("#E69F00", "triangle-down", "dashdot"),
    "VFKMM": ("#DDCC77", "cross", "longdash"), "EVFKMM": ("#882255", "x", "longdashdot"),
    "LogisticRatio": ("#117733", "hexagon", "dash"), "RuLSIF": ("#332288", "pentagon", "longdash"),
    "uLSIF": ("#882255", "hourglass", "dashdot"),
    "GPR": ("#999999", "circle", "dash"), "WKNN": ("#E69F00", "square", "dot"),
    "KLTGP": ("#56B4E9", "triangle-up", "dashdot"), "IKLTGP": ("#F0E442", "triangle-down", "longdash"),
    "SMTGP": ("#009E73", "diamond", "solid"), "IW-GPR": ("#332288", "circle-open", "dot"),
    "IW-KLTGP": ("#0072B2", "triangle-up-open", "longdashdot"), "IW-SMTGP": ("#CC79A7", "star", "solid"),
    "no adaptation": ("#999999", "circle", "dash"), "importance weighting": ("#009E73", "diamond", "solid"),
    "delta adaptation": ("#CC79A7", "star", "dot"),
    "no weights": ("#999999", "circle", "dash"), "true weights": ("#000000", "x", "dot"),
    "estimated weights": ("#CC79A7", "star", "solid"),
    # Classification under shift: a classifier's dash says its kind (iid dot, two-stage dash, integrated solid)
    "iid": ("#777777", "circle", "dot"), "integrated": ("#CC79A7", "star", "solid"),
    "two-stage LogisticRatio": ("#332288", "hexagon", "dash"), "two-stage FCFWCS": ("#009E73", "diamond", "dash"),
    "two-stage KMM": ("#882255", "square", "dash"),
    # Domain transfer
    "source only": ("#999999", "circle", "dash"), "target only": ("#E69F00", "square", "dot"),
    "pooled": ("#56B4E9", "triangle-up", "dashdot"), "domain transfer": ("#CC79A7", "star", "solid"),
}
STEP_MARKERS = {"drop": "x-thin-open", "swap": "diamond-open"}
BASE_FONT, TITLE_FONT = 15, 19
LAYOUT = dict(template="plotly_white", font=dict(size=BASE_FONT),
               margin=dict(l=70, r=30, t=70, b=40),
               title=dict(y=0.97, yanchor="top", x=0.01, font=dict(size=TITLE_FONT)),
               legend=dict(orientation="h", yanchor="top", y=-0.2, x=0, font=dict(size=BASE_FONT)))
HEIGHT = 430
#: plotly_white, whose trace defaults a figure takes for the trace types it draws (:func:`only_used_template`).
FULL_TEMPLATE = pio.templates[LAYOUT["template"]]
#: What every go.Figure of the app starts from, unvalidated: plotly's default template. Only the layout:
#: building plotly_white's trace defaults for 24 trace types in every new figure, and cutting them off again,
#: cost ~7 ms per figure.
START_TEMPLATE = go.layout.Template(layout=FULL_TEMPLATE.layout)


def _start_template():
    """Make :data:`START_TEMPLATE` plotly's default (again): importing Streamlit after this module sets its own
    "streamlit" template as the default, which every figure would then start from."""
    if pio.templates.default is not START_TEMPLATE:
        pio.templates.default = START_TEMPLATE


_start_template()


def subplots(**grid):
    """:func:`plotly.subplots.make_subplots` (``grid``: its keyword arguments), from the app's template."""
    _start_template()
    return make_subplots(**grid)


def _remember_property_paths(parse):
    """plotly's parser of a property path ("marker.line.width", "title_font_size": dots, brackets and magic
    underscores), remembering each path's answer: a pure function of the string, called for every property of every
    update (``update_layout``, ``update_xaxes``, ``add_scatter(row=, col=)``, ...), which re-parsed the same few
    hundred paths tens of thousands of times: ~30 % of building a figure. The same answers (the element indices, a
    list, copied for each caller), so the same figures (tests/teaching/test_figure_paths.py)."""
    remembered = functools.lru_cache(maxsize=PROPERTY_PATHS)(parse)

    @functools.wraps(parse)
    def parsed(key_path_str):
        path, element_indices = remembered(key_path_str)
        return path, list(element_indices)

    parsed.remembered = remembered
    return parsed


#: Property paths remembered (the app's figures use ~300 distinct ones).
PROPERTY_PATHS = 4096
if not hasattr(plotly.basedatatypes._str_to_dict_path_full, "remembered"):  # once, also if this module is reloaded
    plotly.basedatatypes._str_to_dict_path_full = _remember_property_paths(plotly.basedatatypes._str_to_dict_path_full)
#: LAYOUT without its template: every new figure gets the template as plotly's default.
STYLE = {key: value for key, value in LAYOUT.items() if key != "template"}


def color(name):
    """The colour of a method (grey for unknown names)."""
    return style(name)["color"]


#: name -> colour, for every method with a style and for pages that add their own names.
METHOD_COLORS = {name: colour for name, (colour, _, _) in METHOD_STYLES.items()}


def style(name):
    """{'color', 'symbol', 'dash'} of a method: the same in every figure."""
    colour, symbol, dash = METHOD_STYLES.get(name, (METHOD_COLORS.get(name, "#777777"), "circle", "solid"))
    return {"color": colour, "symbol": symbol, "dash": dash}


def line_style(name, width=3):
    s = style(name)
    return dict(color=s["color"], dash=s["dash"], width=width)


def marker_style(name, size=8, **extra):
    s = style(name)
    return dict(color=s["color"], symbol=s["symbol"], size=size, **extra)


#: A log axis's ticks (:func:`clean_log_axis` without a span of decades): one per decade, labelled 10^k.
LOG_TICKS = {"dtick": 1, "exponentformat": "power", "minor": {"showgrid": False}}


def clean_log_axis(axis, decades=None):
    """Major ticks only (one per decade, every second one beyond 6 decades) with 10^k labels,
    no "5 6 7 8 9" minor labels."""
    axis.update({**LOG_TICKS, "dtick": 2 if decades and decades > 6 else 1})


def _axis_names(fig):
    """The figure's x and y axes by name ("xaxis", "yaxis2", ...), as ``update_xaxes`` / ``update_yaxes`` select them."""
    return [name for name in fig.layout if name.startswith(("xaxis", "yaxis")) and fig.layout[name] is not None]


def decades(values):
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    return float(np.log10(values.max() / values.min())) if values.size else 0.0


def finish(fig, height=HEIGHT, legend_rows=1):
    """Apply the common layout: every figure of the app ends here.

    Base font 15 px and explicit sizes for every text (axis ticks and titles, legend, annotations
    such as subplot titles, colour bars: Streamlit's chart theme would shrink unset ones to 12 px),
    log axes with major ticks only; the legend sits below the x-axis title.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Changed in place.
    height : int
        Height of the plot area and titles in px, without the legend.
    legend_rows : int
        Rows of legend entries to leave room for below the plot (0: no legend).

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.
    """
    # one update of the layout, every axis by its name: update_xaxes / update_yaxes would each select the axes and
    # update them one by one, and a log axis's ticks would be a third pass (each pass validates the whole path again)
    fig.update_layout(_finishing({name: fig.layout[name].type for name in _axis_names(fig)}, height, legend_rows))
    for annotation in fig.layout.annotations:  # subplot titles, line labels
        if annotation.font.size is None:
            annotation.font.size = BASE_FONT
    for colorbar in _colorbars(fig):
        colorbar.tickfont.size = BASE_FONT
        colorbar.title.font.size = BASE_FONT
    return only_used_template(fig)


#: What :func:`finish` sets on every x and y axis.
_AXIS_FINISH = {"x": {"title": {"standoff": 8, "font": {"size": BASE_FONT + 1}}, "tickfont": {"size": BASE_FONT}},
                "y": {"title": {"font": {"size": BASE_FONT + 1}}, "tickfont": {"size": BASE_FONT}}}


def _finishing(axis_types, height, legend_rows):
    """The layout :func:`finish` gives a figure whose axes are ``axis_types`` ({"xaxis": "log", "yaxis2": None, ...})."""
    axes = {name: {**_AXIS_FINISH[name[0]], **(LOG_TICKS if kind == "log" else {})} for name, kind in axis_types.items()}
    return {**STYLE, "height": height + 30 * legend_rows, "margin": {**STYLE["margin"], "b": 80 + 30 * legend_rows},
            **axes}


def merged(base, patch):
    """``base`` updated by ``patch`` as ``update_layout`` does: nested dicts merged, other values replaced (new dicts)."""
    result = dict(base)
    for key, value in patch.items():
        result[key] = merged(result[key], value) if isinstance(value, dict) and isinstance(result.get(key), dict) \
            else value
    return result


def built(data, layout, height=HEIGHT, legend_rows=1):
    """A figure in the common style and finished as :func:`finish` finishes it, built in one go from plain dicts.

    ``data``: the traces, each a dict with its ``type``; ``layout``: plotly's nested dicts (no template; a grid of
    panels from :func:`subplot_layout`). Validating each property once when the figure is made costs a quarter of
    adding traces one by one and updating the layout of a made figure (each call walks and validates its paths
    again): ~5 instead of ~20 ms for a figure of the KLIEP lesson. ``height``, ``legend_rows``: as :func:`finish`.
    """
    _start_template()
    axis_types = {"xaxis": None, "yaxis": None}  # a figure always has its first axes
    axis_types.update({name: (value or {}).get("type") for name, value in layout.items()
                       if name.startswith(("xaxis", "yaxis"))})
    layout = merged(layout, _finishing(axis_types, height, legend_rows))
    if layout.get("annotations"):  # subplot titles, line labels: as finish
        layout["annotations"] = [annotation if (annotation.get("font") or {}).get("size") is not None
                                 else merged(annotation, {"font": {"size": BASE_FONT}})
                                 for annotation in layout["annotations"]]
    fig = go.Figure(data=data, layout=layout)
    for colorbar in _colorbars(fig):
        colorbar.tickfont.size = BASE_FONT
        colorbar.title.font.size = BASE_FONT
    return only_used_template(fig)


@functools.lru_cache(maxsize=32)
def _grid_layout(grid):
    fig = subplots(**{key: list(value) if isinstance(value, tuple) else value for key, value in grid})
    layout = fig.layout.to_plotly_json()
    layout.pop("template", None)
    return layout


def subplot_layout(subplot_titles=None, **grid):
    """The layout :func:`subplots` makes for ``grid`` and ``subplot_titles`` (axes with their domains, anchors and
    links, the titles as annotations) as plain dicts for :func:`built`, without the template; made once per grid and
    number of titles. A trace in row r of a one-column grid goes on the axes :func:`cell` names."""
    if subplot_titles:  # placed by their number: the texts go in afterwards
        grid["subplot_titles"] = [str(i) for i in range(len(subplot_titles))]
    key = tuple(sorted((name, tuple(value) if isinstance(value, list) else value) for name, value in grid.items()))
    layout = copy.deepcopy(_grid_layout(key))
    for annotation in layout.get("annotations", ()):
        annotation["text"] = subplot_titles[int(annotation["text"])]
    return layout


def cell(row):
    """The axes of row ``row`` (from 1) of a one-column grid (:func:`subplot_layout`): a trace's ``xaxis``, ``yaxis``."""
    suffix = "" if row == 1 else str(row)
    return {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}


def only_used_template(fig):
    """``fig`` with its template's trace defaults cut to the trace types it draws (frames included).

    Every figure carries its template to the browser: plotly_white's defaults for 24 trace types
    are 4.3 of its 7.2 KB, sent with every chart of every run; the other types' defaults change
    nothing on screen. New figures start from plotly_white's layout alone (plotly's default
    template, set above); this adds plotly_white's defaults of the trace types drawn.
    """
    used = {trace.type for trace in [*fig.data, *(t for frame in fig.frames for t in frame.data)]}
    fig.layout.template.data = {kind: FULL_TEMPLATE.data[kind] for kind in used if FULL_TEMPLATE.data[kind]}
    return fig


def _colorbars(fig):
    """The colour bars a figure draws (of heatmaps, contours, colour-scaled markers)."""
    bars = []
    for trace in [*fig.data, *(trace for frame in fig.frames for trace in frame.data)]:
        if getattr(trace, "showscale", None) is False:
            continue
        for holder in (trace, getattr(trace, "marker", None)):
            if holder is not None and "colorbar" in holder and holder.colorbar.to_plotly_json():
                bars.append(holder.colorbar)
    return bars


def new_figure(title, x_title, y_title, **layout):
    """A figure in the common style with its title and axis titles (``layout``: more layout, plotly's
    keyword arguments), built in one go: each ``update_layout`` re-parses and re-validates."""
    _start_template()
    fig = go.Figure(layout={**STYLE, "title": {**STYLE["title"], "text": title},
                            "xaxis": {"title": {"text": x_title}}, "yaxis": {"title": {"text": y_title}}})
    if layout:
        fig.update_layout(**layout)
    return fig


#: Presentation mode: font scale, and the width (px) a figure's title and legend are laid out for
#: (half of the main area at 1280 px: figures may stand in two columns).
PRESENTATION_SCALE, PRESENTATION_WIDTH = 1.35, 520


def _wrap(text, chars):
    """``text`` broken at spaces into lines of at most ``chars`` characters, joined by <br>."""
    lines = []
    for word in str(text).split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= chars:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def _legend_rows(fig, font_px, width=PRESENTATION_WIDTH):
    """How many rows a horizontal legend of ``fig`` takes at ``font_px`` in ``width`` px."""
    names = [str(t.name) for t in fig.data if t.name and t.showlegend is not False]
    rows, used = (1 if names else 0), 0.0
    for name in names:
        entry = 45 + 0.58 * font_px * len(name)  # symbol, gap and text
        if used and used + entry > width:
            rows, used = rows + 1, 0.0
        used += entry
    return rows


def _copied(fig, wanted):
    """A deep copy of ``fig`` if ``wanted``, else ``fig`` itself: the layouts below change the figure they lay out.
    Copying a figure serialises and validates it again (plotly's deepcopy): ~10 ms for a lesson's stage figure."""
    return copy.deepcopy(fig) if wanted else fig


def presentation(fig, copy=True):
    """A copy of ``fig`` for a projector: larger fonts, thicker lines, bigger markers, and a layout
    for them: a long title wrapped onto lines that fit half the page, a horizontal legend moved to
    the bottom of the figure under the axis title with room for all its rows, the plot area kept.
    ``copy=False``: ``fig`` itself laid out so (a figure just built for it: the figure cache's)."""
    fig = _copied(fig, copy)
    scale = PRESENTATION_SCALE
    font, title_font = round(BASE_FONT * scale), round(TITLE_FONT * scale)
    layout = fig.layout
    old_top = layout.margin.t if layout.margin.t is not None else 70
    old_bottom = layout.margin.b if layout.margin.b is not None else 40
    old_height = layout.height or 450
    fig.update_layout(font=dict(size=font), title_font=dict(size=title_font), legend_font=dict(size=font))
    for update_axes in (fig.update_xaxes, fig.update_yaxes):  # finish sets the axis fonts explicitly
        update_axes(tickfont_size=font, title_font_size=round((BASE_FONT + 1) * scale))
    top, bottom = old_top, old_bottom
    if layout.title.text:
        text = _wrap(layout.title.text.replace("<br>", " "), int(PRESENTATION_WIDTH / (0.55 * title_font)))
        layout.title.text = text
        top = max(old_top, 30 + round(1.3 * title_font) * (text.count("<br>") + 1))
    below = layout.legend.orientation == "h" and (layout.legend.y is None or layout.legend.y < 0)
    if below and layout.showlegend is not False:
        rows = _legend_rows(fig, font)
        fig.update_layout(legend=dict(yref="container", y=0, yanchor="bottom", x=0, xanchor="left"))
        bottom = max(old_bottom, 90 + round(1.6 * font) * rows)
    fig.update_layout(margin=dict(t=top, b=bottom), height=old_height + (top - old_top) + (bottom - old_bottom))
    for trace in fig.data:
        line = getattr(trace, "line", None)
        if line is not None and line.width is not None:
            line.width = line.width * 1.6
        marker = getattr(trace, "marker", None)
        if marker is not None and getattr(marker, "size", None) is not None and np.isscalar(marker.size):
            marker.size = marker.size * 1.4
        if marker is not None and getattr(marker, "showscale", None):
            marker.colorbar.update(tickfont_size=font, title_font_size=font, len=1, lenmode="fraction")
        textfont = getattr(trace, "textfont", None)
        if textfont is not None and textfont.size is not None and np.isscalar(textfont.size):
            textfont.size = round(textfont.size * scale)
    for annotation in fig.layout.annotations:
        annotation.font.size = round(max(annotation.font.size or BASE_FONT, BASE_FONT) * scale)
    for colorbar in _colorbars(fig):
        colorbar.tickfont.size = round(BASE_FONT * scale)
        colorbar.title.font.size = round(BASE_FONT * scale)
    return fig


def fit_height(fig, height, legend_width=None, copy=True):
    """``fig`` at most ``height`` px tall: a copy whose plot area gives up what is too much (margins, titles
    and legend keep their room), or ``fig`` itself if it fits. ``legend_width``: the px a legend below the
    figure (presentation's) has, so that it keeps only the rows it needs there (more plot area).
    ``copy=False``: ``fig`` itself made so (a figure just built for it: the figure cache's)."""
    if fig.layout.height is None or fig.layout.height <= height:
        return fig
    fig = _copied(fig, copy)
    fig.layout.height = height
    legend = fig.layout.legend
    if legend_width and legend.yref == "container" and fig.layout.showlegend is not False:
        font = legend.font.size or BASE_FONT
        needed = 90 + round(1.6 * font) * _legend_rows(fig, font, legend_width)
        fig.layout.margin.b = min(fig.layout.margin.b or needed, needed)
    if fig.layout.title.text:  # one line at the top (plotly places a wrapped title's lines above a short figure's top)
        fig.update_layout(title=dict(text=fig.layout.title.text.replace("<br>", " "), yref="container", y=1,
                                     yanchor="top", pad=dict(t=10)),
                          margin=dict(t=min(fig.layout.margin.t or 70, 70)))
    for colorbar in _colorbars(fig):  # a shorter bar: fewer tick labels, which do not run into each other
        colorbar.nticks = 4
    return fig


#: A phone (390 x 844): the width (px) a figure has there (390 less Streamlit's 1 rem padding on each side), its
#: font sizes (tick labels and legend PHONE_FONT, the title PHONE_TITLE_FONT: every text 11-14 px) and the least
#: plot area (px) of each panel.
PHONE_WIDTH, PHONE_FONT, PHONE_TITLE_FONT = 358, 12, 14
PHONE_PLOT_HEIGHT = 220


def phone(fig, copy=True):
    """A copy of ``fig`` laid out for a phone's width (:data:`PHONE_WIDTH`): every text 11-14 px, margins
    just wide enough for the tick labels and axis titles (plotly's ``automargin``), a colour bar laid
    under the plot, the legend under the x-axis title with room for all its rows, and every panel at
    least :data:`PHONE_PLOT_HEIGHT` px tall (stacked panels keep their order and their gaps).
    ``copy=False``: ``fig`` itself laid out so (a figure just built for it: the figure cache's)."""
    fig = _copied(fig, copy)
    font, title_font = PHONE_FONT, PHONE_TITLE_FONT
    layout = fig.layout
    fig.update_layout(font=dict(size=font), title_font=dict(size=title_font), legend_font=dict(size=font))
    for update_axes in (fig.update_xaxes, fig.update_yaxes):
        update_axes(tickfont_size=font - 1, title_font_size=font, automargin=True, title_standoff=4)
    for axis in [layout[a] for a in layout if a.startswith(("xaxis", "yaxis"))]:
        if axis.type == "log" and axis.exponentformat == "power":  # 10^k's superscript would be drawn at ~9.6 px
            axis.exponentformat = "e"
    for annotation in layout.annotations:
        annotation.font.size = font
    for trace in fig.data:
        textfont = getattr(trace, "textfont", None)
        if textfont is not None and textfont.size is not None and np.isscalar(textfont.size):
            textfont.size = min(max(textfont.size, font - 1), title_font)
    bars = _colorbars(fig)
    for colorbar in bars:  # under the plot, across it: a bar at the side would take ~70 px of a 358 px width
        colorbar.update(orientation="h", x=0.5, xanchor="center", xref="paper", yref="container",
                        yanchor="bottom", thickness=10, len=0.8, lenmode="fraction", title_side="top",
                        tickfont_size=font - 1, title_font_size=font, nticks=5)
    top = 16
    if layout.title.text:
        text = _wrap(layout.title.text.replace("<br>", " "), int((PHONE_WIDTH - 16) / (0.55 * title_font)))
        fig.update_layout(title=dict(text=text, yref="container", yanchor="middle", x=0.01, xanchor="left"))
        top = 16 + round(1.3 * title_font) * (text.count("<br>") + 1)
    if any(a.yref == "paper" and a.y is not None and a.y >= 1 - 1e-9 for a in layout.annotations):
        top += round(1.5 * font) + 4  # labels above the plot (a region's name, a panel's title) under the title
    bottom = 8
    if layout.showlegend is not False and _legend_rows(fig, font, PHONE_WIDTH - 16):
        rows = _legend_rows(fig, font, PHONE_WIDTH - 16)
        fig.update_layout(legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0,
                                      xanchor="left", entrywidth=0, itemwidth=30))
        bottom += 4 + round(1.5 * font) * rows
    legend_room = bottom
    if bars:
        bottom += 56  # the bar, its tick labels and its title, above the legend
    old_plot = (layout.height or HEIGHT) - (layout.margin.t or 0) - (layout.margin.b or 0)
    # between stacked panels: room for the upper one's x axis and the lower one's title
    gap = 96 if _columns_to_rows(fig) else 28
    plot_height = _restack_panels(fig, gap) or min(max(old_plot, PHONE_PLOT_HEIGHT), 1.4 * PHONE_PLOT_HEIGHT)
    axis_room = 48  # the x tick labels and the x-axis title (automargin may add more)
    height = round(top + bottom + axis_room + plot_height)
    fig.update_layout(margin=dict(l=8, r=12, t=top, b=bottom + axis_room, autoexpand=True), height=height)
    for colorbar in bars:
        colorbar.y = (legend_room + 14) / height
    if layout.title.text:  # its lines centred in the top margin (plotly misplaces a wrapped title anchored at its top)
        layout.title.y = 1 - (top / 2 + 2) / height
    return fig


def _columns_to_rows(fig):
    """Panels side by side (one row of ``make_subplots``) stacked into one column instead, in their order
    (on a phone each gets the whole width); their titles (annotations in paper coordinates) move along.
    Returns whether it did (False: one panel, or not a single row of panels)."""
    layout = fig.layout
    xs = sorted((a for a in layout if a.startswith("xaxis") and layout[a].overlaying is None),
                key=lambda a: tuple(layout[a].domain or (0, 1)))
    if len(xs) < 2:
        return False
    x_domains = [tuple(layout[a].domain or (0, 1)) for a in xs]
    ys = [layout[f"yaxis{(layout[a].anchor or 'y')[1:]}"] for a in xs]
    if (any(a[1] > b[0] + 1e-9 for a, b in zip(x_domains, x_domains[1:]))
            or len({tuple(y.domain or (0, 1)) for y in ys}) != 1):
        return False
    n, gap = len(xs), 0.1
    height = (1 - gap * (n - 1)) / n
    slots = [(max(0.0, 1 - i * (height + gap) - height), 1 - i * (height + gap)) for i in range(n)]  # top to bottom
    old_top = (ys[0].domain or (0, 1))[1]
    for name, y, slot in zip(xs, ys, slots):
        layout[name].domain = [0, 1]
        y.domain = list(slot)
        y.showticklabels = True
    for annotation in layout.annotations:
        if annotation.xref == "paper" and annotation.yref == "paper" and annotation.y is not None \
                and annotation.y >= old_top - 1e-9:
            column = next((i for i, (d0, d1) in enumerate(x_domains) if d0 - 1e-9 <= annotation.x <= d1 + 1e-9), None)
            if column is not None:
                annotation.update(x=0.5, y=slots[column][1] + (annotation.y - old_top))
    return True


def _restack_panels(fig, gap=28):
    """Restack the vertical panels of ``fig`` so that each is at least PHONE_PLOT_HEIGHT px tall on a phone
    (and none more than 1.3 times that); moves the y domains, and what sits between them in paper
    coordinates (subplot titles, shapes), to match. Returns the new plot area's height in px, or None (one
    panel, or panels side by side: nothing moved)."""
    domains = sorted({tuple(fig.layout[a].domain or (0, 1)) for a in fig.layout if a.startswith("yaxis")
                      and fig.layout[a].overlaying is None})
    if len(domains) < 2 or any(a[1] > b[0] + 1e-9 for a, b in zip(domains, domains[1:])):
        return None
    smallest = min(d1 - d0 for d0, d1 in domains)
    scale = PHONE_PLOT_HEIGHT / smallest  # px per unit of the old paper height: the smallest panel at the minimum
    gaps = [max(b[0] - a[1], 0) for a, b in zip(domains, domains[1:])]
    heights = [(d1 - d0) * scale for d0, d1 in domains]
    heights = [max(PHONE_PLOT_HEIGHT, min(h, 1.3 * PHONE_PLOT_HEIGHT)) for h in heights]  # no panel a screen tall
    gap_px = [max(gap, g * scale * 0.5) for g in gaps]
    total = sum(heights) + sum(gap_px) + domains[0][0] * scale + (1 - domains[-1][1]) * scale
    old, new, y = [0.0], [0.0], domains[0][0] * scale
    for i, (d0, d1) in enumerate(domains):
        old += [d0, d1]
        new += [y / total, (y + heights[i]) / total]
        y += heights[i] + (gap_px[i] if i < len(gap_px) else 0)
    old.append(1.0), new.append(1.0)
    remap = lambda v: float(np.interp(v, old, new))  # noqa: E731  piecewise linear: panels and gaps move as one
    for name in [a for a in fig.layout if a.startswith("yaxis")]:
        axis = fig.layout[name]
        if axis.domain is not None:
            axis.domain = [min(max(remap(v), 0.0), 1.0) for v in axis.domain]
        elif axis.overlaying is None:
            axis.domain = [remap(0), remap(1)]
    for item in [*fig.layout.annotations, *fig.layout.shapes]:
        if getattr(item, "yref", None) == "paper":
            for key in ("y", "y0", "y1"):
                if key in item and item[key] is not None and np.isscalar(item[key]):
                    item[key] = remap(item[key])
    return total


def coinciding(curves, tolerance=1e-3, log=False):
    """Groups of curve names whose curves coincide on screen (max difference below
    ``tolerance`` times the plotted range), so a caption can say so. ``log``: compare the
    curves as drawn on a log axis (log10 of the values)."""
    names = list(curves)
    values = [np.asarray(curves[n], dtype=float).ravel() for n in names]
    if log:
        values = [np.log10(np.maximum(v, 1e-300)) for v in values]
    span = max((np.nanmax(v) - np.nanmin(v) for v in values if v.size), default=0.0) or 1.0
    groups, used = [], set()
    for i, a in enumerate(names):
        if a in used:
            continue
        group = [a] + [b for j, b in enumerate(names[i + 1:], start=i + 1) if b not in used
                       and values[j].shape == values[i].shape
                       and np.nanmax(np.abs(values[j] - values[i])) <= tolerance * span]
        if len(group) > 1:
            groups.append(group)
            used.update(group)
    return groups


def binned_along(x, values, bins=8):
    """``values`` averaged in ``bins`` bins of equal count along ``x`` (ranks, so that sparse ends do not make
    bins of one or two points): (mean x, mean value, count) per bin, from left to right. The count-weighted
    mean of the bins is the mean of ``values``: an error panel drawn from it shows the error a table reports."""
    x, values = np.ravel(np.asarray(x, dtype=float)), np.ravel(np.asarray(values, dtype=float))
    members = np.array_split(np.argsort(x, kind="stable"), max(1, min(int(bins), x.size)))
    members = [m for m in members if m.size]
    return (np.array([x[m].mean() for m in members]), np.array([values[m].mean() for m in members]),
            np.array([m.size for m in members]))


def add_error_panel_curve(fig, x, errors, name, counted="test points", bins=8, mean_line=True, **scatter):
    """Draw ``name``'s ``errors`` as a curve of :func:`binned_along` means in the figure's second row (its error
    panel), in the method's style, the bins' counts in ``customdata`` (and the hover) and no legend entry of its
    own (its legend group is the method's), and (``mean_line``) the mean over all points as a thin dotted line
    across the curve (:func:`add_error_panel_mean`): which method is lower on average shows without the numbers.
    ``scatter``: more trace properties of the curve (e.g. a fill). Returns ((first, last) bin centre, mean)."""
    traces, span, mean = error_panel_traces(x, errors, name, counted, bins, mean_line, **scatter)
    fig.add_traces(traces, rows=2, cols=1)
    return span, mean


def error_panel_traces(x, errors, name, counted="test points", bins=8, mean_line=True, **scatter):
    """The traces :func:`add_error_panel_curve` adds (dicts for :func:`built`, on the axes of the second row of a
    one-column grid, :func:`cell`): (traces, (first, last) bin centre, mean)."""
    centres, means, counts = binned_along(x, errors, bins)
    traces = [dict(type="scatter", x=centres, y=means, mode="lines+markers", name=f"error: {name}", showlegend=False,
                   legendgroup=name, line=line_style(name, 3), marker=marker_style(name, 9), customdata=counts,
                   hovertemplate=f"%{{customdata}} {counted}<br>mean error %{{y:.3f}}<extra>{name}</extra>",
                   **cell(2), **scatter)]
    span, mean = (float(centres[0]), float(centres[-1])), float(np.average(means, weights=counts))
    if mean_line:
        traces.append(error_panel_mean_trace(span, mean, name, counted))
    return traces, span, mean


def add_error_panel_mean(fig, span, mean, name, counted="test points"):
    """The mean error of ``name`` over all points as a thin dotted line over ``span`` of the error panel, in the
    method's colour ("mean error: name")."""
    fig.add_traces([error_panel_mean_trace(span, mean, name, counted)], rows=2, cols=1)


def error_panel_mean_trace(span, mean, name, counted="test points"):
    """The trace :func:`add_error_panel_mean` adds (a dict, as :func:`error_panel_traces`)."""
    return dict(type="scatter", x=list(span), y=[mean, mean], mode="lines", name=f"mean error: {name}",
                showlegend=False, legendgroup=name, line=dict(color=style(name)["color"], width=1.5, dash="dot"),
                hovertemplate=f"mean error over all {counted} %{{y:.3f}}<extra>{name}</extra>", **cell(2))
