"""Helpers shared by the distribution math: torch promotion, special functions, probs/logits."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np

from ..._dtypes import get_default_dtype
from .._util import cast, result_type
from ..loss import binary_cross_entropy_with_logits
from ..unary import float_result

EULER = 0.57721566490153286060
LOG_2PI = math.log(2 * math.pi)
lgamma = jss.gammaln
digamma = jss.digamma
xlogy = jss.xlogy
erf = jax.lax.erf
erfinv = jax.lax.erf_inv


def floats(*xs):
    """Cast operands to torch's (floating) result dtype of them all, as torch arithmetic does."""
    d = float_result(*xs)
    return tuple(cast(x, d) for x in xs)


def tabs(x):
    """|x| with torch's gradient at 0 (sign(0) = 0; JAX's abs has gradient 1 there)."""
    return x * jax.lax.stop_gradient(jnp.sign(x))


def floats_nb(*xs):
    """``floats`` for operands that need not broadcast together (vectors with matrices)."""
    d = result_type(*xs)
    if d._kind < 2:
        d = get_default_dtype()
    return tuple(cast(x, d) for x in xs)


def finfo(x):
    return jnp.finfo(jnp.result_type(x))


def full_like(x, v):
    return jnp.full(jnp.shape(x), v, jnp.result_type(x))


def clamp(x, lo=None, hi=None):
    """torch.clamp's gradient: the whole gradient passes at a bound (jnp.clip halves it)."""
    if lo is not None:
        x = jnp.where(x >= lo, x, jnp.asarray(lo, jnp.result_type(x)))
    if hi is not None:
        x = jnp.where(x <= hi, x, jnp.asarray(hi, jnp.result_type(x)))
    return x


def clamp_probs(p):
    eps = finfo(p).eps
    return clamp(p, eps, 1 - eps)


def probs_to_logits(probs, is_binary=False):
    p = clamp_probs(probs)
    return jnp.log(p) - jnp.log1p(-p) if is_binary else jnp.log(p)


def logits_to_probs(logits, is_binary=False):
    return jax.nn.sigmoid(logits) if is_binary else jax.nn.softmax(logits, axis=-1)


def bce_logits(logits, target):
    """Elementwise binary cross-entropy with logits (torch's reduction='none')."""
    logits, target = jnp.broadcast_arrays(*floats(logits, target))
    return binary_cross_entropy_with_logits(logits, target, reduction="none")


def mvlgamma(x, p: int):
    """torch.mvlgamma: the log of the multivariate gamma function of dimension ``p``."""
    j = jnp.arange(p, dtype=x.dtype) / 2
    return p * (p - 1) / 4 * math.log(math.pi) + jnp.sum(lgamma(x[..., None] - j), -1)


def mvdigamma(x, p: int):
    j = jnp.arange(p, dtype=x.dtype) / 2
    return jnp.sum(digamma(x[..., None] - j), -1)


def sum_rightmost(x, n: int):
    return jnp.sum(x, axis=tuple(range(-n, 0))) if n else x


def tril_indices(n: int, diag: int = 0):
    """Row and column indices of the lower triangle below diagonal ``diag``, row-major."""
    r = np.arange(n)
    return np.nonzero(r[None, :] < r[:, None] + (diag + 1))


def tril_to_vec(mat, diag=0):
    rows, cols = tril_indices(mat.shape[-1], diag)
    return mat[..., rows, cols]


def vec_to_tril(vec, n: int, diag=0):
    rows, cols = tril_indices(n, diag)
    return jnp.zeros(vec.shape[:-1] + (n, n), vec.dtype).at[..., rows, cols].set(vec)


def clamp_tiny_keep_grad(x):
    """``x.detach().clamp_(min=tiny)``: the value is clamped, the gradient is x's own."""
    return x + jax.lax.stop_gradient(jnp.maximum(x, finfo(x).tiny) - x)


def batch_mv(mat, vec):
    return jnp.matmul(mat, vec[..., None])[..., 0]


def solve_tril(L, b):
    return jax.scipy.linalg.solve_triangular(L, b, lower=True)


def mahalanobis(L, x):
    """Squared Mahalanobis distance ``x^T (L L^T)^-1 x`` for batches of L and x."""
    n = x.shape[-1]
    shape = jnp.broadcast_shapes(L.shape[:-2], x.shape[:-1])
    Lb = jnp.broadcast_to(L, shape + (n, n))
    xb = jnp.broadcast_to(x, shape + (n,))
    return jnp.sum(solve_tril(Lb, xb[..., None])[..., 0] ** 2, -1)


def half_log_det(L):
    return jnp.sum(jnp.log(jnp.diagonal(L, axis1=-2, axis2=-1)), -1)
