"""Scans along one dim: cumsum, cumprod, cummax, cummin, logcumsumexp, and diff."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import dtype_of, norm_dim, not_implemented
from .elementwise import to_dtype
from .reduction import _acc


def _scan_dtype(input, dtype):
    if dtype is None:
        d = dtype_of(input)
        dtype = D.int64 if d._kind < 2 else d
    return dtype


def cumsum(input, dim, *, dtype=None):
    """torch.cumsum: integer and bool inputs accumulate in int64; halves in float32."""
    d = norm_dim(dim, input.ndim)
    x = to_dtype(input, _scan_dtype(input, dtype))
    if input.ndim == 0:
        return x
    return jnp.cumsum(_acc(x), axis=d).astype(x.dtype)


def cumprod(input, dim, *, dtype=None):
    """torch.cumprod: as cumsum; the gradient is exact where elements are 0."""
    d = norm_dim(dim, input.ndim)
    x = to_dtype(input, _scan_dtype(input, dtype))
    if input.ndim == 0:
        return x
    # lax.cumprod's derivative is a scan of products, never a division by the input.
    return jax.lax.cumprod(_acc(x), axis=d).astype(x.dtype)


def _cum_extreme(name, better):
    def op(input, dim):
        d = norm_dim(dim, input.ndim)
        if dtype_of(input)._kind == 3:
            raise RuntimeError(f"{name}(): does not support complex input")
        if input.ndim == 0 or input.size == 0:
            return input, jnp.zeros(input.shape, jnp.int64)
        pos = jnp.broadcast_to(
            jnp.arange(input.shape[d]).reshape((-1,) + (1,) * (input.ndim - d - 1)),
            input.shape)

        def combine(a, b):
            # b is later: it wins when NaN, or when a is not NaN and b is at least as good,
            # so ties go to the later index and NaN propagates with its own index.
            nan_a, nan_b = jnp.isnan(a[0]), jnp.isnan(b[0])
            take = nan_b | (~nan_a & better(b[0], a[0]))
            return jnp.where(take, b[0], a[0]), jnp.where(take, b[1], a[1])

        x = input.astype(jnp.float32) if input.dtype == jnp.bool_ else input
        _, idx = jax.lax.associative_scan(combine, (x, pos), axis=d)
        idx = idx.astype(jnp.int64)
        return jnp.take_along_axis(input, idx, axis=d), idx

    op.__name__ = name
    op.__doc__ = f"torch.{name}: running (values, indices); ties take the later index."
    return op


cummax = _cum_extreme("cummax", lambda b, a: b >= a)
cummin = _cum_extreme("cummin", lambda b, a: b <= a)


def logcumsumexp(input, dim):
    """torch.logcumsumexp: log(cumsum(exp(input))), computed stably."""
    d = norm_dim(dim, input.ndim)
    if dtype_of(input)._kind < 2:
        raise not_implemented("logcumsumexp_out_cpu", dtype_of(input))
    if input.ndim == 0:
        return input
    return jax.lax.cumlogsumexp(_acc(input), axis=d).astype(input.dtype)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """torch.diff: the n-th forward difference along dim (logical xor for bool)."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = norm_dim(dim, input.ndim)
    parts = [p for p in (prepend, input, append) if p is not None]
    if any(jnp.ndim(p) != input.ndim for p in parts):
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if len(parts) > 1:
        common = D.result_type_of([(dtype_of(p), 1) for p in parts])
        parts = [to_dtype(p, common) for p in parts]
    x = jnp.concatenate(parts, axis=d) if len(parts) > 1 else input
    for _ in range(min(n, x.shape[d])):
        hi = jax.lax.slice_in_dim(x, 1, x.shape[d], axis=d)
        lo = jax.lax.slice_in_dim(x, 0, x.shape[d] - 1, axis=d)
        x = hi != lo if x.dtype == jnp.bool_ else hi - lo
    return x
