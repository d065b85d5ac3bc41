"""``__getitem__``/``__setitem__``/``index_put_``: basic indexing makes views, the rest copies.

Boolean masks become integer indices on the host (as PyTorch synchronises for them), and
integer index tensors are bounds-checked there, because XLA would clamp silently.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from .. import _strides
from ..functional import shape as S
from . import views
from .._registry import REGISTRY
from .bind import call
from .tensor import Tensor, wrap


def _is_basic(item) -> bool:
    return item is None or item is Ellipsis or isinstance(item, slice) or (
        isinstance(item, int | np.integer) and not isinstance(item, bool | np.bool_)
    ) or (isinstance(item, Tensor) and item.dim() == 0 and item.dtype._kind == 1)


def _basic_item(item):
    if isinstance(item, Tensor | np.integer):
        return int(item)
    if isinstance(item, slice):
        return slice(*(None if v is None else int(v) for v in (item.start, item.stop, item.step)))
    return item


def getitem(x: Tensor, index):
    items = index if isinstance(index, tuple) else (index,)
    if all(_is_basic(i) for i in items):
        if x.dim() == 0 and not any(i is None or i is Ellipsis for i in items):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        idx = _strides.normalize_basic_index(tuple(_basic_item(i) for i in items), x._shape)
        return views.make_view(x, S.getitem, _strides.g_getitem, {"index": idx},
                               _getitem_name(idx))
    spec, arrays = advanced_index(x, items)
    return call(_INDEX, ("input", "indices"), [x, arrays], (spec,))


def _getitem_name(idx) -> str:
    return "SelectBackward0" if any(isinstance(i, int) for i in idx) else "SliceBackward0"


def advanced_index(x: Tensor, items):
    """A static spec (ints, slice tuples, None, "T") and the index tensors it consumes."""
    from .creation import tensor

    items = [tensor(i) if isinstance(i, list | np.ndarray | bool | np.bool_) else i
             for i in items]
    consumed = sum(i.dim() if isinstance(i, Tensor) and i.dtype is D.bool else
                   0 if i is None or i is Ellipsis else 1 for i in items)
    if consumed > x.dim():
        raise IndexError(f"too many indices for tensor of dimension {x.dim()}")
    spec, arrays, d = [], [], 0
    for item in items:
        if item is Ellipsis:
            for _ in range(x.dim() - consumed):
                spec.append((0, x._shape[d], 1))
                d += 1
        elif item is None:
            spec.append(None)
        elif isinstance(item, Tensor) and item.dtype is D.bool:
            _mask_indices(x, item, d, spec, arrays)
            d += item.dim()
        elif isinstance(item, Tensor):
            arrays.append(_checked(item, x._shape[d], d))
            spec.append("T")
            d += 1
        else:
            norm = _strides.normalize_basic_index((_basic_item(item),), x._shape[d:])
            spec.append(norm[0])
            d += 1
    return tuple(spec), arrays


def _mask_indices(x, mask, d, spec, arrays):
    for k in range(mask.dim()):
        if mask._shape[k] != x._shape[d + k]:
            raise IndexError(
                f"The shape of the mask {list(mask._shape)} at index {k} does not match the "
                f"shape of the indexed tensor {list(x._shape)} at index {d + k}"
            )
    if mask.dim() == 0:
        raise IndexError("0-dim boolean masks are not supported here; use x[None][mask]")
    for nz in np.nonzero(np.asarray(mask._value)):
        arrays.append(wrap(jnp.asarray(nz.astype(np.int64))))
        spec.append("T")


def _checked(idx: Tensor, size: int, dim: int) -> Tensor:
    if idx.dtype._kind != 1:
        raise IndexError(
            "tensors used as indices must be long, int, byte or bool tensors"
        )
    host = np.asarray(idx._value)
    if host.size:
        bad = host[(host >= size) | (host < -size)]
        if bad.size:
            raise IndexError(
                f"index {int(bad.flat[0])} is out of bounds for dimension {dim} with size {size}"
            )
    return idx


def setitem(x: Tensor, index, value) -> None:
    items = index if isinstance(index, tuple) else (index,)
    if all(_is_basic(i) for i in items):
        target = getitem(x, index) if items != (Ellipsis,) or x.dim() else x
        target.copy_(value)
        return
    spec, arrays = advanced_index(x, items)
    _index_put_spec(x, spec, arrays, value, False)


def _index_put_spec(x, spec, arrays, value, accumulate):
    views.check_inplace(x)
    result = call(_INDEX_PUT, ("input", "indices", "values"), [x, arrays, value],
                  (spec, accumulate))
    return views.commit(x, result)


def index_put_(x: Tensor, indices, values, accumulate=False) -> Tensor:
    """``x[indices] = values`` where ``indices`` is a tuple of index tensors (None allowed)."""
    items = tuple(slice(None) if i is None else i for i in indices)
    spec, arrays = advanced_index(x, items)
    return _index_put_spec(x, spec, arrays, values, bool(accumulate))


def index_put(x: Tensor, indices, values, accumulate=False) -> Tensor:
    return index_put_(x.clone(), indices, values, accumulate)


_INDEX = REGISTRY["_index"]
_INDEX_PUT = REGISTRY["_index_put"]
