"""
KMM and its sampling ensembles against the true ratio
=====================================================

Kernel Mean Matching (Huang et al., 2007) chooses training weights whose kernel mean matches
the test inputs' kernel mean: one quadratic program over all training points, O(n_tr^2) memory.
The sampling ensembles of Chandra et al. (2016) split the work into bags and combine their
weights: ENSKMM splits the test set, ENSTRKMM the training set, VFKMM the training set with
every test point in each bag (the fastest), EVFKMM both. Here each estimates the ratio of the
sinc data, whose true ratio is known, and the normalised mean squared error (mean-1 scale)
says how far each is from it.
"""

import matplotlib.pyplot as plt
import numpy as np

from covshift import KMM, EnsembleKMM, data, metrics

shift = data.sinc_shift(n_tr=300, n_te=200, random_state=0)
order = np.argsort(shift.X_tr[:, 0])
x = shift.X_tr[order, 0]
truth = shift.density_ratio(shift.X_tr)

estimators = {"KMM": KMM(), "ENSKMM": EnsembleKMM(strategy="ens"), "ENSTRKMM": EnsembleKMM(strategy="enstr"),
              "VFKMM": EnsembleKMM(strategy="vf"), "EVFKMM": EnsembleKMM(strategy="evf")}
fig, axes = plt.subplots(1, len(estimators), figsize=(12, 3), sharey=True)
for ax, (name, estimator) in zip(axes, estimators.items()):
    w = estimator.fit(shift.X_tr, shift.X_te).weights_
    error = metrics.normalized_mse(w, truth) * len(w) ** 2
    print(f"{name:8s} NMSE {error:.3f}  ESS {metrics.effective_sample_size(w):.0f} of {len(w)}")
    ax.plot(x, truth[order] / truth.mean(), "k-", lw=2, label="true")
    ax.plot(x, w[order], ".", ms=3, label=name)
    ax.set_title(f"{name}\nNMSE {error:.3f}", fontsize=9)
    ax.set_xlabel("x")
axes[0].set_ylabel("w(x), mean 1")
axes[0].legend(fontsize=7)
fig.tight_layout()
plt.show()

# %%
# The KMM family gives weights for the training points only (``weights_``): its
# ``predict_weights`` refuses and names the estimators that evaluate w(x) at new inputs
# (KLIEP, FCFWCS, LogisticRatio, RuLSIF). ``ridge=0.5`` (the default) keeps the quadratic
# program from piling all the weight on a few points; ``ridge=0`` is the papers' QP.
