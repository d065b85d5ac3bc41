"""Index builders and assembling ops: ``tril_indices``/``triu_indices``, ``block_diag``,
``cartesian_prod``, ``combinations``, ``unravel_index``, ``nonzero_static``, ``isin``,
``complex``/``polar``, ``renorm``, ``norm_except_dim``, ``index_reduce`` and
``segment_reduce``."""

from __future__ import annotations

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from ._util import cast, dtype_of, norm_dim, result_type
from .scatter_reduce import scatter_reduce


def _tri_indices(name, row, col, offset, dtype, lower):
    for what, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{what} must be non-negative, got{v}")
    d = D.int64 if dtype is None else dtype
    if d._kind != 1:
        raise NotImplementedError(f'"{name}" not implemented for \'{D.legacy_name(d)}\'')
    r, c = np.indices((row, col)).reshape(2, -1)
    keep = (c - r <= offset) if lower else (c - r >= offset)
    return jnp.asarray(np.stack([r[keep], c[keep]]).reshape(2, -1), d.np)


def tril_indices(row, col, offset=0, *, dtype=None):
    """Row and column indices of the lower triangle (row-major order)."""
    return _tri_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row, col, offset=0, *, dtype=None):
    return _tri_indices("triu_indices", row, col, offset, dtype, False)


def block_diag(tensors):
    """The tensors (0-, 1- or 2-dim) along the diagonal of one matrix, in their common dtype."""
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.ndim} dimensions")
    d = result_type(*tensors) if tensors else D.get_default_dtype()
    blocks = [jnp.reshape(t, (1, -1) if t.ndim < 2 else t.shape) for t in tensors]
    rows, cols = sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)
    out = jnp.zeros((rows if tensors else 1, cols), d.np)
    r = c = 0
    for b in blocks:
        out = out.at[r:r + b.shape[0], c:c + b.shape[1]].set(cast(b, d))
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def _vector(x) -> None:
    if x.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(x.shape)}")


def cartesian_prod(tensors):
    """Every combination of one element of each 1-D tensor, one row per combination."""
    for t in tensors:
        _vector(t)
    if len({dtype_of(t) for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if len(tensors) == 1:
        return tensors[0]
    grids = jnp.meshgrid(*tensors, indexing="ij")
    return jnp.stack([g.reshape(-1) for g in grids], axis=1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-D tensor's elements (itertools' order)."""
    _vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return jnp.zeros((0,), input.dtype)
    pick = (itertools.combinations_with_replacement if with_replacement
            else itertools.combinations)
    idx = np.asarray(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return input[idx]


def unravel_index(indices, shape):
    """Coordinates in ``shape`` of flat row-major ``indices`` (wrapping as PyTorch's floor
    arithmetic does for out-of-range ones)."""
    if dtype_of(indices)._kind != 1:
        raise TypeError(f"expected 'indices' to be integer dtype, but got "
                        f"{D.from_numpy_dtype(indices.dtype)}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    flat = indices.astype(jnp.int64)
    out = []
    for n in reversed(shape):
        out.append(jnp.mod(flat, n) if n else flat)
        flat = jnp.floor_divide(flat, n) if n else flat
    return tuple(reversed(out))


def nonzero_static(input, *, size, fill_value=-1):
    """The first ``size`` nonzero positions (rows of coordinates), padded with fill_value."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    if input.ndim == 0:
        return jnp.zeros((size, 0), jnp.int64)
    coords = jnp.nonzero(input, size=size, fill_value=fill_value)
    return jnp.stack(coords, axis=1).astype(jnp.int64)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element is among ``test_elements`` (compared in their common dtype)."""
    d = result_type(elements, test_elements)
    for x in (elements, test_elements):
        k = dtype_of(x) if hasattr(x, "dtype") else d
        if k._kind in (0, 3):
            raise RuntimeError(f"Unsupported input type encountered for isin(): "
                               f"{D.legacy_name(k)}")
    a, b = cast(elements, d), cast(test_elements, d).reshape(-1)
    hit = jnp.any(a[..., None] == b, axis=-1) if b.size else jnp.zeros(jnp.shape(a), bool)
    return ~hit if invert else hit


# ------------------------------------------------------------------ complex from parts


def _parts_dtype(a, b) -> D.dtype:
    da, db = dtype_of(a), dtype_of(b)
    if da._kind != 2 or db._kind != 2:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{D.legacy_name(da)} and {D.legacy_name(db)}")
    if da is not db:
        raise RuntimeError(f"Expected object of scalar type {D.legacy_name(da)} but got scalar "
                           f"type {D.legacy_name(db)} for second argument")
    if da in (D.float16, D.bfloat16):
        raise RuntimeError("jtorch does not support complex32 (a complex tensor of Half parts)")
    return da.to_complex()


def complex(real, imag):  # noqa: A001 - torch's public name
    """``real + imag * 1j`` of two real tensors of one floating dtype."""
    d = _parts_dtype(real, imag)
    return (real + 1j * imag).astype(d.np)


def polar(abs, angle):  # noqa: A002 - torch's parameter name
    """``abs * (cos(angle) + sin(angle) * 1j)``."""
    d = _parts_dtype(abs, angle)
    return (abs * jnp.cos(angle) + 1j * (abs * jnp.sin(angle))).astype(d.np)


# ------------------------------------------------------------------ norms


def renorm(input, p, dim, maxnorm):
    """Each slice along ``dim`` scaled down to norm ``maxnorm`` where its p-norm exceeds it."""
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    d = dtype_of(input)
    if d._kind < 2:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {D.legacy_name(d)}")
    k = norm_dim(dim, input.ndim)
    axes = tuple(i for i in range(input.ndim) if i != k)
    norm = _vector_norm(input, p, axes)
    factor = jnp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(input.dtype)
    return input * factor


def _vector_norm(x, p, axes):
    a = jnp.abs(x)
    if math.isinf(p):
        return jnp.max(a, axis=axes, keepdims=True)
    return jnp.sum(a ** p, axis=axes, keepdims=True) ** (1.0 / p)


def norm_except_dim(v, pow=2, dim=0):  # noqa: A002 - torch's parameter name
    """The ``pow``-norm over every dim but ``dim`` (all of them for -1), keeping dims."""
    if dim == -1:
        return _vector_norm(v, pow, tuple(range(v.ndim))).reshape(())
    k = norm_dim(dim, v.ndim)
    return _vector_norm(v, pow, tuple(i for i in range(v.ndim) if i != k))


# ------------------------------------------------------------------ index_reduce


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduce ``source``'s slices into ``input``'s slices at ``index`` along ``dim``."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if index.dtype not in (jnp.int32, jnp.int64):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{D.legacy_name(dtype_of(index))}")
    if dtype_of(source) is not dtype_of(input):
        raise RuntimeError(f"index_reduce_(): self ({D.legacy_name(dtype_of(input))}) and "
                           f"source ({D.legacy_name(dtype_of(source))}) must have the same "
                           "scalar type")
    d = norm_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    shape = [1] * max(source.ndim, 1)
    shape[d] = -1
    grid = jnp.broadcast_to(index.astype(jnp.int64).reshape(shape), source.shape)
    return scatter_reduce(input, d, grid, source, reduce, include_self=include_self)


# ------------------------------------------------------------------ segment_reduce

_SEGMENT = {"sum": "sum", "mean": "mean", "max": "max", "amax": "max", "min": "min",
            "amin": "min", "prod": "prod"}


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """Reduce consecutive segments of ``data`` along ``axis``; the segments' lengths come
    from ``lengths`` (or the differences of ``offsets``), per leading batch index when they
    have more than one dim. Empty segments give ``initial`` or the reduction's identity."""
    if reduce not in _SEGMENT:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    d = dtype_of(data)
    if d._kind != 2:
        raise NotImplementedError(f'"_segment_reduce_cpu" not implemented for '
                                  f"'{D.legacy_name(d)}'")
    lengths = jnp.diff(offsets, axis=-1) if lengths is None else lengths
    ax = norm_dim(axis, data.ndim)
    batch = lengths.shape[:-1]
    x = jnp.moveaxis(data, ax, len(batch))
    flat = x.reshape((-1, *x.shape[len(batch):]))
    segs = lengths.reshape(-1, lengths.shape[-1])
    one = jax.vmap(lambda v, n: _segments(v, n, _SEGMENT[reduce], initial))
    out = one(flat, segs).reshape((*batch, lengths.shape[-1], *x.shape[len(batch) + 1:]))
    return jnp.moveaxis(out, len(batch), ax)


def _segments(x, lengths, reduce, initial):
    n = lengths.shape[0]
    ends = jnp.cumsum(lengths)
    ids = jnp.searchsorted(ends, jnp.arange(x.shape[0]), side="right")
    op = {"sum": jax.ops.segment_sum, "mean": jax.ops.segment_sum, "prod": jax.ops.segment_prod,
          "max": jax.ops.segment_max, "min": jax.ops.segment_min}[reduce]
    out = op(x, ids, num_segments=n)
    count = lengths.reshape((-1,) + (1,) * (x.ndim - 1)).astype(x.dtype)
    if initial is not None:
        init = jnp.asarray(initial, x.dtype)
        out = {"sum": out + init, "mean": out + init, "prod": out * init,
               "max": jnp.maximum(out, init), "min": jnp.minimum(out, init)}[reduce]
        if reduce == "mean":
            return jnp.where(count == 0, init, out / jnp.where(count == 0, 1, count))
    return out / count if reduce == "mean" else out
