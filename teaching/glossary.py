"""Words a student meets on a lesson's stage, each explained in one or two sentences.

A stage lists the terms its banner, claims and reveal use (:func:`terms_in`) with their explanations
(a tooltip beside the banner); the About & theory page shows the whole glossary. Pure data: no streamlit.
"""

import re

#: term -> (the pattern that finds it in a text, case-insensitive; its explanation).
TERMS = {
    "importance weight": (r"\bimportance|\bweights?\b|w\(x\)",
                          "w(x) = p_te(x) / p_tr(x): how much more likely a training input is under the test "
                          "density than under the training density. A weighted fit counts each training point "
                          "w times, so that the training loss estimates the test loss."),
    "MAE": (r"\bMAE\b", "Mean absolute error: the average distance between a prediction and the true value on "
                        "the test points (lower is better)."),
    "iid": (r"\biid\b", "'Independent and identically distributed': the iid classifier is fitted as if training and "
                        "test points came from the same distribution, without weights."),
    "AUC": (r"\bAUC\b", "Area under the ROC curve: the chance that the classifier ranks a random positive test "
                        "point above a random negative one (1 perfect, 0.5 guessing)."),
    "atom": (r"\batoms?\b", "One Gaussian bump exp(-|x - c|^2 / (2 sigma^2)) centred on a test point c; KLIEP's "
                            "w(x) is a non-negative mix of atoms."),
    "active set": (r"\bactive\b", "The atoms with a non-zero share in the current solution; fewer active atoms "
                                  "make a sparser, cheaper w(x)."),
    "duality gap": (r"\b(duality )?gap\b", "An upper bound on how far the current objective is from the optimum, "
                                           "computed at every step: a small gap certifies the solution. The "
                                           "relative gap divides it by the objective."),
    "towards step": (r"\btowards? (step|vertex)|\bFrank-Wolfe\b|\bFWCS\b",
                     "A Frank-Wolfe step that moves part of the weight onto the best atom (largest gradient "
                     "entry); all other shares shrink."),
    "away step": (r"\baway\b|AFWCS", "A step that takes weight from the worst active atom and gives it back to the "
                                     "others (AFWCS)."),
    "pairwise step": (r"\bpairwise\b|PFWCS", "A step that moves weight from the worst active atom straight to the best "
                                             "atom; only these two change (PFWCS)."),
    "drop step": (r"\bdrop", "A step that reaches its largest allowed size rho_max, so the away atom's share "
                             "becomes 0 and it leaves the active set."),
    "swap step": (r"\bswap", "A pairwise step that reaches rho_max while the best atom was not active: one atom "
                             "leaves, another enters, the active set keeps its size."),
    "rho_max": (r"rho_max|ρ_max|rho max", "The largest step size that keeps every share non-negative; a step of "
                                          "exactly rho_max is a drop (or swap) step."),
    "fully-corrective step": (r"\bFCFWCS\b|fully.corrective", "FCFWCS's step: after adding the best atom it "
                                                                "re-optimises the shares of all active atoms (by "
                                                                "Newton steps), so it needs far fewer steps."),
    "Newton step": (r"\bNewton\b", "A step of Newton's method: it uses the curvature of the objective, so a few "
                                   "steps re-optimise all active atoms (FCFWCS) or a classifier."),
    "certainty": (r"\bcertaint|\bphi\b|φ", "SMTGP's certainty phi in (0, 1] (SMTGP paper, eq. 17): how well the "
                                           "chosen output fits the training data near the input; a warning sign "
                                           "when it is low."),
    "Twin GP": (r"\bTwin GPs?\b|TGP\b", "A Gaussian-process model that predicts all outputs together: it picks the "
                                        "output whose similarities to the training outputs match the input's "
                                        "similarities to the training inputs, so it can follow one branch."),
    "quasi-Newton step": (r"quasi-Newton|\bBFGS\b|did not converge|step limit|50-step",
                          "A Twin GP searches its output at every test point with at most 50 quasi-Newton (BFGS) "
                          "steps; a point that has not met the tolerance by then keeps its last, lower-cost output."),
    "ESS": (r"\bESS\b|effective sample size", "Effective sample size (sum w)^2 / sum w^2: how many equally weighted "
                                              "training points the weights are worth."),
    "kernel width": (r"\bwidth\b|\bsigma\b", "The length scale of a Gaussian kernel: small = flexible (follows "
                                             "every wiggle), large = smooth."),
    "delta adaptation": (r"\bdelta adaptation\b", "A correction fitted to a few labelled test points and added to "
                                                  "the unweighted model's prediction."),
}


#: [(term, explanation)] of the whole glossary, for the About & theory page.
TERMS_EXPLAINED = [(term, explanation) for term, (_, explanation) in TERMS.items()]


def terms_in(*texts):
    """The glossary terms that occur in ``texts``, in the glossary's order: [(term, explanation)]."""
    joined = " ".join(texts)
    return [(term, explanation) for term, (pattern, explanation) in TERMS.items()
            if re.search(pattern, joined, flags=re.IGNORECASE)]


def tooltip(terms):
    """Markdown for a help tooltip: one line per term, "**term**: explanation"."""
    return "\n\n".join(f"**{term}**: {explanation}" for term, explanation in terms)
