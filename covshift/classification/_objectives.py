"""Log-posteriors maximised by the classifiers, with exact gradients and Hessians.

Every model here is linear in a design matrix (linear kernel: the inputs and a constant;
kernel: the dual form k(x, x_j) and a constant), so the objectives are written for design
matrices and a quadratic prior ``-theta' P theta / 2``. With the dual form F = [K, 1] and
P = [[K / C, 0], [0, 0]] this is the kernel problem of discriminative-covariate-shift
(eqs. 17-22); with F = [X, 1] and P = diag(1/C, ..., 1/C, 0) the primal problem (eq. 16).
"""

import numpy as np
from scipy.special import expit


def log_sigmoid(z):
    """log(1 / (1 + exp(-z))) without overflow."""
    return -np.logaddexp(0.0, -z)


def class_log_likelihood(scores, y01):
    """y log p + (1 - y) log(1 - p) with p = sigmoid(scores), y in {0, 1} (eq. 13)."""
    return log_sigmoid(np.where(y01 > 0.5, scores, -scores))


def weighted_logistic_objective(theta, F, y01, sample_weight, penalty, order=2):
    """Weighted, penalised log-likelihood of logistic regression (concave).

    J(theta) = sum_i s_i log p(y_i | x_i; theta) - theta' P theta / 2, scores f = F theta.

    Parameters
    ----------
    theta : ndarray of shape (d,)
        The model's weights (the last one multiplies the intercept column of ``F``).
    F : ndarray of shape (m, d)
        Design matrix.
    y01 : ndarray of shape (m,)
        Labels in {0, 1}.
    sample_weight : ndarray of shape (m,)
        s_i, the weight of each point's log-likelihood.
    penalty : ndarray of shape (d, d)
        P, the inverse prior covariance (symmetric positive semi-definite).
    order : {0, 2}, default 2
        0: the value only; 2: (value, gradient, Hessian).

    Returns
    -------
    float or tuple
        J(theta), or (J, gradient of shape (d,), Hessian of shape (d, d)) with ``order=2``.
    """
    f = F @ theta
    value = sample_weight @ class_log_likelihood(f, y01) - 0.5 * theta @ penalty @ theta
    if order == 0:
        return float(value)
    p = expit(f)
    gradient = F.T @ (sample_weight * (y01 - p)) - penalty @ theta
    hessian = -(F.T * (sample_weight * p * (1.0 - p))) @ F - penalty
    return float(value), gradient, hessian


def joint_objective(theta, F, G, y01, penalty_w, penalty_v, order=2):
    """Log-posterior of Optimization Problem 1 (eq. 24 of discriminative-covariate-shift).

    With classifier scores f_i = (F w)_i on the m training points, selector scores
    u_i = (G v)_i on all m + n points (training first), q_i = p(sigma = 1 | x_i; v) =
    sigmoid(u_i) and the weights of eq. 7, omega_i = (m / n)(1 / q_i - 1) = (m / n) exp(-u_i)::

        J(w, v) = sum_{i<=m} omega_i log p(y_i | x_i; w)
                  + sum_{i<=m} log q_i + sum_{i>m} log(1 - q_i)
                  - w' P_w w / 2 - v' P_v v / 2.

    Derivatives with respect to the scores (the OCR of eqs. 26-39 is garbled; these are
    derived directly and checked against finite differences in the tests), with
    l_i = log p(y_i | x_i; w) and p_i = sigmoid(f_i)::

        dJ/df_i = omega_i (y_i - p_i)
        dJ/du_i = -omega_i l_i + 1 - q_i   (training),   -q_i   (test)
        d2J/df_i2 = -omega_i p_i (1 - p_i),   d2J/df_i du_i = -omega_i (y_i - p_i)
        d2J/du_i2 = omega_i l_i - q_i (1 - q_i)   (training),   -q_i (1 - q_i)   (test)

    The mixed term makes J non-concave in general (Theorem 2).

    Derivation from the paper's text (sections 4-5 and appendix A; the OCR of eqs. 7, 11, 12
    and 23 is garbled). Bayes' rule with the selector sigma (1: training, 0: test) gives eq. 7,
    p_te(x) / p_tr(x) = [p(sigma=1) / p(sigma=0)] (1 / p(sigma=1 | x) - 1). Eq. 11 is the
    weighted likelihood of Manski and Lerman, prod_{i<=m} p(y_i | x_i; w)^{omega_i}, times the
    selector likelihood over ALL inputs, prod_{i<=m} q_i prod_{i>m} (1 - q_i), times the priors
    p(w) p(v) of eq. 15. Appendix A replaces p(sigma=1) / p(sigma=0) by its ML estimate m / n
    and takes logs, which is eq. 24 above (the paper has no intercepts; here both models have a
    free, unpenalised one). Hence the conventions checked in the tests: u > 0 means "looks like
    training"; omega = (m / n) exp(-u); the classifier sum runs over the m training points, the
    selector sums over the m + n training and test inputs; C_w and C_v are the prior variances.

    The weights are NOT normalised, in the paper or here. With the true posterior q, eq. 7 gives
    E_train[omega] = 1. At a maximum of J they are smaller on average: the classifier term
    sum_i omega_i l_i is <= 0 (l_i <= 0), so dJ/du_i contains -omega_i l_i >= 0 and pushes every
    training score u_i up (omega_i down), beyond the selector's own ML fit. This is the
    paper's criterion (its disjoint-support discussion after eq. 12 is the extreme case: omega -> 0
    and the prior alone decides w), not an implementation slip: even without any shift (m = n =
    400, 2-D, C_w = C_v = 1) the mean weight is about 0.55 at the optimum (tested). A mean weight
    c < 1 acts like a prior variance c C_w, so C_w must be tuned for this model on its own (as the
    paper tunes it on a separate set), not copied from the iid classifier.

    Parameters
    ----------
    theta : ndarray
        [w, v] stacked: the first F.shape[1] entries are w.
    F : ndarray of shape (m, d_w)
        Classifier design on the training points.
    G : ndarray of shape (m + n, d_v)
        Selector design on training then test points.
    y01 : ndarray of shape (m,)
        Labels in {0, 1}.
    penalty_w : ndarray
        P_w (eq. 15: 1 / s_w^2 times the identity in the primal).
    penalty_v : ndarray
        P_v (1 / s_v^2 times the identity in the primal).
    order : {0, 2}, default 2
        0: the value only; 2: (value, gradient, Hessian).

    Returns
    -------
    float or tuple
        J(w, v), or (J, gradient, Hessian) in the stacked parameters with ``order=2``.
    """
    m, d_w = F.shape
    n = G.shape[0] - m
    w, v = theta[:d_w], theta[d_w:]
    f, u = F @ w, G @ v
    u_tr, u_te = u[:m], u[m:]
    with np.errstate(over="ignore"):
        omega = (m / n) * np.exp(-u_tr)
    ll = class_log_likelihood(f, y01)
    value = (omega @ ll + log_sigmoid(u_tr).sum() + log_sigmoid(-u_te).sum()
             - 0.5 * w @ penalty_w @ w - 0.5 * v @ penalty_v @ v)
    if order == 0:
        return float(value) if np.isfinite(value) else -np.inf
    p, q_tr, q_te = expit(f), expit(u_tr), expit(u_te)
    residual = y01 - p
    grad_f = omega * residual
    grad_u = np.concatenate([-omega * ll + 1.0 - q_tr, -q_te])
    gradient = np.concatenate([F.T @ grad_f - penalty_w @ w, G.T @ grad_u - penalty_v @ v])
    curv_u = np.concatenate([omega * ll - q_tr * (1.0 - q_tr), -q_te * (1.0 - q_te)])
    hess_ww = -(F.T * (omega * p * (1.0 - p))) @ F - penalty_w
    hess_wv = (F.T * (-omega * residual)) @ G[:m]
    hess_vv = (G.T * curv_u) @ G - penalty_v
    hessian = np.block([[hess_ww, hess_wv], [hess_wv.T, hess_vv]])
    return float(value), gradient, hessian


def implied_weights(selector_scores, n_train, n_test):
    """Weights of eq. 7, (m / n)(1 - q) / q = (m / n) exp(-u), from selector scores u."""
    with np.errstate(over="ignore"):
        return (n_train / n_test) * np.exp(-np.asarray(selector_scores, dtype=float))
