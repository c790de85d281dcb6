"""A small exact Gaussian process on [0, 1]^d (torch, float64), and quantile regression.

Contract: `GP().fit(X, y)` standardises y, picks a Matern-5/2 length scale per dimension and
the noise level by the marginal likelihood on a subset of at most 96 points (a grid, then a
few Adam steps; deterministic: the same points give the same GP), then conditions on every
point. `predict(Xc)` gives the posterior mean and standard deviation in the units of y.
`quantile_line(x, y, q)` is the line of the q-quantile of y given x (early stopping).
"""

from __future__ import annotations

import math

import torch

from pufferlib.train.optimizers import Adam

LENGTH_SCALES = (0.05, 0.1, 0.2, 0.35, 0.6, 1.0, 2.0)
NOISES = (1e-4, 1e-2, 0.05, 0.2, 0.5)


def matern52(a: torch.Tensor, b: torch.Tensor, length_scale: torch.Tensor | None = None) -> torch.Tensor:
    """Matern-5/2 kernel matrix of points a (n, d) and b (m, d), inputs divided by `length_scale`.

    `length_scale`: None (1), a scalar tensor, or one per dimension (d,) (ARD).
    """
    if length_scale is not None:
        a, b = a / length_scale, b / length_scale
    s = math.sqrt(5.0) * torch.cdist(a, b)
    return (1.0 + s + s * s / 3.0) * torch.exp(-s)


class GP:
    """Exact GP regression with a Matern-5/2 kernel, one length scale per dimension (ARD).

    Hyperparameters are chosen on at most `select_points` of the points (a fixed random
    subset): the best shared length scale and noise of a grid, then `refine_steps` Adam
    steps on the marginal likelihood of per-dimension length scales and the noise. The GP
    then conditions on all points: one Cholesky of n x n.
    """

    select_points = 96
    refine_steps = 20
    length_scale: torch.Tensor  # (d,), set by fit
    noise: float

    def fit(self, X: torch.Tensor, y: torch.Tensor, like: GP | None = None) -> GP:
        """Fit to points X (n, d) in [0, 1]^d and targets y (n,); `like` reuses that GP's hyperparameters."""
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
        K = matern52(X, X, self.length_scale) + (self.noise + 1e-8) * torch.eye(n, dtype=torch.float64)
        L, info = torch.linalg.cholesky_ex(K)
        if info:  # numerically singular: more jitter
            L = torch.linalg.cholesky(K + 1e-4 * torch.eye(n, dtype=torch.float64))
        self.L, self.alpha = L, torch.cholesky_solve(z.view(-1, 1), L)
        return self

    def _select(self, X: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, float]:
        if len(X) > self.select_points:
            pick = torch.randperm(len(X), generator=torch.Generator().manual_seed(0))[:self.select_points]
            X, z = X[pick], z[pick]
        eye = torch.eye(len(X), dtype=torch.float64)
        dist = math.sqrt(5.0) * torch.cdist(X, X)
        best = (math.inf, 0.2, 0.05)
        for scale in LENGTH_SCALES:
            s = dist / scale
            base = (1.0 + s + s * s / 3.0) * torch.exp(-s)
            for noise in NOISES:
                value = _nll(base + (noise + 1e-8) * eye, z)
                if value < best[0]:
                    best = (value, scale, noise)
        log_ls = torch.full((X.shape[1],), math.log(best[1]), dtype=torch.float64, requires_grad=True)
        log_noise = torch.tensor(math.log(best[2]), dtype=torch.float64, requires_grad=True)
        start = (log_ls.detach().clone(), log_noise.detach().clone())
        opt = Adam([log_ls, log_noise], lr=0.1)  # torch's, without its torch._dynamo import
        for _ in range(self.refine_steps):
            opt.zero_grad()
            K = matern52(X, X, log_ls.clamp(-4.6, 2.3).exp()) + (log_noise.clamp(-9.2, 0.0).exp() + 1e-6) * eye
            L, info = torch.linalg.cholesky_ex(K)
            if info:
                break
            loss = 0.5 * (z.view(1, -1) @ torch.cholesky_solve(z.view(-1, 1), L)).squeeze() \
                + torch.log(torch.diagonal(L)).sum()
            loss.backward()
            opt.step()
        with torch.no_grad():
            ls, noise = log_ls.clamp(-4.6, 2.3).exp(), float(log_noise.clamp(-9.2, 0.0).exp()) + 1e-6
            K = matern52(X, X, ls) + noise * eye
            if not _nll(K, z) <= best[0]:  # the refinement went astray: keep the grid's choice
                ls, noise = start[0].exp(), float(start[1].exp())
        return ls, noise

    def predict(self, Xc: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(mean, std) of the latent function at points Xc (m, d), in the units of y."""
        Ks = matern52(Xc.double(), self.X, self.length_scale)
        mu = Ks @ self.alpha.view(-1)
        v = torch.linalg.solve_triangular(self.L, Ks.T, upper=False)
        var = (1.0 - (v * v).sum(0)).clamp_min(1e-12)
        return self.mean + self.std * mu, self.std * var.sqrt()


def _nll(K: torch.Tensor, z: torch.Tensor) -> float:
    """Negative log marginal likelihood (up to a constant) of targets z under covariance K."""
    L, info = torch.linalg.cholesky_ex(K)
    if info:
        return math.inf
    alpha = torch.cholesky_solve(z.view(-1, 1), L)
    return float(0.5 * (z.view(1, -1) @ alpha) + torch.log(torch.diagonal(L)).sum())


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
