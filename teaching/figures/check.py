"""Figures of the Check your data page: the permutation null of the shift test and the inputs that moved most."""

import numpy as np

from teaching.figures.base import BASE_FONT, TEST, TRAIN, finish, new_figure, subplots

#: Names of the two-sample statistics on the axis.
STATISTIC_LABELS = {"mmd": "MMD² (unbiased estimate)", "classifier": "held-out AUC of a train/test classifier"}


def null_distribution(null, observed, method, p_value):
    """Histogram of the statistic on the permuted splits (no shift by construction) with the observed
    statistic as a vertical line: the p-value is the share of the histogram at or right of the line."""
    null = np.asarray(null, dtype=float)
    fig = new_figure(f"Is the observed split unusual? p = {p_value:.2g}", STATISTIC_LABELS[method],
                     "permuted splits")
    fig.add_histogram(x=null, nbinsx=40, name=f"{len(null)} random re-splits (no shift)",
                      marker_color="#999999", opacity=0.8)
    fig.add_vline(x=float(observed), line=dict(color=TEST, width=4))
    fig.add_scatter(x=[float(observed)], y=[0], mode="markers", name="the training/test split observed",
                    marker=dict(color=TEST, size=12, symbol="triangle-up"))
    lo, hi = min(null.min(), observed), max(null.max(), observed)
    pad = 0.05 * (hi - lo or 1.0)
    fig.update_xaxes(range=[lo - pad, hi + pad])
    return finish(fig, height=360, legend_rows=1)


def shifted_inputs(X_tr, X_te, names, columns, scores):
    """Overlaid training and test histograms (as densities, so unequal sample sizes compare) of the
    input ``columns`` (indices), titled with their name and Kolmogorov-Smirnov statistic ``scores``."""
    columns = list(columns)
    fig = subplots(rows=1, cols=max(len(columns), 1),
                        subplot_titles=[f"{names[j]}: KS {scores[j]:.2f}" for j in columns],
                        horizontal_spacing=0.1)
    for i, j in enumerate(columns, start=1):
        both = np.concatenate([X_tr[:, j], X_te[:, j]])
        lo, hi = float(both.min()), float(both.max())
        size = (hi - lo) / 25 or 1.0
        bins = dict(start=lo, end=hi + size, size=size)
        for values, label, colour in ((X_tr[:, j], "training", TRAIN), (X_te[:, j], "test", TEST)):
            fig.add_histogram(x=values, xbins=bins, histnorm="probability density", name=f"{label} inputs",
                              marker_color=colour, opacity=0.55, showlegend=i == 1, legendgroup=label,
                              row=1, col=i)
        fig.update_xaxes(title_text=names[j], row=1, col=i)
    fig.update_layout(barmode="overlay", title_text="The inputs that moved most (training vs test)")
    fig.update_yaxes(title_text="density", row=1, col=1)
    fig = finish(fig, height=360, legend_rows=1)
    fig.update_xaxes(nticks=4)  # small multiples: few tick labels, which do not run into each other
    fig.update_annotations(font_size=BASE_FONT)
    return fig
