"""Figures of the Reproduction page: our numbers beside the papers'."""

import numpy as np

from teaching.figures.base import METHOD_COLORS, TEST, TRAIN, clean_log_axis, color, decades, finish, new_figure
from teaching.figures.screens import _wrap

#: Verdict -> (icon, word): shapes that differ without colour (colour-blind safe).
VERDICT_MARKS = {"reproduced": ("✔", "reproduced"), "not reproduced": ("✘", "not reproduced"),
                 "not comparable": ("≈", "not comparable")}
_SERIES_COLORS = ["#E69F00", "#56B4E9", "#CC79A7", "#0072B2"]
#: Fewer than SLANTED_FROM bars have their names upright, on lines of at most NAME_CHARS characters (broken at
#: spaces); more have them slanted by 30 degrees, from STEEP_FROM bars by 45 (ten names at 30 degrees stood 17 px
#: apart across the slant at 1280 x 800, their 15 px letters touching), each on one line (slanted, "Pearson r
#: (certainty, error)" took half of the figure's height on the projector; slanted names of two lines ran into each
#: other).
NAME_CHARS, SLANTED_FROM, STEEP_FROM = 12, 5, 8


def _is_seconds(name):
    return name.endswith(" s") or name.endswith("(s)")


def reproduction_bars(metrics, paper_values=None, title="", seeds=None):
    """Ours (mean +- sd over seeds, bars) beside the paper's numbers (open diamonds) per metric.

    ``metrics``: {name: {"mean", "sd", ...}} as in assets/reproduction.json; timing metrics
    (names ending in " s") are left out, they have their own units. A log axis is used when
    the values span more than two decades. The legend says what the bars are, over how many ``seeds`` (also when
    there are no paper numbers); the y axis only "value", so that its title fits the height of the plot on every
    screen.
    """
    paper_values = paper_values or {}
    names = [n for n, m in metrics.items() if not _is_seconds(n) and m.get("mean") is not None]
    means = [metrics[n]["mean"] for n in names]
    fig = new_figure(title, "", "value")
    fig.add_bar(x=names, y=means, error_y=dict(type="data", array=[metrics[n]["sd"] for n in names]),
                name=f"ours: mean ± sd over {seeds} seeds" if seeds else "ours: mean ± sd", marker_color=TRAIN,
                showlegend=True)
    shown = [n for n in names if n in paper_values and paper_values[n] is not None]
    if shown:
        fig.add_scatter(x=shown, y=[paper_values[n] for n in shown], mode="markers", name="paper",
                        marker=dict(symbol="diamond-open", size=13, color=TEST, line=dict(width=2)))
    positive = [m for m in means if m > 0] + [paper_values[n] for n in shown]
    if len(positive) == len(means) + len(shown) and positive and max(positive) / min(positive) > 100:
        fig.update_yaxes(type="log")
    fig = finish(fig)
    # the names need the room below the bars: the short legend goes to the top right
    fig.update_layout(legend=dict(orientation="h", x=1, xanchor="right", y=1.0, yanchor="bottom"),
                      margin=dict(t=90, b=40))
    upright = len(names) < SLANTED_FROM  # a slanted name stays on one line: two would run into the next one
    fig.update_xaxes(tickangle=0 if upright else -30 if len(names) < STEEP_FROM else -45, automargin=True,
                     tickvals=names, ticktext=[_wrap(n, NAME_CHARS) if upright else n for n in names])
    return fig


def reproduction_curve(metrics, title="", y_title="error"):
    """Error against the training-set size with +- sd bands, from metrics named
    "<model> @ n_tr=<n>" (FW paper Fig. 3 style)."""
    series = {}
    for name, m in metrics.items():
        if " @ n_tr=" not in name or m.get("mean") is None:
            continue
        model, n = name.split(" @ n_tr=")
        series.setdefault(model, []).append((int(n), m["mean"], m["sd"]))
    fig = new_figure(title, "training points n_tr", y_title)
    dashes = ["solid", "dash", "dot", "dashdot"]
    for i, (model, points) in enumerate(series.items()):
        n, mean, sd = (np.asarray(v, float) for v in zip(*sorted(points)))
        c = METHOD_COLORS.get(model, _SERIES_COLORS[i % len(_SERIES_COLORS)])
        fig.add_scatter(x=np.r_[n, n[::-1]], y=np.r_[mean + sd, (mean - sd)[::-1]], fill="toself",
                        fillcolor=c, opacity=0.15, line=dict(width=0), showlegend=False, hoverinfo="skip")
        fig.add_scatter(x=n, y=mean, mode="lines+markers", name=model,
                        line=dict(color=c, dash=dashes[i % len(dashes)]))
    return finish(fig, legend_rows=2)


def reproduction_gaps(trace, title="Relative duality gap per iteration (seed 0)"):
    """Relative duality gap against the iteration, log-log, one line per solver (FW paper Fig. 2f)."""
    fig = new_figure(title, "iteration", "gap / |F|")
    dashes = ["solid", "dash", "dot", "dashdot"]
    for i, (name, curve) in enumerate(trace.items()):
        fig.add_scatter(x=np.asarray(curve["iteration"]) + 1, y=curve["value"], mode="lines", name=name,
                        line=dict(color=color(name), dash=dashes[i % len(dashes)]))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    fig = finish(fig, legend_rows=2)
    values = [np.asarray(curve["value"], float) for curve in trace.values()]
    clean_log_axis(fig.layout.yaxis, decades(np.concatenate(values)) if values else None)
    return fig


def row_figure(row):
    """How the Reproduction page draws a row of assets/reproduction.json: (the figure function, its arguments).
    Error against n_tr ("curve"), the solvers' duality gaps ("gaps", from the row's trace), else bars of ours beside
    the paper's numbers; titled with where the paper reports it, and over how many seeds in the title of a curve,
    in the bars' legend (a title of both, "Section 2 (the paper reports no experiment): ours over 10 seeds", was
    wider than the figure at 1280 x 800)."""
    seeds = len(row["full"]["seeds"])
    if row["figure"] == "curve":
        return reproduction_curve, (row["full"]["metrics"], f"{row['where']}: ours over {seeds} seeds")
    if row["figure"] == "gaps" and row.get("trace"):
        return reproduction_gaps, (row["trace"],)
    return reproduction_bars, (row["full"]["metrics"], row["paper_values"], row["where"], seeds)
