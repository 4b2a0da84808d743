"""
Is there a shift, and in which input? (scikit-learn's diabetes data)
====================================================================

A shift is put into scikit-learn's bundled diabetes data by selecting the training rows: patients
with a large body-mass index (column 2, ``bmi``) rarely enter the training set. Then
:func:`~covshift.diagnostics.two_sample_test` asks whether the training and test inputs differ at
all (a kernel MMD test with a permutation p-value), :func:`~covshift.diagnostics.feature_shift`
which columns differ (a Kolmogorov-Smirnov test per column, Holm-corrected for testing them all),
and :func:`~covshift.diagnostics.weight_summary` what the weights cost (their effective sample
size) and whether they can have undone the shift.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.preprocessing import StandardScaler

from covshift import FCFWCS
from covshift.diagnostics import feature_shift, two_sample_test, weight_summary

diabetes = load_diabetes()
X = StandardScaler().fit_transform(diabetes.data)  # one kernel width serves every column
rng = np.random.default_rng(0)
train = rng.random(len(X)) < 1 / (1 + np.exp(1.5 * X[:, 2]))  # large bmi: rarely a training row
X_tr, X_te = X[train], X[~train]

test = two_sample_test(X_tr, X_te, random_state=0)
print(f"MMD two-sample test: p = {test.p_value:.3f}")
shift = feature_shift(X_tr, X_te)
most = shift.most_shifted()
print("most shifted column:", diabetes.feature_names[most])
w = FCFWCS(sigma="auto").fit(X_tr, X_te).weights_
summary = weight_summary(w, X_tr, X_te)
print(f"ESS {summary.ess_fraction:.0%} of the training points; "
      f"weights that match the means keep at most {summary.ess_bound:.0%}")

fig, (rank_ax, hist_ax) = plt.subplots(1, 2, figsize=(10, 3.8))
names = np.array(diabetes.feature_names)
order = np.argsort(shift.p_value_adjusted)
rank_ax.barh(names[order][::-1], -np.log10(shift.p_value_adjusted[order][::-1]))
rank_ax.axvline(-np.log10(0.05), color="k", ls=":", label="adjusted p = 0.05")
rank_ax.set_xlabel("-log10 Holm-adjusted p-value (KS test)")
rank_ax.set_title("Per-input ranking of the shift")
rank_ax.legend(fontsize=8)
bins = np.linspace(-2.5, 3.5, 25)
hist_ax.hist(X_tr[:, most], bins, density=True, alpha=0.5, label="training")
hist_ax.hist(X_te[:, most], bins, density=True, alpha=0.5, label="test")
hist_ax.hist(X_tr[:, most], bins, weights=w, density=True, histtype="step", lw=2, color="k",
             label="training, weighted")
hist_ax.set_xlabel(f"{names[most]} (standardised)")
hist_ax.set_title("The most shifted input, before and after weighting")
hist_ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %%
# The test and the ranking find the shift and name its input. The weights keep a large share of
# the points (ESS), more than weights that move the training means onto the test means could
# keep (``ess_bound``): near-uniform weights beside a detected shift have not corrected all of
# it, which the weighted histogram shows as well (over selection seeds 0-2 the weights halve the
# standardised mean shift of ``bmi``, from about 1.5 to about 0.8; the user guide's *Checking your
# own data*). Holm's correction matters: on random halves of the bundled wine, diabetes, breast cancer and
# iris data (no shift at all), some column has an uncorrected p < 0.05 in 27 % of the splits,
# while ``most_shifted()`` names one in 2.0 % (README, *Check your data*).
