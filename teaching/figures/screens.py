"""A figure laid out for the screen it is drawn on: the projector (:func:`presentation`: larger fonts, lines and
markers, a wrapped title, the legend below), a lesson's stage that fits one screen (:func:`fit_height`) and a
phone's width (:func:`phone`: small fonts, side-by-side panels stacked, each panel tall enough to read)."""

import copy

import numpy as np

from teaching.figures.base import BASE_FONT, HEIGHT, TITLE_FONT, _colorbars


#: Presentation mode: font scale, and the width (px) a figure's title and legend are laid out for
#: (half of the main area at 1280 px: figures may stand in two columns).
PRESENTATION_SCALE, PRESENTATION_WIDTH = 1.35, 520


def _wrap(text, chars):
    """``text`` broken at spaces into lines of at most ``chars`` characters, joined by <br>; a last line of a
    quarter of that or less takes the word before it along ("(paper<br>Fig. 2f)", not "(paper Fig.<br>2f)")."""
    lines = []
    for word in str(text).split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= chars:
            lines[-1] += " " + word
        else:
            lines.append(word)
    if len(lines) > 1 and len(lines[-1]) <= chars // 4 and " " in lines[-2]:
        before, moved = lines[-2].rsplit(" ", 1)
        if len(moved) + 1 + len(lines[-1]) <= chars:
            lines[-2:] = [before, f"{moved} {lines[-1]}"]
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
    title_rows = 0
    if layout.title.text:
        text = _wrap(layout.title.text.replace("<br>", " "), int(PRESENTATION_WIDTH / (0.55 * title_font)))
        layout.title.text = text
        title_rows = round(1.3 * title_font) * (text.count("<br>") + 1)
        legend_above = (layout.legend.y is not None and layout.legend.y >= 1 and layout.legend.yanchor == "bottom"
                        and layout.showlegend is not False)  # a row of its own between the title and the plot
        top = max(old_top, 30 + title_rows + _label_rows(fig, font) + (round(1.6 * font) + 8 if legend_above else 0))
    below = layout.legend.orientation == "h" and (layout.legend.y is None or layout.legend.y < 0)
    if below and layout.showlegend is not False:
        rows = _legend_rows(fig, font)
        fig.update_layout(legend=dict(yref="container", y=0, yanchor="bottom", x=0, xanchor="left"))
        bottom = max(old_bottom, 90 + round(1.6 * font) * rows)
    fig.update_layout(margin=dict(t=top, b=bottom), height=old_height + (top - old_top) + (bottom - old_bottom))
    if title_rows:  # its lines centred in their rows, 10 px from the top (anchored at its top, plotly moves a wrapped
        # title up by half a line for each line after the first: the Reproduction page's lost half its first line)
        layout.title.update(yref="container", yanchor="middle", y=1 - (10 + title_rows / 2) / layout.height)
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
    title_room = top  # the title's own rows, above the labels' row
    top += _label_rows(fig, font)  # labels above the plot (a region's name, a panel's title) under the title
    if layout.title.text:  # half a tick label: a y tick at the plot's top edge stood against a wrapped title's last line
        top += PHONE_FONT // 2
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
    if layout.title.text:  # its lines centred in their rows (plotly misplaces a wrapped title anchored at its top)
        layout.title.y = 1 - (title_room / 2 + 2) / height
    return fig


def _label_rows(fig, font):
    """The px the labels above the plot (:func:`_above_the_plot`) take at ``font`` px: a row for their lines
    under the title (0: no such labels)."""
    lines = [str(a.text).count("<br>") + 1 for a in fig.layout.annotations if _above_the_plot(fig, a)]
    return round(1.5 * font) + round(1.3 * font) * (max(lines) - 1) + 4 if lines else 0


def _above_the_plot(fig, annotation):
    """Whether ``annotation`` stands on the top edge of the plot area or above it (a panel's title in paper
    coordinates, a region's name on the top of the upper panel's domain, ``yref="y domain"``), where the title
    would run into it unless the top margin leaves it a row of its own."""
    y, yref = annotation.y, annotation.yref or "paper"
    if y is None or not isinstance(y, (int, float)):
        return False
    if yref.endswith(" domain"):  # y in the axis's domain: 0 its bottom, 1 its top
        axis = fig.layout[f"yaxis{yref.split()[0][1:]}"]
        low, high = axis.domain or (0, 1)
        y = low + y * (high - low)
    elif yref != "paper":
        return False
    return y >= 1 - 1e-9


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
