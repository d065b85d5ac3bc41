"""torch.cov and torch.corrcoef: PyTorch's composition (weighted mean, centred product,
normalization by ``sum(w) - correction``), so its dtypes and gradients. The checks that read
values (negative or zero-sum weights, degrees of freedom) run on the host in _ops/linalg_more.
"""

from __future__ import annotations

import jax.numpy as jnp

from .. import _dtypes as D
from ._util import dtype_of
from .elementwise import div, mul, sub

__all__ = ["cov", "corrcoef"]


def _check_weights(name, w, observations, integral):
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w.ndim} dimensions")
    kind = dtype_of(w)._kind
    if integral and kind != 1:
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} "
                           f"with {D.legacy_name(dtype_of(w))} dtype")
    if not integral and kind != 2:
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got "
                           f"{name} with {D.legacy_name(dtype_of(w))} dtype")
    if w.size != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w.size} != {observations}")


def weights(input, fweights, aweights):
    """The observation weights (fweights * aweights), or None; checks their shapes and
    dtypes as PyTorch does."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    if dtype_of(input) is D.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    observations = input.shape[-1] if input.ndim else 1
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations, True)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations, False)
        w = aweights if w is None else mul(w, aweights)
    return w


def norm_factor(w_sum, correction, w, aweights):
    if w is not None and aweights is not None and correction != 0:
        return sub(w_sum, div(mul(correction, jnp.sum(mul(w, aweights))), w_sum))
    return sub(w_sum, correction)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """torch.cov: the covariance of the rows (variables) over the columns (observations)."""
    w = weights(input, fweights, aweights)
    x = jnp.reshape(input, (1, -1)) if input.ndim < 2 else input
    w_sum = jnp.sum(w) if w is not None else jnp.asarray(x.shape[1], jnp.int64)
    avg = div(jnp.sum(mul(x, w) if w is not None else x, axis=1), w_sum)
    factor = norm_factor(w_sum, correction, w, aweights)
    factor = jnp.where(factor <= 0, jnp.zeros_like(factor), factor)
    x = sub(x, avg[:, None])
    other = mul(x, w) if w is not None else x
    c = jnp.matmul(x, jnp.conj(other.T))
    return jnp.squeeze(div(c, factor))


def _clip(x):
    # clamp's gradient: 1 on the closed interval [-1, 1] (jnp.clip halves it at the ends).
    return jnp.where(x > 1, jnp.ones_like(x), jnp.where(x < -1, -jnp.ones_like(x), x))


def corrcoef(input):
    """torch.corrcoef: Pearson's correlation coefficients of the rows, clipped to [-1, 1]."""
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but "
                           f"got an input with {input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = jnp.diagonal(c)
    std = jnp.sqrt(jnp.real(d)).astype(c.dtype)
    c = c / std[:, None] / std[None, :]
    if jnp.iscomplexobj(c):
        return _clip(jnp.real(c)) + 1j * _clip(jnp.imag(c))
    return _clip(c)
