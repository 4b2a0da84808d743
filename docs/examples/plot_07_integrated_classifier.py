"""
The integrated shift classifier
===============================

Bickel, Brueckner and Scheffer (ICML 2007) learn the classifier and the selector p(test | x)
together (their Optimization Problem 1), instead of estimating importance weights first and
fitting a weighted classifier second. On a 2-D toy whose training sample comes from the left
half of a pool, the true class boundary turns between the training and the test region: the
iid classifier fits the training region's boundary, the two-stage classifier (LogisticRatio
weights, then a weighted kernel logistic regression) and the integrated one turn towards the
test region's.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import roc_auc_score

from covshift import IntegratedShiftClassifier, KernelLogisticRegression, LogisticRatio, TwoStageShiftClassifier, data

toy = data.shift_classification_2d(n=400, steepness=2.0, label_noise=0.1, random_state=0)
y_tr, y_te = toy.Y_tr[:, 0], toy.Y_te[:, 0]
models = {
    "iid": KernelLogisticRegression(kernel="linear").fit(toy.X_tr, y_tr),
    "two-stage": TwoStageShiftClassifier(LogisticRatio(), KernelLogisticRegression(kernel="linear"))
    .fit(toy.X_tr, y_tr, toy.X_te),
    "integrated": IntegratedShiftClassifier(kernel="linear").fit(toy.X_tr, y_tr, toy.X_te),
}
for name, model in models.items():
    auc = roc_auc_score(y_te, model.predict_proba(toy.X_te)[:, 1])
    print(f"{name:10s} test AUC {auc:.3f}")

fig, ax = plt.subplots(figsize=(6.5, 4.5))
ax.scatter(*toy.X_tr.T, c=y_tr, cmap="coolwarm", marker="o", s=12, label="training")
ax.scatter(*toy.X_te.T, c=y_te, cmap="coolwarm", marker="x", s=12, alpha=0.6, label="test")
grid_x = np.linspace(-4, 4, 200)
ax.plot(grid_x, data.classification_boundary(grid_x), "k-", lw=2, label="true boundary")
xx, yy = np.meshgrid(grid_x, np.linspace(-3, 3, 150))
for (name, model), color in zip(models.items(), ("C2", "C1", "C4")):
    p = model.predict_proba(np.c_[xx.ravel(), yy.ravel()])[:, 1].reshape(xx.shape)
    ax.contour(xx, yy, p, levels=[0.5], colors=color)
    ax.plot([], [], color=color, label=f"{name} boundary")
ax.set_xlim(-4, 4)
ax.set_ylim(-3, 3)
ax.set_xlabel("x1")
ax.set_ylabel("x2")
ax.legend(fontsize=7, loc="lower left")
fig.tight_layout()
plt.show()
