"""Sorting, selection and scans along a dim."""

from __future__ import annotations

from .. import return_types
from .._registry import op
from ..functional import cumulative as C
from ..functional import sorting as So

op("sort", So.sort, static=("dim", "descending", "stable"), returns=return_types.sort, out=True)
op("argsort", So.argsort, static=("dim", "descending", "stable"))
op("msort", So.msort, out=True, grad_name="SortBackward0")
op("topk", So.topk, static=("k", "dim", "largest", "sorted"), returns=return_types.topk,
   out=True)
op("kthvalue", So.kthvalue, static=("k", "dim", "keepdim"), returns=return_types.kthvalue,
   out=True)

op("cumsum", C.cumsum, static=("dim", "dtype"), saves="none", out=True, inplace=True)
op("cumprod", C.cumprod, static=("dim", "dtype"), out=True, inplace=True)
op("cummax", C.cummax, static=("dim",), returns=return_types.cummax, out=True)
op("cummin", C.cummin, static=("dim",), returns=return_types.cummin, out=True)
op("logcumsumexp", C.logcumsumexp, static=("dim",), out=True)
op("diff", C.diff, static=("n", "dim"), out=True, grad_name="SubBackward0")
