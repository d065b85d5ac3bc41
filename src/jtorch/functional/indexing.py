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
from ._util import broadcast_shapes, cast, dtype_of, is_scalar, norm_dim
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
    if not is_scalar(values) and not getattr(values, "weak_type", False) and (
        dtype_of(values) is not dtype_of(input)
    ):
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{D.legacy_name(dtype_of(input))} for the destination and "
            f"{D.legacy_name(dtype_of(values))} for the source."
        )
    vals = to_dtype(values, dtype_of(input))
    _check_broadcast(jnp.shape(vals), target.shape)
    vals = jnp.broadcast_to(vals, target.shape)
    return input.at[idx].add(vals) if accumulate else input.at[idx].set(vals)


def _check_index_dtype(index, op: str, got: bool = False) -> None:
    d = dtype_of(index)
    if d is not D.int64 and d is not D.int32:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index"
                           + (f" but got: {D.legacy_name(d)}" if got else ""))


def index_add(input, dim, index, source, *, alpha=1):
    """``input.index_add(dim, index, source)``: rows of ``source`` added at ``index``."""
    d = norm_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError("index_add_(): Index is supposed to be a vector")
    _check_index_dtype(index, "index_add_", got=True)
    if dtype_of(source) is not dtype_of(input):
        raise RuntimeError(
            f"index_add_(): self ({D.legacy_name(dtype_of(input))}) and source "
            f"({D.legacy_name(dtype_of(source))}) must have the same scalar type"
        )
    n_src = source.shape[d] if source.ndim else 1
    if index.size != n_src:
        raise RuntimeError(
            f"index_add_(): Number of indices ({index.size}) should be equal to "
            f"source.size(dim): ({n_src}), for dim: {d}"
        )
    rest = (lambda sh: sh[:d] + sh[d + 1:]) if source.ndim and input.ndim else tuple
    if rest(input.shape) != rest(source.shape):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(input.shape)} source.shape = "
            f"{list(source.shape)}"
        )
    src = source
    if not (is_scalar(alpha) and alpha == 1):
        src = src * cast(alpha, dtype_of(input))
    if input.ndim == 0:
        return input + jnp.sum(src)
    return input.at[(slice(None),) * d + (index.reshape(-1),)].add(src)


def _nonempty(shape):
    return tuple(shape) or (1,)


def _scatter_gather_checks(input, d, index, op, src=None):
    """PyTorch's dtype and shape checks for scatter/gather (0-dim tensors count as 1-dim)."""
    _check_index_dtype(index, op)
    src_is_tensor = src is not None and not is_scalar(src) and not getattr(
        src, "weak_type", False)
    if src_is_tensor and dtype_of(src) is not dtype_of(input):
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    ish, xsh = _nonempty(index.shape), _nonempty(input.shape)
    if op == "gather":
        if len(xsh) != len(ish):
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as input tensor")
        for k in range(len(xsh)):
            if k != d and ish[k] > xsh[k]:
                raise RuntimeError(
                    f"Size does not match at dimension {k} expected index {list(index.shape)} "
                    f"to be no larger than self {list(input.shape)} apart from dimension {d}"
                )
        return
    if src_is_tensor and len(_nonempty(src.shape)) != len(ish):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if index.size == 0:
        return
    if len(xsh) != len(ish):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = any(k != d and ish[k] > xsh[k] for k in range(len(xsh))) or (
        src_is_tensor and any(i > s for i, s in zip(ish, _nonempty(src.shape), strict=False)))
    if wrong:
        raise RuntimeError(
            f"Expected index {list(index.shape)} to be no larger than self {list(input.shape)} "
            f"apart from dimension {d}"
            + (f" and to be no larger size than src {list(src.shape)}" if src_is_tensor else "")
        )


def _grid(d, index):
    grid = list(jnp.indices(_nonempty(index.shape), sparse=True))
    grid[d] = index.reshape(_nonempty(index.shape))
    return tuple(grid)


def scatter(input, dim, index, src, reduce=None):
    """torch.scatter: ``out[..., index[i, j], ...] = src[i, j]`` along ``dim``."""
    d = norm_dim(dim, input.ndim)
    _scatter_gather_checks(input, d, index, "scatter", src)
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
    flat = input.reshape(_nonempty(input.shape))
    ish = _nonempty(index.shape)
    vals = to_dtype(src, dtype_of(input))
    if jnp.ndim(vals):
        vals = vals.reshape(_nonempty(vals.shape))[tuple(slice(0, n) for n in ish)]
    vals = jnp.broadcast_to(vals, ish)
    at = flat.at[_grid(d, index)]
    out = at.set(vals) if reduce is None else at.add(vals) if reduce == "add" else at.multiply(
        vals)
    return out.reshape(input.shape)


def scatter_add(input, dim, index, src):
    return scatter(input, dim, index, src, reduce="add")


def gather(input, dim, index):
    d = norm_dim(dim, input.ndim)
    _scatter_gather_checks(input, d, index, "gather")
    out = input.reshape(_nonempty(input.shape))[_grid(d, index)]
    return out.reshape(index.shape)


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
    broadcast_shapes(input.shape, mask.shape)
    return jnp.where(mask, to_dtype(value, dtype_of(input)), input)


# ------------------------------------------------------------------ index_* along a dim


@jax.custom_vjp
def _set_at(x, idx, src):
    """``x.at[idx].set(src)`` with PyTorch's gradient when ``idx`` repeats a position:
    every source element gets the gradient there (JAX's goes to the one written)."""
    return x.at[idx].set(src)


def _set_at_fwd(x, idx, src):
    return x.at[idx].set(src), (idx, jnp.shape(src))


def _set_at_bwd(res, g):
    idx, src_shape = res
    return g.at[idx].set(0), None, jnp.broadcast_to(g[idx], src_shape)


_set_at.defvjp(_set_at_fwd, _set_at_bwd)


def _vector_index(index, op: str, err=IndexError, msg=None):
    if index.ndim > 1:
        raise err(msg or f"{op}(): Index is supposed to be a vector")
    return index.reshape(-1)


def index_select(input, dim, index):
    """Rows of ``input`` along ``dim`` picked by the vector ``index``."""
    d = norm_dim(dim, input.ndim)
    idx = _vector_index(index, "index_select")
    if dtype_of(index)._kind != 1 or dtype_of(index) not in (D.int32, D.int64):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if input.ndim == 0:
        return input
    return jnp.take(input, idx, axis=d)


def _slices_before(d):
    return (slice(None),) * d


def index_copy(input, dim, index, source):
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source``'s."""
    d = norm_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if dtype_of(index) is not D.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{D.legacy_name(dtype_of(index))}")
    if dtype_of(source) is not dtype_of(input):
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{D.legacy_name(dtype_of(input))} and (source) {D.legacy_name(dtype_of(source))}")
    n_src = source.shape[d] if source.ndim else 1
    if index.size != n_src:
        raise IndexError(f"index_copy_(): Number of indices ({index.size}) should be equal to "
                         f"source.size(dim) ({n_src})")
    for k in range(max(input.ndim, source.ndim)):
        if k != d and input.ndim and source.ndim and input.shape[k] != source.shape[k]:
            raise RuntimeError(
                "index_copy_(): Source/destination tensor must have same slice shapes. "
                f"Destination slice shape: {input.shape[k]} at dimension {k} and source slice "
                f"shape: {source.shape[k]} at dimension {k}.")
    if input.ndim == 0:
        return source.reshape(())
    grid = list(jnp.indices(source.shape, sparse=True))
    grid[d] = index.reshape((1,) * d + (-1,) + (1,) * (source.ndim - d - 1))
    return _set_at(input, tuple(grid), source)


def index_fill(input, dim, index, value):
    """``input`` with the slices at ``index`` along ``dim`` set to the scalar ``value``."""
    d = norm_dim(dim, input.ndim)
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if dtype_of(index) is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if not is_scalar(value) and value.ndim != 0:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    if isinstance(value, complex) and dtype_of(input)._kind != 3:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is "
                           "not supported")
    v = to_dtype(value, dtype_of(input))
    if input.ndim == 0:
        return jnp.where(index.size > 0, v, input)
    return input.at[_slices_before(d) + (index.reshape(-1),)].set(v)


# ------------------------------------------------------------------ flat take/put, masks


def _long_index(index, op: str):
    if dtype_of(index) is not D.int64:
        raise RuntimeError(f"{op}(): Expected a long tensor for index, but got "
                           f"{D.legacy_name(dtype_of(index))}")


def take(input, index):
    """``input`` read as a flat array at ``index`` (negative indices count from the end)."""
    _long_index(index, "take")
    flat = input.reshape(-1)
    return flat[jnp.where(index < 0, index + flat.size, index)]


def put(input, index, source, accumulate=False):
    """``input`` (as a flat array) with ``source`` written, or added, at ``index``."""
    _long_index(index, "put_")
    if dtype_of(source) is not dtype_of(input):
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{D.legacy_name(dtype_of(input))} and source.dtype = "
            f"{D.legacy_name(dtype_of(source))}")
    if index.size != source.size:
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.size}, index.numel() = {index.size}")
    flat = input.reshape(-1)
    idx = jnp.where(index < 0, index + flat.size, index).reshape(-1)
    at = flat.at[idx]
    src = source.reshape(-1)
    out = at.add(src) if accumulate else _set_at(flat, idx, src)
    return out.reshape(input.shape)


def _check_bool_mask(mask, msg):
    if dtype_of(mask) is not D.bool:
        raise RuntimeError(msg)


def masked_scatter(input, mask, source):
    """Where ``mask`` holds, consecutive elements of ``source`` (read in row-major order)."""
    _check_bool_mask(mask, "masked_scatter_ only supports boolean masks, but got mask with "
                     f"dtype {D.legacy_name(dtype_of(mask))}")
    if dtype_of(source) is not dtype_of(input):
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but "
                           f"got{D.legacy_name(dtype_of(input))} and "
                           f"{D.legacy_name(dtype_of(source))}")
    shape = broadcast_shapes(input.shape, mask.shape)
    x, m = jnp.broadcast_to(input, shape), jnp.broadcast_to(mask, shape)
    pos = jnp.cumsum(m.reshape(-1)) - 1
    src = source.reshape(-1)
    if not src.size:
        return x  # PyTorch checked there is nothing to write
    picked = src[jnp.clip(pos, 0, src.size - 1)]
    return jnp.where(m, picked.reshape(shape), x)


def masked_select(input, mask, count):
    """The elements where ``mask`` (broadcast with ``input``) holds, as a 1-D array.

    ``count`` is the number of true mask elements (a static: the eager layer counts them
    on the host, as PyTorch synchronises for this op).
    """
    _check_bool_mask(mask, "masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(input.shape, mask.shape)
    (idx,) = jnp.nonzero(jnp.broadcast_to(mask, shape).reshape(-1), size=count)
    return jnp.broadcast_to(input, shape).reshape(-1)[idx]
