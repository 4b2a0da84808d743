"""
KLIEP and its four Frank-Wolfe solvers on the sinc data
=======================================================

KLIEP (Sugiyama et al., 2008) estimates the importance weight w(x) = p_te(x) / p_tr(x) as a
non-negative mixture of Gaussians centred on the test points, maximising the test
log-likelihood. :class:`~covshift.FWCS`, :class:`~covshift.AFWCS` and :class:`~covshift.PFWCS`
(Algorithms 2, 4 and 5 of Chapaneri and Jayaswal, 2019) and the fully-corrective
:class:`~covshift.FCFWCS` solve the same problem by Frank-Wolfe steps; :class:`~covshift.KLIEP` by
projected gradient ascent. With one kernel width for all five they solve one problem, so their
weights should agree with each other, and approach the true ratio, which the sinc data know.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np

from covshift import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS, data, metrics
from covshift.exceptions import ConvergenceWarning

shift = data.sinc_shift(n_tr=200, n_te=150, random_state=0)
order = np.argsort(shift.X_tr[:, 0])
x = shift.X_tr[order, 0]
truth = shift.density_ratio(shift.X_tr)

fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(x, truth[order] / truth.mean(), "k-", lw=3, label="true ratio (mean 1)")
for estimator in (KLIEP(sigma=0.3), FWCS(sigma=0.3, max_iter=500), AFWCS(sigma=0.3, max_iter=500),
                  PFWCS(sigma=0.3, max_iter=500), FCFWCS(sigma=0.3)):
    with warnings.catch_warnings():
        # FWCS may stop at max_iter before its tolerance: its weights are still close (printed)
        warnings.simplefilter("ignore", ConvergenceWarning)
        w = estimator.fit(shift.X_tr, shift.X_te).weights_
    name = type(estimator).__name__
    error = metrics.normalized_mse(w, truth) * len(w) ** 2  # NMSE on the mean-1 scale
    print(f"{name:6s} NMSE {error:.3f} (mean-1 scale)  converged {estimator.converged_}")
    ax.plot(x, w[order], lw=1.5, label=f"{name} (NMSE {error:.3f})")
ax.set_xlabel("x (training inputs)")
ax.set_ylabel("w(x)")
ax.set_title("Five solvers of one KLIEP problem (sigma = 0.3)")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %%
# The curves lie on top of each other: the solvers differ in how fast they get there, not
# where. How fast, and how sure one can be of the result, is the subject of the next example.
