"""Advanced indexing, index_put, index_add, scatter and masked_fill as pure functions.

An index is described by a static ``spec`` (ints, ``(start, stop, step)`` slices, None,
and ``"T"`` for each index array) plus the index arrays themselves, so the structure
keys the compiled kernel while the arrays stay dynamic.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from ._util import cast, dtype_of, is_scalar, norm_dim
from .elementwise import to_dtype


def _build(spec, indices):
    it = iter(indices)
    return tuple(
        next(it) if s == "T" else slice(*s) if isinstance(s, tuple) else s for s in spec
    )


def index(input, indices, spec):
    """``input[idx]`` with integer index arrays (bool masks arrive as their nonzero indices)."""
    return input[_build(spec, indices)]


def _check_broadcast(values_shape, target_shape):
    try:
        np.broadcast_shapes(tuple(values_shape), tuple(target_shape))
        ok = len(values_shape) <= len(target_shape) or all(
            s == 1 for s in values_shape[: len(values_shape) - len(target_shape)]
        )
    except ValueError:
        ok = False
    if not ok or np.broadcast_shapes(tuple(values_shape), tuple(target_shape)) != tuple(
        target_shape
    ):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values_shape)} cannot be broadcast to "
            f"indexing result of shape {list(target_shape)}"
        )


def index_put(input, indices, values, spec, accumulate=False):
    """``input[idx] = values`` (``accumulate`` adds, counting repeated indices)."""
    idx = _build(spec, indices)
    target = jax.eval_shape(lambda x: x[idx], jax.ShapeDtypeStruct(input.shape, input.dtype))
    vals = to_dtype(values, dtype_of(input))
    _check_broadcast(jnp.shape(vals), target.shape)
    vals = jnp.broadcast_to(vals, target.shape)
    return input.at[idx].add(vals) if accumulate else input.at[idx].set(vals)


def index_add(input, dim, index, source, *, alpha=1):
    d = norm_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError("index_add_(): Index is supposed to be a vector")
    src = to_dtype(source, dtype_of(input))
    if not (is_scalar(alpha) and alpha == 1):
        src = src * cast(alpha, dtype_of(input))
    if input.ndim == 0:
        return input + jnp.sum(src)
    return input.at[(slice(None),) * d + (index,)].add(src)


def _scatter_index(input, dim, index):
    d = norm_dim(dim, input.ndim)
    if index.ndim != input.ndim:
        raise RuntimeError(
            "Index tensor must have the same number of dimensions as self tensor"
        )
    grid = list(jnp.indices(index.shape, sparse=True))
    grid[d] = index
    return tuple(grid), d


def scatter(input, dim, index, src, reduce=None):
    """torch.scatter: ``out[..., index[i, j], ...] = src[i, j]`` along ``dim``."""
    if dtype_of(index) is not D.int64:
        raise RuntimeError("scatter(): Expected dtype int64 for index")
    idx, _ = _scatter_index(input, dim, index)
    vals = to_dtype(src, dtype_of(input))
    if jnp.ndim(vals):
        vals = vals[tuple(slice(0, n) for n in index.shape)]
    vals = jnp.broadcast_to(vals, index.shape)
    if reduce is None:
        return input.at[idx].set(vals)
    if reduce == "add":
        return input.at[idx].add(vals)
    if reduce == "multiply":
        return input.at[idx].multiply(vals)
    raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")


def scatter_add(input, dim, index, src):
    return scatter(input, dim, index, src, reduce="add")


def gather(input, dim, index):
    idx, _ = _scatter_index(input, dim, index)
    return input[idx]


def masked_fill(input, mask, value):
    if dtype_of(mask) is not D.bool:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{dtype_of(mask).name}"
        )
    if not is_scalar(value) and value.ndim != 0:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.ndim} dimension(s)."
        )
    return jnp.where(mask, to_dtype(value, dtype_of(input)), input)
