"""Multivariate families: MultivariateNormal, LowRankMultivariateNormal, Wishart, LKJCholesky.

Matrices are parameterised by their unbroadcasted lower Cholesky factor ``L`` (the
Distribution computes it once), so batch dimensions broadcast inside each function.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ._common import (
    LOG_2PI,
    batch_mv,
    clamp,
    finfo,
    floats_nb,
    half_log_det,
    lgamma,
    mahalanobis,
    mvdigamma,
    mvlgamma,
    solve_tril,
)
from .gamma import gamma_rsample, standard_gamma

_LOG_2 = math.log(2)


def _eye_like(x):
    return jnp.eye(x.shape[-1], dtype=x.dtype)


def _diag_embed(v):
    return v[..., None] * jnp.eye(v.shape[-1], dtype=v.dtype)


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def precision_to_scale_tril(P):
    """The lower Cholesky factor of ``P^-1``, without forming the inverse."""
    Lf = jnp.linalg.cholesky(jnp.flip(P, (-2, -1)))
    L_inv = _mT(jnp.flip(Lf, (-2, -1)))
    eye = jnp.broadcast_to(_eye_like(P), P.shape)
    return solve_tril(L_inv, eye)


def cholesky_inverse(L):
    Linv = solve_tril(L, jnp.broadcast_to(_eye_like(L), L.shape))
    return _mT(Linv) @ Linv


# ------------------------------------------------------------------ MultivariateNormal


def multivariate_normal_log_prob(x, loc, scale_tril):
    x, loc, L = floats_nb(x, loc, scale_tril)
    m = mahalanobis(L, x - loc)
    return -0.5 * (loc.shape[-1] * LOG_2PI + m) - half_log_det(L)


def multivariate_normal_entropy(loc, scale_tril):
    h = 0.5 * loc.shape[-1] * (1.0 + LOG_2PI) + half_log_det(scale_tril)
    return jnp.broadcast_to(h, loc.shape[:-1])


def multivariate_normal_rsample(key, shape, loc, scale_tril):
    eps = jax.random.normal(key, shape, loc.dtype)
    return loc + batch_mv(scale_tril, eps)


def multivariate_normal_variance(loc, scale_tril):
    return jnp.broadcast_to(jnp.sum(scale_tril**2, -1), loc.shape)


def multivariate_normal_covariance(loc, scale_tril):
    return jnp.broadcast_to(scale_tril @ _mT(scale_tril), loc.shape + loc.shape[-1:])


def multivariate_normal_precision(loc, scale_tril):
    return jnp.broadcast_to(cholesky_inverse(scale_tril), loc.shape + loc.shape[-1:])


def multivariate_normal_scale_tril(loc, scale_tril):
    return jnp.broadcast_to(scale_tril, loc.shape + loc.shape[-1:])


# ------------------------------------------------------------------ LowRankMultivariateNormal


def capacitance_tril(W, D):
    """Cholesky factor of ``I + W^T D^-1 W`` (the capacitance of the low-rank covariance)."""
    K = (_mT(W) / D[..., None, :]) @ W
    return jnp.linalg.cholesky(K + _eye_like(K))


def lowrank_logdet(W, D, C):
    return 2 * half_log_det(C) + jnp.sum(jnp.log(D), -1)


def lowrank_mahalanobis(W, D, x, C):
    wt_dinv_x = batch_mv(_mT(W) / D[..., None, :], x)
    return jnp.sum(x**2 / D, -1) - mahalanobis(C, wt_dinv_x)


def low_rank_multivariate_normal_log_prob(x, loc, cov_factor, cov_diag, cap_tril):
    x, loc, W, D, C = floats_nb(x, loc, cov_factor, cov_diag, cap_tril)
    m = lowrank_mahalanobis(W, D, x - loc, C)
    return -0.5 * (loc.shape[-1] * LOG_2PI + lowrank_logdet(W, D, C) + m)


def low_rank_multivariate_normal_entropy(loc, cov_factor, cov_diag, cap_tril):
    h = 0.5 * (loc.shape[-1] * (1.0 + LOG_2PI) + lowrank_logdet(cov_factor, cov_diag, cap_tril))
    return jnp.broadcast_to(h, loc.shape[:-1])


def low_rank_multivariate_normal_rsample(key, shape, loc, cov_factor, cov_diag, cap_tril):
    k1, k2 = jax.random.split(key)
    eps_w = jax.random.normal(k1, shape[:-1] + cov_factor.shape[-1:], loc.dtype)
    eps_d = jax.random.normal(k2, shape, loc.dtype)
    return loc + batch_mv(cov_factor, eps_w) + jnp.sqrt(cov_diag) * eps_d


def low_rank_multivariate_normal_variance(loc, cov_factor, cov_diag, cap_tril):
    return jnp.broadcast_to(jnp.sum(cov_factor**2, -1) + cov_diag, loc.shape)


def low_rank_multivariate_normal_scale_tril(loc, cov_factor, cov_diag, cap_tril):
    d_sqrt = jnp.sqrt(cov_diag)[..., None]
    w = cov_factor / d_sqrt
    K = w @ _mT(w)
    L = d_sqrt * jnp.linalg.cholesky(K + _eye_like(K))
    return jnp.broadcast_to(L, loc.shape + loc.shape[-1:])


def low_rank_multivariate_normal_covariance(loc, cov_factor, cov_diag, cap_tril):
    cov = cov_factor @ _mT(cov_factor) + _diag_embed(cov_diag)
    return jnp.broadcast_to(cov, loc.shape + loc.shape[-1:])


def low_rank_multivariate_normal_precision(loc, cov_factor, cov_diag, cap_tril):
    wt_dinv = _mT(cov_factor) / cov_diag[..., None, :]
    shape = jnp.broadcast_shapes(cap_tril.shape[:-2], wt_dinv.shape[:-2])
    A = solve_tril(jnp.broadcast_to(cap_tril, shape + cap_tril.shape[-2:]),
                   jnp.broadcast_to(wt_dinv, shape + wt_dinv.shape[-2:]))
    prec = _diag_embed(1 / cov_diag) - _mT(A) @ A
    return jnp.broadcast_to(prec, loc.shape + loc.shape[-1:])


# ------------------------------------------------------------------ Wishart


def _cholesky_solve(B, L):
    """``(L L^T)^-1 B``, broadcasting the batch dimensions of B and L."""
    shape = jnp.broadcast_shapes(B.shape[:-2], L.shape[:-2])
    L = jnp.broadcast_to(L, shape + L.shape[-2:])
    y = solve_tril(L, jnp.broadcast_to(B, shape + B.shape[-2:]))
    return jax.scipy.linalg.solve_triangular(L, y, lower=True, trans=1)


def wishart_log_prob(x, df, scale_tril):
    x, nu, L = floats_nb(x, df, scale_tril)
    p = L.shape[-1]
    logabsdet = jnp.linalg.slogdet(x)[1]
    trace = jnp.trace(_cholesky_solve(x, L), axis1=-2, axis2=-1)
    return (-nu * (p * _LOG_2 / 2 + half_log_det(L)) - mvlgamma(nu / 2, p)
            + (nu - p - 1) / 2 * logabsdet - trace / 2)


def wishart_entropy(df, scale_tril):
    p = scale_tril.shape[-1]
    nu = df
    return ((p + 1) * (p * _LOG_2 / 2 + half_log_det(scale_tril)) + mvlgamma(nu / 2, p)
            - (nu - p - 1) / 2 * mvdigamma(nu / 2, p) + nu * p / 2)


def wishart_covariance(df, scale_tril):
    cov = scale_tril @ _mT(scale_tril)
    return jnp.broadcast_to(cov, df.shape + cov.shape[-2:])


def wishart_precision(df, scale_tril):
    prec = cholesky_inverse(scale_tril)
    return jnp.broadcast_to(prec, df.shape + prec.shape[-2:])


def wishart_mean(df, scale_tril):
    return df[..., None, None] * wishart_covariance(df, scale_tril)


def wishart_mode(df, scale_tril):
    factor = df - scale_tril.shape[-1] - 1
    factor = jnp.where(factor <= 0, jnp.nan, factor)
    return factor[..., None, None] * wishart_covariance(df, scale_tril)


def wishart_variance(df, scale_tril):
    V = wishart_covariance(df, scale_tril)
    d = jnp.diagonal(V, axis1=-2, axis2=-1)
    return df[..., None, None] * (V**2 + d[..., :, None] * d[..., None, :])


def wishart_rsample(key, shape, df, scale_tril):
    """Bartlett decomposition: ``L A A^T L^T`` with chi-distributed diagonal in ``A``."""
    p = shape[-1]
    k1, k2 = jax.random.split(key)
    chi2_df = df[..., None] - jnp.arange(p, dtype=df.dtype)
    chi2 = gamma_rsample(k1, shape[:-1], 0.5 * chi2_df, jnp.full_like(chi2_df, 0.5))
    noise = _diag_embed(clamp(jnp.sqrt(chi2), finfo(chi2).eps))
    rows, cols = jnp.tril_indices(p, -1)
    off = jax.random.normal(k2, shape[:-2] + (p * (p - 1) // 2,), df.dtype)
    noise = noise.at[..., rows, cols].set(off)
    chol = scale_tril @ noise
    return chol @ _mT(chol)


def wishart_natural_params(df, precision, p: int):
    return -precision / 2, (df - p - 1) / 2


def wishart_log_normalizer(x, y):
    p = x.shape[-1]
    logabsdet = jnp.linalg.slogdet(-2 * x)[1]
    return (y + (p + 1) / 2) * (-logabsdet + _LOG_2 * p) + mvlgamma(y + (p + 1) / 2, p)


# ------------------------------------------------------------------ LKJCholesky


def lkj_cholesky_log_prob(x, concentration):
    x, c = floats_nb(x, concentration)
    dim = x.shape[-1]
    diag = jnp.diagonal(x, axis1=-1, axis2=-2)[..., 1:]
    order = 2 * (c - 1)[..., None] + dim - jnp.arange(2, dim + 1)
    unnormalized = jnp.sum(order * jnp.log(diag), -1)
    dm1 = dim - 1
    alpha = c + 0.5 * dm1
    normalize = 0.5 * dm1 * math.log(math.pi) + mvlgamma(alpha - 0.5, dm1) - lgamma(alpha) * dm1
    return unnormalized - normalize


def lkj_cholesky_sample(key, shape, concentration):
    """Onion method: a Beta draw per row sets the row's length off the diagonal."""
    dim = shape[-1]
    k1, k2 = jax.random.split(key)
    offset = jnp.concatenate([jnp.zeros(1), jnp.arange(dim - 1)]).astype(concentration.dtype)
    marginal = concentration + 0.5 * (dim - 2)
    c1 = jnp.broadcast_to(offset + 0.5, shape[:-1])
    c0 = jnp.broadcast_to(marginal[..., None] - 0.5 * offset, shape[:-1])
    g = standard_gamma(k1, shape[:-1] + (2,), jnp.stack([c1, c0], -1))
    y = (g[..., 0] / jnp.sum(g, -1))[..., None]
    u = jnp.tril(jax.random.normal(k2, shape, concentration.dtype), -1)
    norm = jnp.linalg.norm(u, axis=-1, keepdims=True)
    u = (u / jnp.where(norm == 0, 1, norm)).at[..., 0, :].set(0.0)
    w = jnp.sqrt(y) * u
    diag = jnp.sqrt(clamp(1 - jnp.sum(w**2, -1), finfo(w).tiny))
    return w + _diag_embed(diag)
