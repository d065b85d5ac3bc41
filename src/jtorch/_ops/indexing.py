"""Advanced indexing, scatter and gather."""

from __future__ import annotations

import numpy as np

from .._registry import op
from ..functional import indexing
from ..functional.scatter_reduce import scatter_reduce

op("_index", indexing.index, static=("spec",), function=False, method=False, saves="inputs",
   grad_name="IndexBackward0")
op("_index_put", indexing.index_put, static=("spec", "accumulate"), function=False,
   method=False, saves="inputs", grad_name="IndexPutBackward0")
# XLA drops or clamps out-of-range indices silently; "index_bounds" has them checked on the
# host first (PyTorch checks too), naming the index operand.
_IDX = dict(extra={"index_bounds": "index"})
op("index_add", indexing.index_add, static=("dim",), inplace=True, out=True, saves="inputs",
   **_IDX)
op("scatter", indexing.scatter, static=("dim", "reduce"), inplace=True, out=True, **_IDX)
op("scatter_add", indexing.scatter_add, static=("dim",), inplace=True, out=True, **_IDX)
op("scatter_reduce", scatter_reduce, static=("dim", "reduce", "include_self"), inplace=True,
   out=True, **_IDX)
op("gather", indexing.gather, static=("dim",), out=True, **_IDX)
op("masked_fill", indexing.masked_fill, inplace=True, saves="inputs")


def _host(x):
    return np.asarray(x) if hasattr(x, "dtype") else None


def _dim_bounds(message, negative: bool):
    """A host check that ``index`` lies in ``input``'s range at ``dim`` (PyTorch's IndexError)."""

    def check(operands, statics):
        index, input = _host(operands.get("index")), operands["input"]
        if index is None or not index.size or index.dtype.kind not in "iu":
            return
        size = input.shape[statics["dim"]] if input.dim() else 1
        bad = index[(index >= size) | (index < (-size if negative else 0))]
        if bad.size:
            raise IndexError(message.format(i=int(bad.flat[0]), d=statics["dim"], n=size))

    return check


def _flat_bounds(operands, statics):
    index, n = _host(operands["index"]), operands["input"].numel()
    if index.dtype.kind in "iu" and index.size:
        bad = index[(index >= n) | (index < -n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad.flat[0])} on a "
                             f"tensor of {n} elements.")


def _enough_source(operands, statics):
    mask, source = _host(operands["mask"]), operands["source"]
    if mask.dtype == np.bool_:
        want = np.broadcast_to(mask, np.broadcast_shapes(mask.shape, operands["input"].shape))
        if source.numel() < np.count_nonzero(want):
            raise RuntimeError("Number of elements of source < number of ones in mask")


# PyTorch's gradient of index_select keeps the index, not the input: the input may change
op("index_select", indexing.index_select, static=("dim",), out=True, saves="others",
   extra={"check": _dim_bounds("index out of range in self", False)})
op("index_copy", indexing.index_copy, static=("dim",), inplace=True, extra={"check": _dim_bounds(
    "index_copy_(): index {i} is out of bounds for dimension {d} with size {n}", False)})
op("index_fill", indexing.index_fill, static=("dim",), inplace=True, saves="none",
   extra={"check": _dim_bounds("index {i} is out of bounds for dimension {d} with size {n}",
                               True)})
op("take", indexing.take, out=True, extra={"check": _flat_bounds})
op("put", indexing.put, static=("accumulate",), inplace=True, extra={"check": _flat_bounds})
op("masked_scatter", indexing.masked_scatter, inplace=True, saves="inputs",
   extra={"check": _enough_source})
op("_masked_select", indexing.masked_select, static=("count",), function=False, method=False,
   grad_name="MaskedSelectBackward0")
