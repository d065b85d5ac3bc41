"""View ops as pure functions, each with its inverse scatter, plus cat and stack.

A view in the eager layer is a chain of these forward steps applied to a storage's base
value; writing through the view applies the ``scatter`` inverses in reverse order
(PrimTorch's ``slice_scatter``/``select_scatter`` idea). Steps whose inverse has no
cheap structured form scatter through an index map: the forward step applied to
``arange(base.size)`` tells where every view element lives in the base.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _strides
from ._util import cast, norm_dim, result_type


def _with_scatter(scatter):
    def deco(fn):
        fn.scatter = scatter
        return fn

    return deco


def _scatter_by_index_map(fwd):
    def scatter(base, src, **kw):
        idx = np.asarray(fwd(np.arange(base.size).reshape(base.shape), **kw))
        flat = base.reshape(-1).at[idx.reshape(-1)].set(src.reshape(-1).astype(base.dtype))
        return flat.reshape(base.shape)

    return scatter


def apply_chain(x, chain):
    """Read a view: apply each ``(fn, kwargs)`` step of ``chain`` to the base value."""
    for fn, kw in chain:
        x = fn(x, **dict(kw))
    return x


def scatter_chain(base, chain, src):
    """Write a view: return ``base`` with the elements the chain selects replaced by ``src``."""
    if not chain:
        return jnp.broadcast_to(src, base.shape).astype(base.dtype)
    (fn, kw), rest = chain[0], chain[1:]
    kw = dict(kw)
    mid = fn(base, **kw)
    return fn.scatter(base, scatter_chain(mid, rest, src), **kw)


# ------------------------------------------------------------------ the view steps


@_with_scatter(lambda base, src, size: src.reshape(base.shape))
def view(input, size):
    return jnp.reshape(input, _strides.infer_size(size, input.size))


@_with_scatter(lambda base, src, dim0, dim1: jnp.swapaxes(src, dim0, dim1))
def transpose(input, dim0, dim1):
    if input.ndim == 0:
        return input
    return jnp.swapaxes(input, norm_dim(dim0, input.ndim), norm_dim(dim1, input.ndim))


@_with_scatter(lambda base, src: src.T)
def t(input):
    return input.T


@_with_scatter(lambda base, src, dims: jnp.transpose(src, np.argsort(dims)))
def permute(input, dims):
    return jnp.transpose(input, tuple(norm_dim(d, input.ndim) for d in dims))


@_with_scatter(lambda base, src, dim=None: src.reshape(base.shape))
def squeeze(input, dim=None):
    return jnp.reshape(input, _strides.g_squeeze(input.shape, input.shape, 0, dim)[0])


@_with_scatter(lambda base, src, dim: src.reshape(base.shape))
def unsqueeze(input, dim):
    return jnp.expand_dims(input, norm_dim(dim, input.ndim + 1))


def _select_scatter(base, src, dim, index):
    return lax.dynamic_update_index_in_dim(base, src.astype(base.dtype), index, dim)


@_with_scatter(_select_scatter)
def select(input, dim, index):
    dim = norm_dim(dim, input.ndim)
    return lax.index_in_dim(input, index % input.shape[dim], dim, keepdims=False)


def _narrow_scatter(base, src, dim, start, length):
    return lax.dynamic_update_slice_in_dim(base, src.astype(base.dtype), start, dim)


@_with_scatter(_narrow_scatter)
def narrow(input, dim, start, length):
    dim = norm_dim(dim, input.ndim)
    start %= max(input.shape[dim], 1)
    return lax.slice_in_dim(input, start, start + length, axis=dim)


def _getitem_scatter(base, src, index):
    return base.at[_as_jax_index(index)].set(src.astype(base.dtype))


def _as_jax_index(index):
    return tuple(slice(*i) if isinstance(i, tuple) else i for i in index)


@_with_scatter(_getitem_scatter)
def getitem(input, index):
    """Basic indexing with an index from ``_strides.normalize_basic_index``."""
    return input[_as_jax_index(index)]


def diagonal(input, offset=0, dim1=0, dim2=1):
    return jnp.diagonal(input, offset, norm_dim(dim1, input.ndim), norm_dim(dim2, input.ndim))


def expand(input, size):
    return jnp.broadcast_to(input, _strides.g_expand(input.shape, (0,) * input.ndim, 0, size)[0])


def unfold(input, dimension, size, step):
    if input.ndim == 0:
        return jnp.reshape(input, (1,))
    d = norm_dim(dimension, input.ndim)
    count = (input.shape[d] - size) // step + 1
    idx = np.arange(count)[:, None] * step + np.arange(size)[None, :]
    windows = jnp.take(input, idx, axis=d)  # dims: ..., count, size, ...
    return jnp.moveaxis(windows, d + 1, -1)


def as_strided(input, size, stride, storage_offset=0):
    """Read ``input``'s elements as if it were row-major memory, with torch's strides."""
    idx = storage_offset + sum(
        np.arange(n).reshape((-1,) + (1,) * (len(size) - i - 1)) * s
        for i, (n, s) in enumerate(zip(size, stride))
    )
    idx = np.broadcast_to(np.asarray(idx, dtype=np.int64), tuple(size))
    if idx.size and idx.max() >= input.size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{storage_offset} require more storage than the tensor has ({input.size} elements)"
        )
    return jnp.reshape(input, -1)[idx]


for _fn in (diagonal, expand, unfold, as_strided):
    _fn.scatter = _scatter_by_index_map(_fn)


def reshape(input, shape):
    return jnp.reshape(input, _strides.infer_size(shape, input.size))


# ------------------------------------------------------------------ joining


def _check_cat_inputs(tensors, name):
    if not tensors:
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")
    for i, x in enumerate(tensors):
        if name == "torch.cat" and x.ndim == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {i}) cannot be concatenated"
            )


def cat(tensors, dim=0):
    """torch.cat: promotes across inputs; legacy 1-D empty tensors are skipped."""
    tensors = tuple(tensors)
    _check_cat_inputs(tensors, "torch.cat")
    dtype = result_type(*tensors)
    parts = [x for x in tensors if not (x.ndim == 1 and x.shape[0] == 0)]
    if not parts:
        return cast(tensors[0], dtype)
    ref = parts[0]
    d = norm_dim(dim, ref.ndim)
    for i, x in enumerate(parts):
        if x.ndim != ref.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ref.ndim} and {x.ndim}"
            )
        for k in range(ref.ndim):
            if k != d and x.shape[k] != ref.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref.shape[k]} but got size {x.shape[k]} for tensor number {i} in the list."
                )
    return jnp.concatenate([cast(x, dtype) for x in parts], axis=d)


def stack(tensors, dim=0):
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, x in enumerate(tensors):
        if x.shape != tensors[0].shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} "
                f"at entry 0 and {list(x.shape)} at entry {i}"
            )
    dtype = result_type(*tensors)
    d = norm_dim(dim, tensors[0].ndim + 1)
    return jnp.stack([cast(x, dtype) for x in tensors], axis=d)


def numel(shape) -> int:
    return math.prod(shape)
