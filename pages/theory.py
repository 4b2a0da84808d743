import streamlit as st

st.title("About & theory")
st.markdown("**Importance weighting.** Under covariate shift p_tr(x) differs from p_te(x) while "
            "p(y|x) is shared, so for any loss")
st.latex(r"\mathbb{E}_{te}[\ell(x, y)] = \mathbb{E}_{tr}[w(x)\,\ell(x, y)], \qquad w(x) = \frac{p_{te}(x)}{p_{tr}(x)}.")
st.markdown("**KLIEP** models the weights as a mixture of Gaussians centred on test points (eq. 1) and "
            "maximises the test log-likelihood of p_te = w p_tr (eq. 2):")
st.latex(r"\max_{\alpha \ge 0} F(\alpha) = \sum_j \log \sum_l \alpha_l \kappa_l(x^{te}_j)"
         r"\quad \text{s.t.} \quad \sum_i \sum_l \alpha_l \kappa_l(x^{tr}_i) = n_{tr}")
st.markdown("With beta_l = n_tr / sum_i kappa_l(x_i^tr) (eq. 4) and alpha = beta * mu, mu lies on the "
            "simplex: Frank-Wolfe moves towards the vertex of largest gradient (FWCS), away from the "
            "worst active one (AFWCS) or both at once (PFWCS). The duality gap is a certificate:")
st.latex(r"F(\alpha^*) - F(\alpha_t) \le \langle g_t, d^{FW}_t \rangle = \max_l (g_t \odot \beta)_l - \langle g_t, \alpha_t\rangle")
st.markdown("FCFWCS re-optimises exactly over the active atoms (Newton steps) after every new vertex, "
            "so it needs few outer iterations. **KMM** matches kernel means by a quadratic program; "
            "**LogisticRatio** uses a classifier, w(x) = (n_tr / n_te) p(test|x) / p(train|x); "
            "**RuLSIF** fits the relative ratio by least squares in closed form.")
st.markdown("**Twin Gaussian processes.** With joint kernels K_{X∪x} and K_{Y∪y} (eqs. 7-8), SMTGP "
            "predicts (eq. 10) by minimising the Sharma-Mittal divergence; in Schur-complement form")
st.latex(r"\hat y = \arg\min_y \frac{1}{\gamma - 1}\left[\eta_y^{\frac{\theta(1-\gamma)}{2(1-\theta)}}"
         r"\,\eta_{xy}^{-\frac{1-\gamma}{2(1-\theta)}}\right], \qquad "
         r"\phi(x, y) = \frac{\eta_x^{1-\theta}\eta_y^{\theta}}{\eta_{xy}} \in (0, 1]")
st.markdown("Importance weights enter as a weighted likelihood (eq. 11): K_XW = W^½ K̃_X W^½ + λ_x I "
            "with the unregularised kernel K̃, so a point of weight w has noise λ / w.")
st.subheader("References")
st.markdown(
    "- Covariate Shift Adaptation for Structured Regression With Frank-Wolfe Algorithms (IEEE Access): "
    "FWCS, AFWCS, PFWCS and IW-SMTGP.\n"
    "- Sharma-Mittal Twin Gaussian Processes (Elhoseiny and Elgammal): SMTGP, certainty phi, toy data.\n"
    "- Sampling-based Kernel Mean Matching ensembles: ENSKMM, ENSTRKMM, VFKMM, EVFKMM.\n"
    "- Discriminative learning under covariate shift (Bickel, Brueckner, Scheffer): the logistic ratio.\n"
    "- Domain transfer structured output learning: the delta-function adaptation.\n"
    "- M. Sugiyama et al., Direct importance estimation for covariate shift adaptation (2008): KLIEP.")
