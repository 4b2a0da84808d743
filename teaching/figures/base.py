"""Styles, layout and formatting every figure shares: one colour, marker and dash per method, the plotly template,
the common layout (:func:`finish`, :func:`built`); :mod:`teaching.figures.screens` lays a figure out for the
projector and the phone."""

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
    """Major ticks only (one per decade, every second one beyond 6 decades, every fourth beyond 12: a label of
    10^k is ~1.4 font sizes high, and 16 decades on the ~280 px of a plot in presentation mode ran them into each
    other) with 10^k labels, no "5 6 7 8 9" minor labels."""
    axis.update({**LOG_TICKS, "dtick": 4 if decades and decades > 12 else 2 if decades and decades > 6 else 1})


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


def error_panel_traces(x, errors, name, counted="test points", bins=8, mean_line=True, **scatter):
    """``name``'s ``errors`` as a curve of :func:`binned_along` means in the second row of a one-column grid (its
    error panel, :func:`cell`), in the method's style, the bins' counts in ``customdata`` (and the hover) and no
    legend entry of its own (its legend group is the method's), and (``mean_line``) the mean over all points as a
    thin dotted line across the curve (:func:`error_panel_mean_trace`): which method is lower on average shows
    without the numbers. ``scatter``: more trace properties of the curve (e.g. a fill). Dicts for :func:`built`:
    (traces, (first, last) bin centre, mean)."""
    centres, means, counts = binned_along(x, errors, bins)
    traces = [dict(type="scatter", x=centres, y=means, mode="lines+markers", name=f"error: {name}", showlegend=False,
                   legendgroup=name, line=line_style(name, 3), marker=marker_style(name, 9), customdata=counts,
                   hovertemplate=f"%{{customdata}} {counted}<br>mean error %{{y:.3f}}<extra>{name}</extra>",
                   **cell(2), **scatter)]
    span, mean = (float(centres[0]), float(centres[-1])), float(np.average(means, weights=counts))
    if mean_line:
        traces.append(error_panel_mean_trace(span, mean, name, counted))
    return traces, span, mean


def error_panel_mean_trace(span, mean, name, counted="test points"):
    """The mean error of ``name`` over all points as a thin dotted line over ``span`` of the error panel, in the
    method's colour ("mean error: name"; a dict, as :func:`error_panel_traces`)."""
    return dict(type="scatter", x=list(span), y=[mean, mean], mode="lines", name=f"mean error: {name}",
                showlegend=False, legendgroup=name, line=dict(color=style(name)["color"], width=1.5, dash="dot"),
                hovertemplate=f"mean error over all {counted} %{{y:.3f}}<extra>{name}</extra>", **cell(2))
