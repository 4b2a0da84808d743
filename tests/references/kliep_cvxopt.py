"""An independent solve of the KLIEP problem with cvxopt, for tests and benchmarks.

Interior-point method (cvxopt.solvers.cp) on
min -sum_j log(A' mu)_j  s.t.  mu >= 0, sum mu = 1,
with no code shared with the Frank-Wolfe solvers. Dense O(n_atoms^3) per
iteration: meant for problems up to about a thousand atoms.
"""

import numpy as np


def kliep_reference_optimum(atoms, tol=1e-10):
    """Optimal mu and objective of KLIEP in atom coordinates, by cvxopt.

    Parameters
    ----------
    atoms : ndarray (n_atoms, n_test), A[l, j] = beta_l k(c_l, x_te_j)

    Returns
    -------
    mu : ndarray (n_atoms,), objective : float
    """
    from cvxopt import matrix, solvers, spmatrix

    M = np.ascontiguousarray(atoms.T)  # (n_test, n_atoms)
    n = M.shape[1]

    def objective(x=None, z=None):
        if x is None:
            return 0, matrix(1.0 / n, (n, 1))
        mu = np.array(x).ravel()
        v = M @ mu
        if np.any(v <= 0):
            return None
        f = -np.sum(np.log(v))
        grad = -(M.T @ (1.0 / v))
        if z is None:
            return matrix(f), matrix(grad, (1, n))
        scaled = M / v[:, None]
        return matrix(f), matrix(grad, (1, n)), matrix(z[0] * (scaled.T @ scaled))

    G = spmatrix(-1.0, range(n), range(n))
    h = matrix(0.0, (n, 1))
    A = matrix(1.0, (1, n))
    b = matrix(1.0)
    options = {"show_progress": False, "abstol": tol, "reltol": tol, "feastol": 1e-12,
               "maxiters": 200}
    result = solvers.cp(objective, G, h, A=A, b=b, options=options)
    mu = np.maximum(np.array(result["x"]).ravel(), 0.0)
    mu /= mu.sum()
    return mu, float(np.sum(np.log(M @ mu)))
