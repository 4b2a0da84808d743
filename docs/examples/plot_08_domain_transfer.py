"""
Domain transfer with a few target labels
========================================

Wang's domain transfer structured output learning adapts a source structural SVM to a target
domain from a few labelled target examples: it learns only a delta function w' Psi(x, y) added
to the source scores (Algorithm 1, 1-slack cutting planes). The source here is scikit-learn's
bundled digits; the target is the same digits thickened and rotated, so the source model loses
accuracy there. With l labelled target digits, :class:`~covshift.DomainTransferSSVM` chooses its
C by cross-validation on those labels (C = 0 keeps the source model) and recovers part of it.
"""

import matplotlib.pyplot as plt

from covshift import DomainTransferSSVM, StructuredSVM
from covshift.transfer import MulticlassProblem
from covshift.transfer.data import digits_transfer

d = digits_transfer(shift="thicken+rotate", random_state=0)
source = StructuredSVM(MulticlassProblem(10), C=10).fit(d.X_source, d.y_source)
source_accuracy = (source.predict(d.X_test) == d.y_test).mean()
print(f"source model on target test digits: accuracy {source_accuracy:.3f}")

labels = [5, 10, 20, 40]
accuracy = []
for l in labels:
    target = DomainTransferSSVM(source, MulticlassProblem(10)).fit(d.X_pool[:l], d.y_pool[:l])
    accuracy.append((target.predict(d.X_test) == d.y_test).mean())
    print(f"l = {l:2d} target labels: C = {target.C_:g}, accuracy {accuracy[-1]:.3f}")

fig, (curve_ax, image_ax) = plt.subplots(1, 2, figsize=(9, 3.6), gridspec_kw={"width_ratios": [2, 1]})
curve_ax.plot(labels, accuracy, "o-", label="DomainTransferSSVM")
curve_ax.axhline(source_accuracy, color="k", ls=":", label="source model alone")
curve_ax.set_xlabel("labelled target digits l")
curve_ax.set_ylabel("accuracy on target test digits")
curve_ax.legend(fontsize=8)
image_ax.imshow(d.images_test[0], cmap="gray_r")
image_ax.set_title(f"a target digit ({d.digits_test[0]})")
image_ax.axis("off")
fig.tight_layout()
plt.show()
