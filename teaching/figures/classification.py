"""Figures of the Classification under shift page: decision maps and the Fig. 3 curves."""

import numpy as np
import plotly.graph_objects as go

from teaching.figures.base import TRUTH, color, finish, line_style, marker_style, new_figure, subplots

CLASS_COLORS = ("#0072B2", "#E69F00")  # class 0, class 1 (Okabe-Ito blue, orange)
_CLASSIFIER_DASH = {"iid": "dot", "two-stage": "dash", "integrated": "solid"}
#: The edge every boundary line is drawn on, so that it keeps its contrast (3:1 or more) over the green selector.
HALO = "#FFFFFF"
#: The boundaries' widths in drawing order (iid, two-stage, integrated): where they coincide (no shift) all show.
BOUNDARY_WIDTHS = (7, 5, 3)


def _classifier_style(name):
    """Colour and dash of a classifier; "two-stage (KMM)" is drawn like "two-stage KMM"."""
    key = name.replace(" (", " ").replace(")", "")
    dash = next((d for prefix, d in _CLASSIFIER_DASH.items() if name.startswith(prefix)), "solid")
    return color(key), dash


def classification_map(X_tr, y_tr, X_te, y_te, xs, ys, scores, p_test=None, weights=None,
                       weights_name="", true_boundary=None, title="Decision boundaries under covariate shift"):
    """Training and test points, each classifier's boundary f(x) = 0, the selector's p(test | x) behind.

    Parameters
    ----------
    X_tr, X_te : (n, 2) inputs; y_tr, y_te : labels in {0, 1}
    xs, ys : grid axes; scores : {name: (len(ys), len(xs)) decision values}
    p_test : grid of p(test | x) or None
    weights : training-point weights (marker area proportional to weight), or None
    true_boundary : (x1, x2) arrays of the true class boundary, or None
    """
    fig = new_figure(title, "x1", "x2")
    if p_test is not None:
        fig.add_trace(go.Heatmap(x=xs, y=ys, z=p_test, zmin=0, zmax=1, colorscale="Greens", opacity=0.4,
                                 name="p(test | x)", colorbar=dict(title="p(test|x)", thickness=12, len=0.6),
                                 hovertemplate="p(test | x) = %{z:.2f}<extra></extra>"))
    sizes = np.full(len(X_tr), 7.0)
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        sizes = 4.0 + 14.0 * np.sqrt(w / max(w.max(), 1e-12))
    y_tr, y_te = np.asarray(y_tr).ravel(), np.asarray(y_te).ravel()
    # Three legend entries for the points (one per class, one for the test crosses), not four: the plot keeps its height
    for label in (0, 1):
        on = y_te == label
        fig.add_trace(go.Scatter(x=X_te[on, 0], y=X_te[on, 1], mode="markers", name=f"test, class {label}",
                                 showlegend=False, legendgroup="test",
                                 marker=dict(symbol="x-thin", size=7, line=dict(width=1.5, color=CLASS_COLORS[label]))))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="test (crosses)", legendgroup="test",
                             marker=dict(symbol="x-thin", size=9, line=dict(width=2, color="#444444"))))
    for label in (0, 1):
        on = y_tr == label
        fig.add_trace(go.Scatter(x=X_tr[on, 0], y=X_tr[on, 1], mode="markers", name=f"class {label}",
                                 marker=dict(size=sizes[on], color=CLASS_COLORS[label], opacity=0.8,
                                             line=dict(width=0.5, color="white")),
                                 hovertemplate=(f"weight ({weights_name}) %{{customdata:.2f}}<extra></extra>"
                                                if weights is not None else None),
                                 customdata=None if weights is None else np.asarray(weights)[on]))
    widths = {name: BOUNDARY_WIDTHS[min(i, len(BOUNDARY_WIDTHS) - 1)] for i, name in enumerate(scores)}
    for name, grid in scores.items():  # every white edge first: none of them covers an earlier line
        fig.add_trace(go.Contour(x=xs, y=ys, z=grid, contours=dict(start=0, end=0, size=1, coloring="none"),
                                 line=dict(color=HALO, width=widths[name] + 4), showscale=False, showlegend=False,
                                 hoverinfo="skip", name=f"{name} (halo)"))  # a white edge: the line shows on any green
    for name, grid in scores.items():  # each later line thinner: lines on top of each other all show
        line_color, dash = _classifier_style(name)
        fig.add_trace(go.Contour(x=xs, y=ys, z=grid, contours=dict(start=0, end=0, size=1, coloring="none"),
                                 line=dict(color=line_color, dash=dash, width=widths[name]), showscale=False,
                                 showlegend=False, legendgroup=name, hoverinfo="skip", name=name))
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name, legendgroup=name,  # a boundary line (caption)
                                 line=dict(color=line_color, dash=dash, width=3)))
    if true_boundary is not None:
        x_true, y_true = (np.asarray(a, dtype=float) for a in true_boundary)
        y_true = np.where((y_true >= ys[0]) & (y_true <= ys[-1]), y_true, np.nan)  # stay inside the map
        fig.add_trace(go.Scatter(x=x_true, y=y_true, mode="lines", line=dict(color=HALO, width=7), showlegend=False,
                                 hoverinfo="skip", name="true boundary (halo)"))
        fig.add_trace(go.Scatter(x=x_true, y=y_true, mode="lines", name="true boundary", showlegend=False,
                                 line=dict(color=TRUTH, width=2.5)))
        inside = np.flatnonzero(np.isfinite(y_true))
        if inside.size:  # named on the map at its left end, below the points: one legend row less for the plot
            fig.add_annotation(x=x_true[inside[0]], y=y_true[inside[0]], text="true boundary", showarrow=False,
                               xanchor="right", yanchor="bottom", font=dict(color=TRUTH), bgcolor="rgba(255,255,255,0.8)")
    fig.update_xaxes(range=[xs[0], xs[-1]])
    fig.update_yaxes(range=[ys[0], ys[-1]])
    finish(fig, height=560, legend_rows=2)
    fig.update_layout(legend_y=-0.12, margin_t=50)
    return fig


def fig3_curves(results, methods=None, title="Reduction of 1-AUC risk relative to iid (Fig. 3 protocol)"):
    """One panel per task: mean reduction 1 - (1 - AUC) / (1 - AUC_iid) against the number of
    unlabelled test inputs, with +- one standard deviation over the seeds as error bars."""
    tasks = results["tasks"]
    methods = methods or [m for m in results["methods"] if m != "iid"]
    fig = subplots(rows=1, cols=len(tasks), subplot_titles=[
        f"{t['label']} ({t['kernel']})" for t in tasks.values()], horizontal_spacing=0.07)
    for col, task in enumerate(tasks.values(), start=1):
        fig.add_hline(y=0, line=dict(color="#999999", dash="dot"), row=1, col=col)
        for method in methods:
            entry = task["methods"][method]
            fig.add_trace(go.Scatter(
                x=task["sizes"], y=entry["mean"], error_y=dict(type="data", array=entry["sd"], thickness=1),
                mode="lines+markers", name=method, legendgroup=method, showlegend=col == 1,
                line=line_style(method), marker=marker_style(method, 9)), row=1, col=col)
        fig.update_xaxes(type="log", title_text="unlabelled test inputs", tickvals=task["sizes"],
                         ticktext=[str(s) for s in task["sizes"]], row=1, col=col)
    fig.update_yaxes(title_text="risk reduction", row=1, col=1)
    fig.update_layout(title_text=title)
    finish(fig, height=430, legend_rows=1)
    fig.update_layout(margin_t=80)  # the title above the panels' titles
    return fig
