"""Advanced indexing, scatter and gather."""

from __future__ import annotations

from .._registry import op
from ..functional import indexing

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
op("gather", indexing.gather, static=("dim",), out=True, **_IDX)
op("masked_fill", indexing.masked_fill, inplace=True, saves="inputs")
