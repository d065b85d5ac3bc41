"""The ``*_scatter`` ops (a copy of ``input`` with one of its views replaced by ``src``)
and ``fill_diagonal``: the functional forms of writing through a view."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _strides
from ._util import cast, dtype_of, norm_dim
from .shape import check_storage_bounds, strided_index


def _check_src(src, slice_shape) -> None:
    if tuple(src.shape) != tuple(slice_shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(slice_shape)}")


def select_scatter(input, src, dim, index):
    d = norm_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    _check_src(src, input.shape[:d] + input.shape[d + 1:])
    return lax.dynamic_update_index_in_dim(input, cast(src, dtype_of(input)), index % n, d)


def _slice_bounds(n: int, start, end, step) -> slice:
    """torch's slice clamping (no negative steps)."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    start = 0 if start is None else start + n if start < 0 else start
    end = n if end is None else end + n if end < 0 else end
    start = min(max(start, 0), n)
    return slice(start, min(max(end, start), n), step)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    d = norm_dim(dim, input.ndim)
    index = (slice(None),) * d + (_slice_bounds(input.shape[d], start, end, step),)
    _check_src(src, np.empty(input.shape, bool)[index].shape)
    return input.at[index].set(cast(src, dtype_of(input)))


def _diagonal_index(shape, offset, d1, d2):
    """Rows and columns of the diagonal of dims ``d1``, ``d2`` (moved last)."""
    n1, n2 = shape[d1], shape[d2]
    length = max(0, min(n1 + min(offset, 0), n2 - max(offset, 0)))
    i = np.arange(length)
    return i - min(offset, 0), i + max(offset, 0)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    d1, d2 = norm_dim(dim1, input.ndim), norm_dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rows, cols = _diagonal_index(input.shape, offset, d1, d2)
    rest = tuple(s for i, s in enumerate(input.shape) if i not in (d1, d2))
    _check_src(src, rest + (len(rows),))
    moved = jnp.moveaxis(input, (d1, d2), (-2, -1))
    moved = moved.at[..., rows, cols].set(cast(src, dtype_of(input)))
    return jnp.moveaxis(moved, (-2, -1), (d1, d2))


def as_strided_scatter(input, src, size, stride, storage_offset=None, input_stride=None):
    """``input`` with the elements its ``as_strided(size, stride, storage_offset)`` view
    reads replaced by ``src``; memory is laid out by ``input_stride`` (default: row-major),
    gaps included. Where the view aliases, its last element in row-major order wins
    (PyTorch's CPU copy order)."""
    shape = tuple(input.shape)
    in_stride = (_strides.contiguous_strides(shape) if input_stride is None
                 else tuple(input_stride))
    memory_size = (1 + sum((n - 1) * st for n, st in zip(shape, in_stride, strict=True))
                   if math.prod(shape) else 0)
    offset = 0 if storage_offset is None else storage_offset
    size, stride = tuple(size), tuple(stride)
    _check_bounds(input, memory_size, size, stride, offset)
    _check_src(src, size)
    where = strided_index(shape, in_stride, 0).reshape(-1)  # each input element's address
    memory = jnp.zeros(memory_size, input.dtype).at[where].set(input.reshape(-1))
    idx = strided_index(size, stride, offset).reshape(-1)
    last = np.full(memory_size, -1)
    last[idx] = np.arange(idx.size)  # NumPy keeps the last assignment to a repeated index
    hit = np.nonzero(last >= 0)[0]
    memory = memory.at[hit].set(cast(src, dtype_of(input)).reshape(-1)[last[hit]])
    return memory[where].reshape(shape)


def _check_bounds(input, memory_size, size, stride, offset) -> None:
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs "
                           f"{len(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment")
    check_storage_bounds(input, memory_size, size, stride, offset)


def fill_diagonal(input, fill_value, wrap=False):
    """``input`` with its main diagonal set to ``fill_value`` (all dims of equal length when
    more than two; a tall matrix restarts the diagonal below itself with ``wrap``)."""
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = np.zeros(math.prod(shape), bool)
    if len(shape) == 2:
        rows, cols = shape
        end = rows * cols if wrap and rows > cols else min(rows, cols) * cols
        mask[0:end:cols + 1] = True
    else:
        mask[0::sum(_strides.contiguous_strides(shape))] = True
    return jnp.where(mask.reshape(shape), cast(fill_value, dtype_of(input)), input)
