import streamlit as st

from teaching import ui
from teaching import figures, fits

ui.through_app()
st.title("Classification under shift")
ui.ask_the_class("pages/classification.py", beside=ui.lesson_banner("pages/classification.py"))
INTRO = (
    "When the training sample is selected from one region, a classifier fitted to it is tuned to that "
    "region: where the test points are, its **decision boundary** can be wrong. Re-weighting the training "
    "points by w(x) = p_te(x) / p_tr(x) moves the fit towards the test region. **Two-stage** methods "
    "estimate w first and then fit the classifier; the **integrated** model of Bickel, Brückner and "
    "Scheffer learns the classifier and the *selector* p(test | x), which implies the weights, together.")


low, high = fits.classification.CLASSIFICATION_LIMITS["n"]
# The stage (first screen): the map, beside it the selection's steepness (the control of the lesson) and the
# claims about the test AUCs; the other settings, the table and the real tasks below.
figure_column, settings_column = st.container(key="stage").columns([3, 2])
with settings_column:
    ui.widget(st.slider, "Selection steepness", "clf.steepness", 0.0, 4.0, step=0.25,
              help="P(train | x) = 1 / (1 + exp(steepness x1)); 0 means no shift.")
    claims_place = st.container()
map_caption = st.container()
ui.lesson_summary("pages/classification.py")
st.markdown(INTRO)
with st.expander("More settings: pool, label noise, kernel, priors, point size",
                 expanded=ui.active_lesson("pages/classification.py") is None):
    ui.widget(st.slider, "Points in the pool", "clf.n", low, high, step=50)
    ui.widget(st.slider, "Label noise", "clf.label_noise", 0.05, 1.0, step=0.05)
    ui.widget(st.selectbox, "Two-stage weights", "clf.weights", fits.classification.SHIFT_CLASSIFIER_WEIGHTS)
    kernel = ui.widget(st.radio, "Kernel", "clf.kernel", ["linear", "rbf"], horizontal=True)
    ui.widget(st.slider, "RBF width sigma", "clf.sigma", 0.2, 3.0, step=0.1, disabled=kernel == "linear")
    ui.widget(st.select_slider, "C (classifier prior variance)", "clf.C", [0.1, 0.3, 1.0, 3.0, 10.0])
    ui.widget(st.select_slider, "C_v (selector prior variance)", "clf.C_v", [0.1, 0.3, 1.0, 3.0, 10.0])
    sized_by = ui.widget(st.radio, "Point size: weights of", "clf.sized_by", ["integrated", "two-stage"],
                         horizontal=True)

view = ui.view()  # the toy and the classifiers of the clf.* settings (view.classification)
data = ui.guard("Data", view.classification_toy)
if data is None:
    st.stop()
with figure_column, st.spinner("Fitting iid, two-stage and integrated classifiers..."):
    result = ui.guard("Classifiers", view.classifiers)
if result is None:
    st.stop()
rows, (xs, ys, scores, p_test), weights, messages = result
for name, texts in messages.items():
    ui.show_warnings(name, texts)

names = fits.classification.shift_classifier_names(view.classification.weights)
weight_source = names[2] if sized_by == "integrated" else names[1]
ui.chart("classification map", figures.classification_map, data.X_tr, data.Y_tr, data.X_te, data.Y_te, xs, ys,
         scores, p_test, weights.get(weight_source), weight_source,
         true_boundary=fits.classification.classification_true_boundary(xs), where=figure_column,
         height=ui.stage_height(), key="classification.map")
map_caption.caption(
    "Dots: training points (area ∝ weight), crosses: test points, colour = class. Green background: the "
    "integrated selector's p(test | x). Lines: where each classifier switches class (dotted iid, dashed "
    "two-stage, solid integrated; thin black: the true boundary). The true boundary rises on the left, where "
    "most training points are, and falls on the right, where most test points are: the iid line follows the "
    "left, the weighted fits turn towards the right.")

st.subheader("On the test points")
table = ui.show_table(rows, "classifier", formats=dict.fromkeys(("accuracy", "AUC", "log-loss", "seconds"), ".3f"))
with claims_place:
    ui.claims("classification.table")
st.caption("Accuracy and AUC: higher is better; log-loss (the average negative log-probability of the true class) "
           "also punishes over-confident mistakes: lower is better. The labels of the test points are used only here.")

st.subheader("Real tasks: the paper's Fig. 3 protocol")
results = fits.classification.classification_fig3_results()
if results is None:
    st.info("No stored results yet: run `python bench/classification.py` to create assets/classification_fig3.json.")
else:
    ui.chart("Fig. 3 curves", figures.fig3_curves, results, key="classification.fig3")
    st.caption(
        f"Each method sees a training set chosen by selection bias and a growing number of unlabelled test "
        f"inputs; the curve is the share of the iid classifier's 1-AUC risk it removes (above 0: better than iid), "
        f"mean ± sd over {results['seeds']} seeds. Precomputed by bench/classification.py, not on this page.")
    for task in results["tasks"].values():
        headline = task["verdict"].split(" Integrated >=")[0]
        st.markdown(f"- **{task['label']}**: the paper's ranking (integrated ≥ two-stage ≥ iid) {headline}")
    st.caption("The error bars are wide: the iid AUCs are close to 1, so the ratio divides by a small number. "
               "Paired comparisons with standard errors are in bench/results/classification.md.")

with st.expander("The maths"):
    st.markdown(
        r"Pool the $m$ training points $x_1, \dots, x_m$ and the $n$ unlabelled test points "
        r"$x'_1, \dots, x'_n$, and give each a selector label $s$: $s = 1$ for training, $s = 0$ for test. "
        r"A logistic **selector** with parameters $v$ estimates $q(x) = p(s = 1 \mid x; v)$. By Bayes' rule the "
        r"importance weight of a training point (the $w(x)$ of the other pages, written $\omega$ here because "
        r"$w$ names the classifier below) is (eq. 7)")
    st.latex(r"\omega(x) = \frac{p_{te}(x)}{p_{tr}(x)} = \frac{m}{n}\,\frac{1 - q(x)}{q(x)}"
             r" = \frac{m}{n}\,e^{-v^\top x},"
             r"\qquad q(x) = p(s = 1 \mid x; v) = \frac{1}{1 + e^{-v^\top x}}.")
    st.markdown(
        r"The **classifier** with parameters $w$ is $p(y = 1 \mid x; w) = 1 / (1 + e^{-w^\top x})$ for labels "
        r"$y \in \{0, 1\}$ ($x$ carries a constant 1, so $w^\top x$ and $v^\top x$ include intercepts). "
        r"The integrated model maximises the joint log-posterior (Optimization Problem 1, eq. 24)")
    st.latex(r"J(w, v) = \sum_{i=1}^{m} \omega(x_i)\,\log p(y_i \mid x_i; w) + \sum_{i=1}^{m} \log q(x_i)"
             r" + \sum_{j=1}^{n} \log\bigl(1 - q(x'_j)\bigr) - \frac{\|w\|^2}{2 C} - \frac{\|v\|^2}{2 C_v}")
    st.markdown(
        r"over $w$ and $v$ together; $y_i$ is the label of training point $x_i$, and $C$, $C_v$ are the prior "
        r"variances of $w$ and $v$ (eq. 15). The first sum is the weighted classifier likelihood, the next two "
        r"the likelihood of the selector telling training from test points. Two-stage methods fix the weights "
        r"first ($v$, or KMM/KLIEP weights) and then fit $w$; the integrated model lets the classifier's fit move "
        r"the weights too. $J$ is not concave (Theorem 2), so Newton's method starts from the iid solution and "
        r"accepts a step only if $J$ increases; it stops when the gradient is zero to round-off. With the RBF "
        r"kernel $k(a, b) = \exp(-\|a - b\|^2 / (2\sigma^2))$, $\sigma$ its width, $w^\top x$ and $v^\top x$ "
        r"become sums of kernels over the training points and over all points (the dual form, eqs. 17-22).")
