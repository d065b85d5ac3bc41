"""Bijections of torch.distributions.transforms: forward, inverse, log|det J|."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ..activation import softplus
from ._common import clamp, finfo, tabs, tril_to_vec, vec_to_tril


def _diag_embed(v):
    return v[..., None] * jnp.eye(v.shape[-1], dtype=v.dtype)


def _pad_left(x, value):
    pad = jnp.full(x.shape[:-1] + (1,), value, x.dtype)
    return jnp.concatenate([pad, x], -1)


def _pad_right(x, value):
    pad = jnp.full(x.shape[:-1] + (1,), value, x.dtype)
    return jnp.concatenate([x, pad], -1)


def exp(x):
    return jnp.exp(x)


def log(y):
    return jnp.log(y)


def power(x, exponent):
    return x**exponent


def power_inv(y, exponent):
    return y ** (1 / exponent)


def power_log_abs_det_jacobian(x, y, exponent):
    return jnp.log(tabs(exponent * y / x))


def clipped_sigmoid(x):
    fi = finfo(x)
    return clamp(jax.nn.sigmoid(x), fi.tiny, 1.0 - fi.eps)


def sigmoid_inv(y):
    fi = finfo(y)
    y = clamp(y, fi.tiny, 1.0 - fi.eps)
    return jnp.log(y) - jnp.log1p(-y)


def sigmoid_log_abs_det_jacobian(x, y):
    return -softplus(-x) - softplus(x)


def softplus_fwd(x):
    return softplus(x)


def softplus_inv(y):
    return jnp.log(-jnp.expm1(-y)) + y


def softplus_log_abs_det_jacobian(x, y):
    return -softplus(-x)


def tanh(x):
    return jnp.tanh(x)


def atanh(y):
    return jnp.arctanh(y)


def tanh_log_abs_det_jacobian(x, y):
    return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


def affine(x, loc, scale):
    return loc + scale * x


def affine_inv(y, loc, scale):
    return (y - loc) / scale


def affine_log_abs_det_jacobian(x, scale, event_dim: int):
    shape = x.shape
    if isinstance(scale, int | float):
        result = jnp.full(x.shape, math.log(abs(scale)), x.dtype)
    else:
        result = jnp.log(tabs(scale))
    if event_dim:
        result = jnp.sum(result.reshape(result.shape[:-event_dim] + (-1,)), -1)
        shape = shape[:-event_dim]
    return jnp.broadcast_to(result, shape)


def softmax(x):
    probs = jnp.exp(x - jax.lax.stop_gradient(jnp.max(x, -1, keepdims=True)))
    return probs / jnp.sum(probs, -1, keepdims=True)


def _stick_offset(n, dtype):
    return jnp.log(n + 1 - jnp.cumsum(jnp.ones(n, dtype)))


def stick_breaking(x):
    z = clipped_sigmoid(x - _stick_offset(x.shape[-1], x.dtype))
    z_cumprod = jnp.cumprod(1 - z, -1)
    return _pad_right(z, 1) * _pad_left(z_cumprod, 1)


def stick_breaking_inv(y):
    y_crop = y[..., :-1]
    offset = jnp.log(y.shape[-1] - jnp.cumsum(jnp.ones(y_crop.shape[-1], y.dtype)))
    sf = clamp(1 - jnp.cumsum(y_crop, -1), finfo(y).tiny)
    return jnp.log(y_crop) - jnp.log(sf) + offset


def stick_breaking_log_abs_det_jacobian(x, y):
    x = x - _stick_offset(x.shape[-1], x.dtype)
    return jnp.sum(-x + jax.nn.log_sigmoid(x) + jnp.log(y[..., :-1]), -1)


def lower_cholesky(x):
    return jnp.tril(x, -1) + _diag_embed(jnp.exp(jnp.diagonal(x, axis1=-2, axis2=-1)))


def lower_cholesky_inv(y):
    return jnp.tril(y, -1) + _diag_embed(jnp.log(jnp.diagonal(y, axis1=-2, axis2=-1)))


def positive_definite(x):
    L = lower_cholesky(x)
    return L @ jnp.swapaxes(L, -1, -2)


def corr_cholesky(x):
    x = jnp.tanh(x)
    eps = finfo(x).eps
    x = clamp(x, -1 + eps, 1 - eps)
    n = round((0.25 + 2 * x.shape[-1]) ** 0.5 + 0.5)
    r = vec_to_tril(x, n, diag=-1)
    z1m_cumprod_sqrt = jnp.cumprod(jnp.sqrt(1 - r**2), -1)
    r = r + jnp.eye(n, dtype=r.dtype)
    return r * _pad_left(z1m_cumprod_sqrt[..., :-1], 1)


def corr_cholesky_inv(y):
    y_cumsum = 1 - jnp.cumsum(y * y, -1)
    y_cumsum_shifted = _pad_left(y_cumsum[..., :-1], 1)
    t = tril_to_vec(y, diag=-1) / jnp.sqrt(tril_to_vec(y_cumsum_shifted, diag=-1))
    return (jnp.log1p(t) - jnp.log1p(-t)) / 2


def corr_cholesky_log_abs_det_jacobian(x, y):
    y1m_cumsum = 1 - jnp.cumsum(y * y, -1)
    stick_breaking_logdet = 0.5 * jnp.sum(jnp.log(tril_to_vec(y1m_cumsum, diag=-2)), -1)
    tanh_logdet = -2 * jnp.sum(x + softplus(-2 * x) - math.log(2.0), -1)
    return stick_breaking_logdet + tanh_logdet
