"""Sorting, selection and scans along a dim."""

from __future__ import annotations

from .. import return_types
from .._registry import op
from ..functional import cumulative as C
from ..functional import sorting as So

# Sorts and the scans that select keep their residuals (indices) for the gradient rather
# than sorting again in the backward (OpSpec.residuals).
_R = dict(residuals=True)

op("sort", So.sort, static=("dim", "descending", "stable"), returns=return_types.sort, out=True,
   **_R)
op("argsort", So.argsort, static=("dim", "descending", "stable"), **_R)
op("msort", So.msort, out=True, grad_name="SortBackward0", **_R)
op("topk", So.topk, static=("k", "dim", "largest", "sorted"), returns=return_types.topk,
   out=True, **_R)
op("kthvalue", So.kthvalue, static=("k", "dim", "keepdim"), returns=return_types.kthvalue,
   out=True, **_R)

op("cumsum", C.cumsum, static=("dim", "dtype"), saves="none", out=True, inplace=True)
op("cumprod", C.cumprod, static=("dim", "dtype"), out=True, inplace=True, **_R)
op("cummax", C.cummax, static=("dim",), returns=return_types.cummax, out=True, **_R)
op("cummin", C.cummin, static=("dim",), returns=return_types.cummin, out=True, **_R)
op("logcumsumexp", C.logcumsumexp, static=("dim",), out=True, **_R)
op("diff", C.diff, static=("n", "dim"), out=True, grad_name="SubBackward0")
