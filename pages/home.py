import streamlit as st

from teaching import ui
from teaching import lessons, figures

ui.through_app()
st.title("Covariate shift, step by step")
ui.ask_the_class("pages/home.py", beside=ui.lesson_banner("pages/home.py"))
FIRST = next(iter(lessons.LESSONS))
if ui.active_lesson("pages/home.py") is None:  # the default view is lesson 1 (its banner says so)
    intro, link = st.columns([3, 2], vertical_alignment="center")
    intro.markdown("**Start here:** the lessons in the sidebar, in order, each set up their page.")
    link.page_link(lessons.LESSONS[FIRST].page, label=f"Lesson 1: {FIRST}", query_params=ui.lesson_query(FIRST),
                   icon=":material/school:")

WIDTHS = (0.1, 0.3, 1.0, 2.0, 3.0)
view = ui.view("sinc")  # Home draws the sinc data whatever the data set of the other pages
data = ui.guard("Data", view.data)
if data is None:
    st.stop()
weight_name = view.weights_for_models
# The stage: the figure, and beside it the control the lesson is about and the claims about the figure.
chart, words = st.container(key="stage").columns([3, 2])
width = ui.widget(words.slider, "Model width: small = flexible, large = smooth (misspecified)", "home_width",
                  0.1, 3.0, step=0.05,
                  help="Input width of the Gaussian-process model fitted beside. At 2 the model is too smooth "
                       "for the sinc curve (misspecified); at 0.3 it can follow the curve everywhere.")
effect = ui.guard("Fits", view.weighting_effect, float(width), float(ui.get("lambda_x")))
if effect is None:
    st.stop()
ui.chart("shift overview", figures.shift_overview, data.X_tr, data.Y_tr, data.X_te, data.Y_te, view.effect_grid(),
         {label: pred for label, (_, pred) in effect.items()},
         heading=f"A GP of width {width:g}, fitted with and without weights",
         focus=(float(data.X_te.min()) - 0.05, float(data.X_te.max()) + 0.05), key="home.shift_overview", where=chart,
         height=ui.stage_height())
maes = {label: value for label, (value, _) in effect.items()}
# the numbers of the figure under its control, above the claims (which grow when they are re-checked)
words.caption("Test MAE: " + ", ".join(f"{label} {value:.3f}" for label, value in maes.items()) + ".")
with words:
    ui.claims("home.fit")

ui.lesson_summary("pages/home.py")
st.markdown(
    "Training inputs come from $p_{tr}(x)$, test inputs from another density $p_{te}(x)$; $p(y \\mid x)$ stays the "
    "same. Weighting each training point by its **importance** $w(x) = p_{te}(x) / p_{tr}(x)$ makes the "
    "training loss an estimate of the test loss.")
st.caption(
    "The picture shows the test region only. Top: the training points (blue), the test points (orange) and three "
    f"fits of the same model: unweighted, weighted by the true ratio, by {weight_name}'s estimate. Bottom: each "
    "fit's mean absolute error on the test points, in 8 bins of equal count along x. Shaded grey: the gap "
    "between the unweighted fit (grey) and the weighted one, above as a difference of fits, below as the error "
    "the weights remove. The training and test densities are drawn on Data & shift.")

st.subheader("When do weights matter?")
table = ui.guard("Widths", view.weighting_by_width, WIDTHS, float(ui.get("lambda_x")))
if table is not None:
    ui.chart("error by width", figures.error_by_width, table, chosen=float(width), key="home.error_by_width")
    st.caption(
        "Test error of the same model for every width, without and with weights (dotted line: the slider). "
        "A flexible model (small width) fits the curve everywhere, so the weights change little; a smooth "
        "model must compromise, and the weights move the compromise to the test region (Shimodaira, 2000).")
    ui.claims("home.width")

with st.expander("The maths"):
    st.markdown("For any loss $\\ell$, the test risk is a weighted training risk:")
    st.latex(r"\mathbb{E}_{x \sim p_{te}}\,[\ell(x, y)] = \mathbb{E}_{x \sim p_{tr}}\,[w(x)\,\ell(x, y)],"
             r"\qquad w(x) = \frac{p_{te}(x)}{p_{tr}(x)}")
    st.markdown(
        "- $p_{tr}(x)$, $p_{te}(x)$: densities of the training and of the test inputs.\n"
        "- $\\ell(x, y)$: the loss of the model on the point $(x, y)$, e.g. the squared error.\n"
        "- $w(x)$: the importance of a training point: how much more likely it is under the test density.\n\n"
        "The weighted GP gives training point $i$ the noise variance $\\lambda / w_i$: points with a large "
        "weight are fitted closely, points with a small weight are nearly ignored. The GP's kernel is "
        "$k(a, b) = \\exp(-\\lVert a - b \\rVert^2 / (2 \\rho_x^2))$, where $\\rho_x$ is the width on the slider.")

st.subheader("Lessons")
st.markdown("Each lesson sets every setting it needs and opens its page; the sentences in green boxes beside "
            "the figures are its claims, each checked on seeds 0-2 by `tests/teaching/test_lessons.py`.")
for title, lesson in lessons.LESSONS.items():
    left, right = st.columns([1, 4])
    left.page_link(lesson.page, label=title, query_params=ui.lesson_query(title), icon=":material/school:")
    right.markdown(lesson.summary)
