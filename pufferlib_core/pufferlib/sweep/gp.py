"""A small exact Gaussian process on [0, 1]^d (torch, float64), and quantile regression.

`GP().fit(X, y)` standardises y and picks the Matern-5/2 length scale and the noise level
that maximise the marginal likelihood over a fixed grid (one batched Cholesky on a subset of
at most 128 points: no gradient loop, deterministic), then conditions on every point. `predict(Xc)` gives the posterior
mean and standard deviation in the units of y.
"""

from __future__ import annotations

import math

import torch

LENGTH_SCALES = (0.05, 0.1, 0.2, 0.35, 0.6, 1.0, 2.0)
NOISES = (1e-4, 1e-2, 0.05, 0.2, 0.5)


def matern52(a: torch.Tensor, b: torch.Tensor, length_scale: torch.Tensor,
             dist: torch.Tensor | None = None) -> torch.Tensor:
    """Matern-5/2 kernel matrices; `length_scale` of shape (L,) gives (L, len(a), len(b)).

    `dist`: the distances cdist(a, b) when the caller has them already.
    """
    d = torch.cdist(a, b) if dist is None else dist
    s = (math.sqrt(5.0) * d).unsqueeze(0) / length_scale.view(-1, 1, 1)
    return (1.0 + s + s * s / 3.0) * torch.exp(-s)


class GP:
    """Exact GP regression with a Matern-5/2 kernel and grid-selected hyperparameters.

    The hyperparameters are chosen on at most `select_points` of the points (a fixed
    random subset), then the GP conditions on all of them: one Cholesky of n x n.
    """

    select_points = 128

    def fit(self, X: torch.Tensor, y: torch.Tensor, like: "GP | None" = None,
            dist: torch.Tensor | None = None) -> "GP":
        """Fit to points X (n, d) in [0, 1]^d and targets y (n,).

        `like`: reuse that GP's hyperparameters; `dist`: cdist(X, X) if already computed.
        """
        X, y = X.double(), y.double()
        self.X = X
        self.mean = y.mean()
        self.std = y.std() if len(y) > 1 and y.std() > 1e-12 else torch.tensor(1.0, dtype=torch.float64)
        z = (y - self.mean) / self.std
        if like is not None:
            self.length_scale, self.noise = like.length_scale, like.noise
        else:
            self.length_scale, self.noise = self._select(X, z)
        n = len(X)
        K = matern52(X, X, self.length_scale, dist)[0] + (self.noise + 1e-8) * torch.eye(n, dtype=torch.float64)
        L, info = torch.linalg.cholesky_ex(K)
        if info:  # numerically singular: more jitter
            L = torch.linalg.cholesky(K + 1e-4 * torch.eye(n, dtype=torch.float64))
        self.L, self.alpha = L, torch.cholesky_solve(z.view(-1, 1), L)
        return self

    def _select(self, X: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, float]:
        if len(X) > self.select_points:
            pick = torch.randperm(len(X), generator=torch.Generator().manual_seed(0))[:self.select_points]
            X, z = X[pick], z[pick]
        n = len(X)
        ls = torch.tensor(LENGTH_SCALES, dtype=torch.float64)
        noise = torch.tensor(NOISES, dtype=torch.float64)
        K = matern52(X, X, ls).unsqueeze(1) + (noise + 1e-8).view(1, -1, 1, 1) * torch.eye(n, dtype=torch.float64)
        K = K.reshape(-1, n, n)  # (length scale, noise) pairs
        L, info = torch.linalg.cholesky_ex(K)
        alpha = torch.cholesky_solve(z.view(1, -1, 1).expand(len(K), n, 1), L)
        nll = 0.5 * (z.view(1, 1, -1) @ alpha).view(-1) + torch.log(torch.diagonal(L, dim1=1, dim2=2)).sum(1)
        nll = torch.where(info == 0, nll, torch.full_like(nll, float("inf")))
        best = int(torch.argmin(nll))
        return ls[best // len(NOISES)].view(1), float(noise[best % len(NOISES)])

    def predict(self, Xc: torch.Tensor, dist: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(mean, std) of the latent function at points Xc (m, d), in the units of y.

        `dist`: cdist(Xc, X) if already computed.
        """
        Ks = matern52(Xc.double(), self.X, self.length_scale, dist)[0]
        mu = Ks @ self.alpha.view(-1)
        v = torch.linalg.solve_triangular(self.L, Ks.T, upper=False)
        var = (1.0 - (v * v).sum(0)).clamp_min(1e-12)
        return self.mean + self.std * mu, self.std * var.sqrt()


def quantile_line(x: torch.Tensor, y: torch.Tensor, q: float, slopes: int = 201) -> tuple[float, float]:
    """(a, b) of the line a + b x that minimises the pinball loss of quantile q of y.

    For each slope of a grid the best intercept is exactly the q-quantile of y - b x, so
    the search is one vectorised pass.
    """
    x, y = x.double(), y.double()
    span = float((y.max() - y.min()) / max(float(x.max() - x.min()), 1e-9))
    b = torch.linspace(-2 * span, 2 * span, slopes, dtype=torch.float64)
    resid = y.view(1, -1) - b.view(-1, 1) * x.view(1, -1)
    a = torch.quantile(resid, q, dim=1)
    u = resid - a.view(-1, 1)
    loss = torch.maximum(q * u, (q - 1) * u).sum(1)
    best = int(torch.argmin(loss))
    return float(a[best]), float(b[best])
