"""``__getitem__``/``__setitem__``/``index_put_``: basic indexing makes views, the rest copies.

PyTorch indexes in two stages, and so does this module: first every int, slice, None,
Ellipsis and bool scalar is applied as a view (ints as ``select``, so unlike NumPy they
never join the advanced indices), recording at which dimension of that view each index
tensor sits; then the index tensors, all of them arrays, index the view by NumPy's
rules. Boolean masks become integer indices on the host (as PyTorch synchronises for
them), and integer index tensors are bounds-checked there, because XLA would clamp
silently.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from .. import _strides
from .._kernels import device_array
from .._registry import REGISTRY
from ..functional import shape as S
from . import hooks, views
from .bind import call
from .tensor import Tensor, wrap


def _is_int(item) -> bool:
    return isinstance(item, int | np.integer) and not isinstance(item, bool | np.bool_)


def _as_item(item, select_scalars=True):
    """Python ints for integer scalars; index tensors for lists, arrays and bools."""
    if _is_int(item):
        return int(item)
    if isinstance(item, slice):
        return slice(*(None if v is None else _slice_bound(v)
                       for v in (item.start, item.stop, item.step)))
    if item is None or item is Ellipsis:
        return item
    if isinstance(item, bool | np.bool_):
        return wrap(jnp.asarray(bool(item)))
    if isinstance(item, Tensor):
        if (select_scalars and item.dim() == 0 and item.dtype._kind == 1
                and item.dtype is not D.uint8):
            return int(item)  # a 0-dim integer tensor selects, as an int does
        return item
    if isinstance(item, str | bytes):  # a sequence PyTorch tries to make a tensor of
        raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
    if isinstance(item, list | tuple | np.ndarray | Sequence):
        from .creation import tensor

        arr = np.asarray(item)
        if arr.size == 0:
            arr = arr.astype(np.int64)
        if arr.dtype.kind in "iub":
            return tensor(arr)
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
        f"valid indices (got {type(item).__name__})"
    )


def _slice_bound(v):
    if isinstance(v, Tensor | np.integer) or _is_int(v):
        return int(v)
    raise TypeError(
        "slice indices must be integers or None or have an __index__ method"
    )


def _kind(item) -> str:
    if item is None or item is Ellipsis:
        return "skip"
    if isinstance(item, int | slice):
        return "basic"
    if item.dtype is D.bool or item.dtype is D.uint8:
        return "bool" if item.dim() == 0 else "mask"
    return "array"


def split_index(x: Tensor, index, select_scalars=True):
    """``(basic, advanced)``: a normalized basic index, and ``(dim, tensor)`` pairs that index
    the view ``basic`` makes (bool masks already turned into their integer indices)."""
    if isinstance(index, list) and _sequence_as_tuple(index):
        index = tuple(index)
    items = [_as_item(i, select_scalars)
             for i in (index if isinstance(index, tuple) else (index,))]
    kinds = [_kind(i) for i in items]
    consumed = sum(1 if k in ("basic", "array") else items[i].dim() if k == "mask" else 0
                   for i, k in enumerate(kinds))
    if consumed > x.dim():
        raise IndexError(f"too many indices for tensor of dimension {x.dim()}")
    basic, advanced, d, rd = [], [], 0, 0  # d: dim of x; rd: dim of the basic view
    for item, kind in zip(items, kinds, strict=False):
        if item is Ellipsis:
            basic.append(item)
            d, rd = d + x.dim() - consumed, rd + x.dim() - consumed
        elif item is None:
            basic.append(None)
            rd += 1
        elif isinstance(item, int):
            basic.append(item)
            d += 1
        elif isinstance(item, slice):
            basic.append(item)
            d, rd = d + 1, rd + 1
        elif kind == "bool":  # a new dim of size 1, kept or emptied
            basic.append(None)
            keep = np.zeros(int(bool(item)), np.int64)
            advanced.append((rd, wrap(device_array(keep))))
            rd += 1
        elif kind == "mask":
            _warn_uint8(item)
            _check_mask(x, item, d)
            basic.extend([slice(None)] * item.dim())
            for k, nz in enumerate(np.nonzero(np.asarray(item._value))):
                advanced.append((rd + k, wrap(device_array(nz.astype(np.int64)))))
            d, rd = d + item.dim(), rd + item.dim()
        else:
            if item.dtype._kind != 1:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            basic.append(slice(None))
            advanced.append((rd, item))
            d, rd = d + 1, rd + 1
    return _strides.normalize_basic_index(tuple(basic), x._shape), advanced


def _sequence_as_tuple(index: list) -> bool:
    """NumPy's legacy rule PyTorch keeps: a short list holding a sequence, slice, tensor,
    None or Ellipsis is a tuple of indices (deprecated), not one index array."""
    if len(index) >= 32 or not any(
        isinstance(i, list | tuple | slice | Tensor | np.ndarray) or i is None or i is Ellipsis
        for i in index
    ):
        return False
    import warnings

    warnings.warn(
        "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
        "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will "
        "be interpreted as tensor index, x[torch.tensor(seq)], which will result either in an "
        "error or a different result", UserWarning, stacklevel=5)
    return True


def _warn_uint8(t: Tensor) -> None:
    if t.dtype is D.uint8:
        import warnings

        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                      "torch.bool instead.", UserWarning, stacklevel=5)


def _check_mask(x: Tensor, mask: Tensor, d: int) -> None:
    for k in range(mask.dim()):
        if d + k >= x.dim() or mask._shape[k] != x._shape[d + k]:
            raise IndexError(
                f"The shape of the mask {list(mask._shape)} at index {k} does not match the "
                f"shape of the indexed tensor {list(x._shape)} at index {d + k}"
            )


def _basic_view(x: Tensor, basic, *, trivial_is_self: bool, name="") -> Tensor:
    """The view a normalized basic index makes (``x`` itself for ``x[:, :]`` when asked)."""
    if trivial_is_self and all(
        isinstance(i, tuple) and i == (0, n, 1) for i, n in zip(basic, x._shape, strict=False)
    ):
        return x
    return views.make_view(x, S.getitem, _strides.g_getitem, {"index": basic},
                           name or "SliceBackward0")


def _view_name(index) -> str:
    """PyTorch's grad_fn for basic indexing: that of the last view op applied (``:`` is
    skipped, so ``x[:, :]`` and ``x[...]`` are aliases)."""
    for item in reversed(index if isinstance(index, tuple) else (index,)):
        if item is None:
            return "UnsqueezeBackward0"
        if isinstance(item, slice):
            if (item.start, item.stop, item.step) != (None, None, None):
                return "SliceBackward0"
        elif item is not Ellipsis:
            return "SelectBackward0"
    return "AliasBackward0"


def _advanced_spec(v: Tensor, advanced):
    """The static spec (full slices and "T") and the checked index tensors for view ``v``."""
    last = max(dim for dim, _ in advanced)
    spec = [(0, v._shape[d], 1) for d in range(last + 1)]
    arrays = []
    for dim, t in advanced:
        spec[dim] = "T"
        arrays.append(_checked(t, v._shape[dim], dim))
    try:
        np.broadcast_shapes(*(t._shape for t in arrays))
    except ValueError:
        shapes = ", ".join(str(list(t._shape)) for t in arrays)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes "
            f"{shapes}"
        ) from None
    return tuple(spec), arrays


def _checked(idx: Tensor, size: int, dim: int) -> Tensor:
    if hooks.RECORDER is not None:  # torch.compile: no host check of traced values
        return idx
    host = np.asarray(idx._value)
    if host.size:
        bad = host[(host >= size) | (host < -size)]
        if bad.size:
            raise IndexError(
                f"index {int(bad.flat[0])} is out of bounds for dimension {dim} with size {size}"
            )
    return idx


def getitem(x: Tensor, index):
    if x.dim() == 0 and _is_int(index):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    basic, advanced = split_index(x, index)
    if not advanced:
        return _basic_view(x, basic, trivial_is_self=False, name=_view_name(index))
    v = _basic_view(x, basic, trivial_is_self=True)
    spec, arrays = _advanced_spec(v, advanced)
    return call(_INDEX, ("input", "indices"), [v, arrays], (spec,))


def setitem(x: Tensor, index, value) -> None:
    """``x[index] = value``: a copy into the basic view, or an index_put_ on it."""
    if index is False or index is np.False_:
        return  # PyTorch writes nothing (and bumps no version) for x[False] = v
    if not isinstance(value, Tensor | int | float | complex | bool | np.number | np.bool_):
        raise TypeError(
            f"can't assign a {_qualname(value)} to a torch.{D.legacy_name(x.dtype)}Tensor"
        )
    basic, advanced = split_index(x, index)
    v = _basic_view(x, basic, trivial_is_self=True)
    if isinstance(value, Tensor) and value.dim():
        value = _strip_leading_ones(value)
    if not advanced:
        v.copy_(value)
        return
    spec, arrays = _advanced_spec(v, advanced)
    _index_put_spec(v, spec, arrays, value, False)


def _qualname(value) -> str:
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


def _strip_leading_ones(value: Tensor) -> Tensor:
    """PyTorch drops a value's leading size-1 dims before broadcasting it into the target."""
    shape = value._shape
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return value.view(shape[k:]) if k else value


def _index_put_spec(x, spec, arrays, value, accumulate):
    views.check_inplace(x)
    result = call(_INDEX_PUT, ("input", "indices", "values"), [x, arrays, value],
                  (spec, accumulate))
    # Like PyTorch, index_put_ lets an expanded destination through (it only warns there).
    return views.commit(x, result, internal_overlap=False)


def index_put_(x: Tensor, indices, values, accumulate=False) -> Tensor:
    """``x[indices] = values`` where ``indices`` is a tuple of index tensors (None allowed)."""
    if not isinstance(indices, tuple | list):
        raise TypeError("index_put_(): argument 'indices' must be tuple of Tensors")
    for k, i in enumerate(indices):
        if not isinstance(i, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got "
                            f"{type(i).__name__}")
    items = tuple(indices)
    # Here every tensor, 0-dim ones too, is an index array: none selects.
    basic, advanced = split_index(x, items, select_scalars=False)
    if not advanced:
        return _index_put_all(x, values, accumulate)
    spec, arrays = _advanced_spec(x, advanced)
    return _index_put_spec(x, spec, arrays, values, bool(accumulate))


def _index_put_all(x, values, accumulate):
    if not isinstance(values, Tensor):
        from .creation import tensor

        values = tensor(values, dtype=x.dtype)
    return x.add_(values) if accumulate else x.copy_(values)


def index_put(x: Tensor, indices, values, accumulate=False) -> Tensor:
    return index_put_(x.clone(), indices, values, accumulate)


_INDEX = REGISTRY["_index"]
_INDEX_PUT = REGISTRY["_index_put"]
