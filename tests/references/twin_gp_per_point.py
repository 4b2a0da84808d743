"""Per-point scipy prediction loop for Twin GPs: the simple reference the batched
optimiser is checked and benchmarked against (tests and bench only)."""

import numpy as np
from scipy.optimize import minimize


def predict_per_point(model, X, Y0=None):
    """Optimise each test point separately with scipy's BFGS on the model's own cost.

    Starts from ``Y0`` (default: the model's initialisation) and uses the same
    ``max_iter``; the cost and gradient come from :meth:`TwinGP.cost_and_gradient`
    evaluated for one point at a time.
    """
    from covshift._validation import check_features

    X = check_features(X, model.n_features_in_)
    local = model._local(X)
    Y0 = model._initial_outputs(X, local) if Y0 is None else np.asarray(Y0, float).reshape(len(X), -1)
    out = np.empty_like(Y0)
    for i in range(len(X)):
        one = local.take(np.array([i]))

        def fun(y, one=one):
            f, g = model.cost_and_gradient(y[None, :], one, model.divergence)
            return float(f[0]), g[0]

        result = minimize(fun, Y0[i], jac=True, method="BFGS",
                          options={"maxiter": model.max_iter, "gtol": 1e-10})
        out[i] = result.x
    return out
