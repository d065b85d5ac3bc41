"""View ops as pure functions, each with its inverse scatter, plus cat and stack.

A view in the eager layer is a chain of these forward steps applied to a storage's base
value; writing through the view applies the ``scatter`` inverses in reverse order
(PrimTorch's ``slice_scatter``/``select_scatter`` idea). Steps whose inverse has no
cheap structured form scatter through an index map: the step's strides relative to its
input tell where every view element lives there.

A step's ``dynamic`` arguments (a select's index, a slice's start) are values, not
structure: ``split_chain`` takes them out so that a kernel compiled for ``x[3]`` also
serves ``x[4]``, and ``join_chain`` puts them (traced) back in.
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


def strided_index(size, stride, offset) -> np.ndarray:
    """The flat (row-major) position of every element of a strided view: a host array."""
    idx = np.full(tuple(size), offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(size, stride, strict=False)):
        idx += (np.arange(n, dtype=np.int64) * st).reshape((-1,) + (1,) * (len(size) - d - 1))
    return idx


def _by_geometry(fn, geometry, aliasing=False):
    """Give ``fn`` (a step whose elements are a strided view of its row-major input) its
    inverse scatter through the index map.

    ``geometry(shape, **kw)`` gives the step's ``(size, stride, offset)`` relative to a
    contiguous input: the same arithmetic that gives torch's strides gives the index map,
    on the host, so it is a constant of the jitted scatter. ``aliasing`` steps (expand,
    as_strided, overlapping unfold) map several view elements to one input element; their
    ``masked_scatter`` writes only the elements a write touched, so an untouched alias of
    a written location cannot overwrite it.
    """

    def masked_scatter(base, src, mask, **kw):
        idx = jnp.asarray(strided_index(*geometry(base.shape, **kw)).reshape(-1))
        if mask is not None:
            idx = jnp.where(mask.reshape(-1), idx, base.size)  # out of bounds: dropped
        flat = base.reshape(-1).at[idx].set(src.reshape(-1).astype(base.dtype), mode="drop")
        written = jnp.zeros(base.size, bool).at[idx].set(True, mode="drop")
        return flat.reshape(base.shape), written.reshape(base.shape)

    fn.scatter = lambda base, src, **kw: masked_scatter(base, src, None, **kw)[0]
    fn.masked_scatter = masked_scatter
    fn.aliasing = aliasing


def _contiguous_geometry(g):
    def geometry(shape, **kw):
        return g(shape, _strides.contiguous_strides(shape), 0, **kw)[:3]

    return geometry


def _dynamic(*names):
    def deco(fn):
        fn.dynamic = names
        return fn

    return deco


def split_chain(chain):
    """``(structure, values)``: the chain with its steps' dynamic arguments taken out."""
    structure, values = [], []
    for fn, kw in chain:
        dyn = getattr(fn, "dynamic", ())
        if dyn:
            static = []
            for name, v in kw:
                if name in dyn:
                    many = isinstance(v, tuple)
                    values.extend(v) if many else values.append(v)
                    v = ("dynamic", len(v) if many else None)
                static.append((name, v))
            kw = tuple(static)
        structure.append((fn, kw))
    return tuple(structure), tuple(values)


def join_chain(structure, values):
    """The chain ``split_chain`` took apart, with ``values`` (maybe traced) back in."""
    it = iter(values)

    def take(marker):
        n = marker[1]
        return next(it) if n is None else tuple(next(it) for _ in range(n))

    return tuple(
        (fn, tuple((name, take(v) if name in getattr(fn, "dynamic", ()) else v)
                   for name, v in kw))
        for fn, kw in structure
    )


def apply_chain(x, chain):
    """Read a view: apply each ``(fn, kwargs)`` step of ``chain`` to the base value."""
    for fn, kw in chain:
        x = fn(x, **dict(kw))
    return x


def scatter_chain(base, chain, src):
    """Write a view: return ``base`` with the elements the chain selects replaced by ``src``."""
    if any(getattr(fn, "aliasing", False) for fn, _ in chain):
        return _masked_scatter_chain(base, chain, src)[0]
    if not chain:
        return jnp.broadcast_to(src, base.shape).astype(base.dtype)
    (fn, kw), rest = chain[0], chain[1:]
    kw = dict(kw)
    mid = fn(base, **kw)
    return fn.scatter(base, scatter_chain(mid, rest, src), **kw)


def _masked_scatter_chain(base, chain, src):
    """``scatter_chain`` that also tracks which elements of each level the write touched.

    Needed when a step aliases (``x.expand(3, 4)[0] = 1`` writes one row of the expanded
    value; its other rows, unwritten copies of the same memory, must not win).
    """
    if not chain:
        return (jnp.broadcast_to(src, base.shape).astype(base.dtype),
                jnp.ones(base.shape, bool))
    (fn, kw), rest = chain[0], chain[1:]
    kw = dict(kw)
    mid, mask = _masked_scatter_chain(fn(base, **kw), rest, src)
    if getattr(fn, "aliasing", False):
        return fn.masked_scatter(base, mid, mask, **kw)
    return fn.scatter(base, mid, **kw), fn.scatter(jnp.zeros(base.shape, bool), mask, **kw)


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


@_dynamic("storage")
@_with_scatter(lambda base, src, storage, chain: apply_chain(src, chain))
def unview(input, storage, chain):
    """``storage`` with ``input``, the value ``chain`` reads from it, written back: the step
    from a tensor whose own geometry changed in place (``x.t_()``) back to its storage."""
    return scatter_chain(storage, chain, input)


def _select_scatter(base, src, dim, index):
    return lax.dynamic_update_index_in_dim(base, src.astype(base.dtype), index, dim)


@_dynamic("index")
@_with_scatter(_select_scatter)
def select(input, dim, index):
    """``input.select(dim, index)`` for an index already wrapped into range."""
    return lax.dynamic_index_in_dim(input, index, norm_dim(dim, input.ndim), keepdims=False)


def _narrow_scatter(base, src, dim, start, length):
    return lax.dynamic_update_slice_in_dim(base, src.astype(base.dtype), start, dim)


@_dynamic("start")
@_with_scatter(_narrow_scatter)
def narrow(input, dim, start, length):
    """``input.narrow(dim, start, length)`` for a start already wrapped into range."""
    return lax.dynamic_slice_in_dim(input, start, length, norm_dim(dim, input.ndim))


def _getitem_blocks(base_shape, index, at):
    """Per base dim: (start, block length, step) of the region ``getitem`` reads."""
    it, blocks = iter(at), []
    for item in index:
        if item == "i":
            blocks.append((next(it), 1, 1))
        elif item is not None:
            blocks.append((next(it), *item))
    return blocks + [(0, n, 1) for n in base_shape[len(blocks):]]


def _getitem_scatter(base, src, index, at):
    blocks = _getitem_blocks(base.shape, index, at)
    src = src.astype(base.dtype).reshape(tuple(n for _, n, _ in blocks))
    if all(step == 1 for _, _, step in blocks):
        return lax.dynamic_update_slice(base, src, tuple(start for start, _, _ in blocks))
    nd = len(blocks)
    grid = tuple(
        (start + jnp.arange(n) * step).reshape((1,) * k + (-1,) + (1,) * (nd - k - 1))
        for k, (start, n, step) in enumerate(blocks)
    )
    return base.at[grid].set(src)


@_dynamic("at")
@_with_scatter(_getitem_scatter)
def getitem(input, index, at):
    """Basic indexing: ``index`` is the structure (None, "i" for an int, ``(length, step)``
    for a slice) and ``at`` the ints and slice starts, all in range (``_strides.g_getitem``).
    """
    x, d, it = input, 0, iter(at)
    for item in index:
        if item is None:
            x = jnp.expand_dims(x, d)
            d += 1
        elif item == "i":
            x = lax.dynamic_index_in_dim(x, next(it), d, keepdims=False)
        else:
            length, step = item
            span = (length - 1) * step + 1 if length else 0
            x = lax.dynamic_slice_in_dim(x, next(it), span, d)
            if step > 1:
                x = lax.slice_in_dim(x, 0, span, step, d)
            d += 1
    return x


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
    check_storage_bounds(input, input.size, size, stride, storage_offset)
    return jnp.reshape(input, -1)[strided_index(size, stride, storage_offset)]


def check_storage_bounds(input, storage_size, size, stride, offset) -> None:
    """PyTorch's error for a strided view reaching past the end of ``storage_size``."""
    needed = (offset + 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
              if math.prod(size) else 0)
    if needed > storage_size:
        itemsize = np.dtype(input.dtype).itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out "
            f"of bounds for storage of size {storage_size * itemsize}")


_by_geometry(diagonal, _contiguous_geometry(
    lambda sh, st, o, offset=0, dim1=0, dim2=1: _strides.g_diagonal(sh, st, o, offset, dim1, dim2)
))
_by_geometry(expand, _contiguous_geometry(_strides.g_expand), aliasing=True)
_by_geometry(unfold, _contiguous_geometry(_strides.g_unfold), aliasing=True)
_by_geometry(as_strided, lambda shape, size, stride, storage_offset=0: (
    size, stride, storage_offset), aliasing=True)


def reshape(input, shape):
    return jnp.reshape(input, _strides.infer_size(shape, input.size))


# ------------------------------------------------------------------ joining


def _check_cat_inputs(tensors, name):
    if not tensors:
        raise ValueError(f"{name}(): expected a non-empty list of Tensors")
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
