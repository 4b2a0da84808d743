"""Figures of the Domain transfer page: learning curves, digit grids, cutting-plane progress."""

import numpy as np

from teaching.figures.base import TRUTH, color, finish, line_style, marker_style, new_figure, subplots


def transfer_curves(curves):
    """Target accuracy or Hamming loss vs the number l of labelled target examples (mean ± sd).

    ``curves`` is one task of bench/transfer.py's output: {"metric", "l", "n_seeds",
    "methods": {name: {"mean": [...], "sd": [...]}}}.
    """
    metric = curves["metric"]
    better = "higher" if metric == "accuracy" else "lower"
    fig = new_figure(f"Target {metric} vs l ({curves['n_seeds']} seeds)", "l (labelled target examples, log scale)",
                  f"target {metric} ({better} is better)", xaxis_type="log")
    for name, values in curves["methods"].items():
        fig.add_scatter(x=curves["l"], y=values["mean"], mode="lines+markers", name=name,
                        error_y=dict(type="data", array=values["sd"], visible=True, thickness=1),
                        line=line_style(name), marker=marker_style(name, 9))
    finish(fig, legend_rows=2)
    fig.update_xaxes(dtick=None, tickvals=curves["l"])
    return fig


def _mark(label, truth):
    ok = label == truth
    return f"<span style='color:{'#009E73' if ok else '#D55E00'}'>{label}{'' if ok else ' ✗'}</span>"


def transfer_digit_grid(images, truth, predictions, n_cols=8, n_rows=2):
    """Target digits with each model's prediction; wrong ones in orange with ✗.

    images: (n, 8, 8) in [0, 1]; truth: labels (strings); predictions: {model: labels}.
    """
    n = min(len(images), n_cols * n_rows)
    rows = (n + n_cols - 1) // n_cols
    titles = []
    for i in range(n):
        parts = [f"{name[0].upper()}: {_mark(str(p[i]), str(truth[i]))}" for name, p in predictions.items()]
        titles.append(f"true {truth[i]}<br>" + "<br>".join(parts))
    # px: a row of images (about as tall as a column is wide at 1280 x 800), the three title lines above it
    image, labels = 100, 75
    plot_height = rows * image + (rows - 1) * labels
    fig = subplots(rows=rows, cols=n_cols, subplot_titles=titles, horizontal_spacing=0.02,
                        vertical_spacing=labels / plot_height if rows > 1 else 0.05)
    for i in range(n):
        fig.add_heatmap(z=images[i][::-1], colorscale="gray_r", zmin=0, zmax=1, showscale=False,
                        hovertemplate="pixel %{z:.2f}<extra></extra>", row=i // n_cols + 1, col=i % n_cols + 1)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    for i in range(1, n + 1):  # square pixels
        fig.update_yaxes(scaleanchor=f"x{'' if i == 1 else i}", constrain="domain", row=(i - 1) // n_cols + 1,
                         col=(i - 1) % n_cols + 1)
    legend = ", ".join(f"{name[0].upper()} = {name}" for name in predictions)
    fig.update_layout(title_text=f"Target digits ({legend}; ✗ = mistake)", showlegend=False)
    finish(fig, height=plot_height + labels + 50, legend_rows=0)
    fig.update_layout(margin=dict(l=10, r=10, t=labels + 50, b=10))
    return fig


def cutting_plane_progress(history, epsilon):
    """Violation of the most violated constraint and working-set size per cutting-plane iteration."""
    fig = subplots(rows=1, cols=2, subplot_titles=("most violated constraint (dashed: epsilon)", "working-set size"))
    it = np.arange(1, len(history.violation) + 1)
    fig.add_scatter(x=it, y=np.maximum(history.violation, 1e-12), mode="lines+markers", name="violation",
                    line=dict(color=color("domain transfer")), row=1, col=1)
    fig.add_hline(y=epsilon, line_dash="dash", line_color=TRUTH, row=1, col=1)
    fig.add_scatter(x=it, y=history.working_set_size, mode="lines+markers", name="constraints in W",
                    line=dict(color=color("pooled")), row=1, col=2)
    fig.update_yaxes(type="log", title_text="violation", row=1, col=1)
    fig.update_yaxes(title_text="constraints", row=1, col=2)
    fig.update_xaxes(title_text="iteration")
    fig.update_layout(showlegend=False, title_text="Cutting-plane progress")
    finish(fig, height=330, legend_rows=0)
    fig.update_layout(margin=dict(l=70, r=20, t=90, b=60))
    return fig
