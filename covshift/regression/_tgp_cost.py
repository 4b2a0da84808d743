"""The costs of the Twin Gaussian processes and their gradients (sharma-mittal-tgp eqs. (5)-(8), (10), (16)-(17);
fw-covariate-shift-iw-smtgp eqs. (14)-(17) with the importance weights in S = diag(sqrt(w))): the methods
:class:`covshift.regression.TwinGP` inherits from :class:`TwinGPCosts`, on the per-test-point precomputations of
``TwinGP._local``."""

import numpy as np

from ..kernels import exponent_scale, scaled_exponent
from ._tgp_local import ETA_FLOOR, apply_rows, kl_terms, rows_times, rowdot, sm_terms, squared_distances_by_rows


class TwinGPCosts:
    """The KL, IKL and Sharma-Mittal costs of a Twin GP at candidate outputs, their gradients and the certainty of a
    prediction; a mixin of :class:`covshift.regression.TwinGP` (reads its ``theta``, ``gamma``, ``lambda_x``,
    ``lambda_y``, ``rho_y``, ``divergence`` and ``_clip_eta``)."""

    def _ky(self, Yh, local):
        """S k_Y(y) for candidate outputs Yh (M, dy), built in place in one (M, N or K) array."""
        scale = exponent_scale(self.rho_y)
        if local.idx is None and scale is not None:  # the exponent in one compiled pass
            ky = squared_distances_by_rows(Yh, local.Y, scale, local.y_norms)
        else:
            if local.idx is None:
                ky = squared_distances_by_rows(Yh, local.Y, b_norms=local.y_norms)
            else:
                ky = np.sum((Yh[:, None, :] - local.Y) ** 2, axis=2)
            scaled_exponent(ky, self.rho_y)
        np.exp(ky, out=ky)
        if local.weighted:  # times 1 changes no number: skipped without weights (a pass over M x N per evaluation)
            ky *= local.s
        return ky

    @staticmethod
    def _solves(ky, local, divergence):
        """K_YW^-1 k and, for "sm", K_XYW^-1 k (for "ikl", quad_ikl k): one (M x N) @ (N x 2N)
        product for the shared systems."""
        if divergence == "kl":
            return apply_rows(local.inv_y, ky), None
        if local.stacked is not None:
            both = rows_times(ky, local.stacked)
            n = ky.shape[1]
            return both[:, :n], both[:, n:]
        return apply_rows(local.inv_y, ky), apply_rows(local.inv_xy if divergence == "sm" else local.quad_ikl, ky)

    def cost_and_gradient(self, Yh, local, divergence):
        """Cost of each test point and its gradient in y (M, dy); eqs. 5/6, 7/8, 16/17.

        For "sm" the cost minimised is J = log eta_xy - theta log eta_y, which has the
        minimisers of eq. (10) for every gamma (eq. 10 is a power of exp(-J), see
        :meth:`sm_cost`). The terms in S k_X are precomputed per test point (``_local``):
        with symmetric inverses, k_X' K_YW^-1 k_Y = (K_YW^-1 k_X)' k_Y (ikl) and, with
        a = K_XYW^-1 (1 - theta) k_X, k_XY' K_XYW^-1 k_XY = (1 - theta) k_X' a
        + 2 theta k_Y' a + theta^2 k_Y' K_XYW^-1 k_Y (sm), so each cost reads one
        precomputed vector per test point.

        Parameters
        ----------
        Yh : ndarray of shape (M, dy)
            Candidate outputs, one per test point.
        local : object
            The per-test-point precomputations of ``_local`` (internal).
        divergence : {"kl", "ikl", "sm"}
            The cost.

        Returns
        -------
        cost : ndarray of shape (M,)
            The cost at each candidate.
        gradient : ndarray of shape (M, dy)
            Its gradient in y.
        """
        ky = self._ky(Yh, local)
        kyy = 1.0 + self.lambda_y
        uy, other = self._solves(ky, local, divergence)
        if local.idx is None and divergence != "ikl":  # shared systems: the rest compiled, one pass per row
            cost, grad = np.empty(len(Yh)), np.empty_like(Yh)
            if divergence == "kl":
                clipped = kl_terms(ky, uy, local.ux, local.eta_x, local.Y, Yh, kyy, self.rho_y, ETA_FLOOR, cost, grad)
            else:
                clipped = sm_terms(ky, uy, other, local.ax_xy, local.kx_ax, local.Y, Yh, self.theta, 1.0 + self.lambda_x,
                                   kyy, self.rho_y, ETA_FLOOR, cost, grad)
            if clipped:
                local.clipped.add(clipped)
            return cost, grad
        eta_y = self._clip_eta(kyy - rowdot(ky, uy), local.clipped)
        if divergence == "kl":
            cost = kyy - 2 * rowdot(ky, local.ux) - local.eta_x * np.log(eta_y)
            dk = uy * (2 * local.eta_x / eta_y)[:, None]
            dk -= 2 * local.ux
        elif divergence == "ikl":
            log_ratio = np.log(eta_y) - np.log(local.eta_x)
            cost = -2 * rowdot(ky, local.ay_kx) + rowdot(ky, other) + eta_y * log_ratio
            dk = uy * (-2 * (log_ratio + 1))[:, None]
            dk += 2 * other
            dk -= 2 * local.ay_kx
        else:
            t = self.theta
            eta_xy = self._clip_eta((1 - t) * (1 + self.lambda_x) + t * kyy - (1 - t) * local.kx_ax
                                    - 2 * t * rowdot(ky, local.ax_xy) - t * t * rowdot(ky, other), local.clipped)
            cost = np.log(eta_xy) - t * np.log(eta_y)
            a = -2 * t / eta_xy  # dJ/dk = a K_XYW^-1 k_XYW + (2 theta / eta_y) K_YW^-1 k_YW
            dk = other * (a * t)[:, None]
            dk += a[:, None] * local.ax_xy
            dk += (2 * t / eta_y)[:, None] * uy
        return cost, self._chain(dk, ky, Yh, local)

    def _chain(self, dk, ky, Yh, local):
        """dL/dy from dL/d(S k_y): eq. (16), d k_y,i / d y = (y_i - y) k_y,i / rho_y^2."""
        c = dk * ky
        if local.idx is None:
            weighted = rows_times(c, local.Y)
        else:
            weighted = np.einsum("mk,mkd->md", c, local.Y)
        return (weighted - c.sum(axis=1)[:, None] * Yh) / self.rho_y / self.rho_y  # no rho_y**2 overflow

    def sm_cost(self, J):
        """Eq. (10) from J = log eta_xy - theta log eta_y (the gamma = 1 limit for gamma = 1).

        Parameters
        ----------
        J : float or ndarray
            The cost minimised, log eta_xy - theta log eta_y.

        Returns
        -------
        float or ndarray
            The Sharma-Mittal divergence of eq. (10).
        """
        t, g = self.theta, self.gamma
        if g == 1:
            return J / (2 * (1 - t))
        return (np.exp(-(1 - g) / (2 * (1 - t)) * J) - 1) / (g - 1)

    def certainty(self, Y_hat, local):
        """Certainty of each prediction in (0, 1] (phi of eq. 17 for "sm"; see :meth:`predict`).

        Parameters
        ----------
        Y_hat : ndarray of shape (M, dy)
            The predictions.
        local : object
            The per-test-point precomputations of ``_local`` (internal).

        Returns
        -------
        ndarray of shape (M,)
            The certainty of each prediction.
        """
        ky = self._ky(Y_hat, local)
        eta_y = self._clip_eta(1 + self.lambda_y - np.sum(ky * apply_rows(local.inv_y, ky), axis=1), local.clipped)
        if self.divergence != "sm":
            return 2 * np.sqrt(local.eta_x * eta_y) / (local.eta_x + eta_y)
        t = self.theta
        kxy = (1 - t) * local.kx + t * ky
        uxy = local.ax_xy + t * apply_rows(local.inv_xy, ky)
        eta_xy = self._clip_eta((1 - t) * (1 + self.lambda_x) + t * (1 + self.lambda_y)
                                - np.sum(kxy * uxy, axis=1), local.clipped)
        phi = np.exp((1 - t) * np.log(local.eta_x) + t * np.log(eta_y) - np.log(eta_xy))
        return np.minimum(phi, 1.0)
