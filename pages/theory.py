import streamlit as st

from teaching import ui
from teaching import glossary, lessons

ui.through_app()
st.title("About & theory")
st.markdown("The whole story in five equations. Each page repeats the one it uses, in its expander "
            "*The maths*, next to the figures.")

st.subheader("1. Covariate shift and importance weighting")
st.latex(r"p_{tr}(y \mid x) = p_{te}(y \mid x), \quad p_{tr}(x) \ne p_{te}(x) \quad\Longrightarrow\quad "
         r"\mathbb{E}_{te}[\ell(x, y)] = \mathbb{E}_{tr}[w(x)\,\ell(x, y)], \quad w(x) = \frac{p_{te}(x)}{p_{tr}(x)}")
st.markdown("$p_{tr}$, $p_{te}$: training and test densities; $\\ell$: a loss; $w$: the importance. Weighting "
            "matters most when the model is misspecified (Shimodaira, 2000): a model that can fit the truth "
            "everywhere needs no weights.")

st.subheader("2. KLIEP")
st.latex(r"\hat w(x) = \sum_{l=1}^{b} \alpha_l \kappa_l(x), \qquad \max_{\alpha \ge 0} \sum_{j=1}^{n_{te}} "
         r"\log \hat w(x^{te}_j) \quad \text{s.t.} \quad \frac{1}{n_{tr}} \sum_{i=1}^{n_{tr}} \hat w(x^{tr}_i) = 1")
st.markdown("$\\kappa_l$: a Gaussian of width $\\sigma$ centred on test point $c_l$; $\\alpha_l \\ge 0$: its "
            "mixing coefficient; $n_{tr}$, $n_{te}$: numbers of training and test points (Sugiyama et al., 2008).")

st.subheader("3. Frank-Wolfe solvers and the duality gap")
st.latex(r"\alpha_l = \beta_l \mu_l,\ \ \beta_l = \frac{n_{tr}}{\sum_i \kappa_l(x^{tr}_i)},\ \ \mu \in \Delta; "
         r"\qquad F(\mu^*) - F(\mu_t) \le g_t = \max_l \nabla F(\mu_t)_l - \langle \nabla F(\mu_t), \mu_t \rangle")
st.markdown("$\\beta_l$ turns the constraint into the simplex $\\Delta$ (weights $\\mu$ that sum to one); "
            "$\\nabla F(\\mu_t)$: the gradient at iterate $t$; $g_t$: the duality gap, a certificate of accuracy. "
            "FWCS steps towards the best atom, AFWCS may step away from the worst active one, PFWCS moves weight "
            "from the worst to the best, FCFWCS re-optimises all active atoms (Chapaneri and Jayaswal, 2019; "
            "Lacoste-Julien and Jaggi, 2015).")

st.subheader("4. Other estimators")
st.latex(r"\text{KMM:}\ \min_{0 \le w_i \le B} \Big\lVert \frac{1}{n_{tr}} \sum_i w_i \phi(x^{tr}_i) - "
         r"\frac{1}{n_{te}} \sum_j \phi(x^{te}_j) \Big\rVert^2, \qquad "
         r"\text{LogisticRatio:}\ w(x) = \frac{n_{tr}}{n_{te}} \frac{P(\text{test} \mid x)}{P(\text{train} \mid x)}")
st.markdown("$\\phi$: the kernel feature map; $B$: an upper bound on the weights (Huang et al., 2007; ensembles: "
            "Chandra et al., 2016). The classifier $P(\\text{test} \\mid x)$ tells the two samples apart "
            "(Bickel et al., 2007). RuLSIF fits the relative ratio by least squares in closed form "
            "(Yamada et al., 2013).")

st.subheader("5. Twin Gaussian processes with importance weights")
st.latex(r"\hat y = \arg\min_y \frac{1}{\gamma - 1}\Big[\eta_y^{\frac{\theta(1-\gamma)}{2(1-\theta)}}\,"
         r"\eta_{xy}^{-\frac{1-\gamma}{2(1-\theta)}} - 1\Big], \quad "
         r"\phi = \frac{\eta_x^{1-\theta}\eta_y^{\theta}}{\eta_{xy}}, \quad "
         r"K_{X,W} = W^{1/2} \tilde K_X W^{1/2} + \lambda_x I")
st.markdown("$\\eta_x$, $\\eta_y$, $\\eta_{xy}$: variances left after conditioning the new input, the candidate "
            "output and both on the training data; $\\theta$, $\\gamma$: Sharma-Mittal order and degree; $\\phi$: "
            "certainty; $W$: diagonal matrix of importance weights; $\\tilde K_X$: input kernel matrix without "
            "regulariser; $\\lambda_x$: regulariser (Bo and Sminchisescu, 2010; Elhoseiny and Elgammal, 2015). "
            "A few target labels can instead correct a source model by a delta function (Wang, 2014).")

st.subheader("Lessons")
st.markdown("\n".join(f"- **{lesson.title}**: {lesson.summary}" for lesson in lessons.LESSONS.values()))

st.subheader("Words used on the lessons' stages", anchor="words")
st.markdown("\n".join(f"- **{term}**: {explanation}" for term, explanation in glossary.TERMS_EXPLAINED))

st.subheader("References")
st.markdown(
    "- H. Shimodaira (2000). Improving predictive inference under covariate shift by weighting the "
    "log-likelihood function. *J. Statistical Planning and Inference* 90(2), 227-244. "
    "[doi:10.1016/S0378-3758(00)00115-4](https://doi.org/10.1016/S0378-3758(00)00115-4)\n"
    "- M. Sugiyama, T. Suzuki, S. Nakajima, H. Kashima, P. von Buenau, M. Kawanabe (2008). Direct importance "
    "estimation for covariate shift adaptation. *Annals of the Institute of Statistical Mathematics* 60(4), 699-746. "
    "[doi:10.1007/s10463-008-0197-x](https://doi.org/10.1007/s10463-008-0197-x)\n"
    "- S. V. Chapaneri, D. J. Jayaswal (2019). Covariate shift adaptation for structured regression with "
    "Frank-Wolfe algorithms. *IEEE Access* 7. "
    "[search](https://scholar.google.com/scholar?q=Covariate+Shift+Adaptation+for+Structured+Regression+With+Frank-Wolfe+Algorithms)\n"
    "- S. Lacoste-Julien, M. Jaggi (2015). On the global linear convergence of Frank-Wolfe optimization "
    "variants. *NeurIPS 28*. [arXiv:1511.05932](https://arxiv.org/abs/1511.05932)\n"
    "- J. Huang, A. Gretton, K. Borgwardt, B. Schoelkopf, A. Smola (2007). Correcting sample selection bias by "
    "unlabeled data. *NIPS 19*. "
    "[search](https://scholar.google.com/scholar?q=Correcting+sample+selection+bias+by+unlabeled+data)\n"
    "- S. Chandra, A. Haque, L. Khan, C. Aggarwal (2016). Efficient sampling-based kernel mean matching. "
    "*IEEE ICDM*. [search](https://scholar.google.com/scholar?q=Efficient+Sampling-based+Kernel+Mean+Matching)\n"
    "- S. Bickel, M. Brueckner, T. Scheffer (2007). Discriminative learning for differing training and test "
    "distributions. *ICML*. [doi:10.1145/1273496.1273507](https://doi.org/10.1145/1273496.1273507)\n"
    "- M. Yamada, T. Suzuki, T. Kanamori, H. Hachiya, M. Sugiyama (2013). Relative density-ratio estimation for "
    "robust distribution comparison. *Neural Computation* 25(5), 1324-1370. "
    "[doi:10.1162/NECO_a_00442](https://doi.org/10.1162/NECO_a_00442)\n"
    "- L. Bo, C. Sminchisescu (2010). Twin Gaussian processes for structured prediction. *International Journal "
    "of Computer Vision* 87, 28-52. [doi:10.1007/s11263-008-0204-y](https://doi.org/10.1007/s11263-008-0204-y)\n"
    "- M. Elhoseiny, A. Elgammal (2015). Generalized twin Gaussian processes using Sharma-Mittal divergence. "
    "*Machine Learning* 100, 399-424. [doi:10.1007/s10994-015-5497-9](https://doi.org/10.1007/s10994-015-5497-9)\n"
    "- J. J.-Y. Wang (2014). Domain transfer structured output learning. "
    "[search](https://scholar.google.com/scholar?q=Domain+Transfer+Structured+Output+Learning+Wang)")
