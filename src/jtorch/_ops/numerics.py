"""Numerical calculus, binning, index builders and assembling ops."""

from __future__ import annotations

import numpy as np

from .. import return_types
from .._registry import op
from ..functional import builders as B
from ..functional import numerics as N
from ..functional import windows as W

_F = dict(method=False)
op("vander", N.vander, static=("N", "increasing"), **_F)
op("trapezoid", N.trapezoid, static=("dx", "dim"), aliases=("trapz",), **_F)
op("cumulative_trapezoid", N.cumulative_trapezoid, static=("dx", "dim"), **_F)
op("gradient", N.gradient, static=("dim", "edge_order"), **_F)

# histogram/histogramdd: bins is a count (static) or a tensor of edges (an operand).
op("_histogram_bins", N.histogram, static=("bins", "range", "density"), function=False,
   method=False, returns=return_types.histogram, saves="none", out=True)
op("_histogram_edges", N.histogram, static=("range", "density"), function=False, method=False,
   returns=return_types.histogram, saves="none", out=True)


def _edges_given(args, kwargs) -> bool:
    bins = kwargs["bins"] if "bins" in kwargs else args[1] if len(args) > 1 else None
    return hasattr(bins, "_shape")


op("histogram", None, kind="overload", overloads=(
    (_edges_given, "_histogram_edges"), (lambda a, k: True, "_histogram_bins")))
# Reached through jtorch/_api/numerics.py, which regroups (hist, *edges).
op("_histogramdd_bins", N.histogramdd, static=("bins", "range", "density"), function=False,
   method=False, saves="none")
op("_histogramdd_edges", N.histogramdd, static=("range", "density"), function=False,
   method=False, saves="none")

_FACTORY = dict(kind="factory", method=False)
op("tril_indices", B.tril_indices, **_FACTORY)
op("triu_indices", B.triu_indices, **_FACTORY)
for _name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
              "kaiser_window"):
    op(_name, getattr(W, _name), **_FACTORY)
# torch.block_diag(*tensors) and torch.cartesian_prod(*tensors): jtorch/_api/numerics.py.
op("_block_diag", B.block_diag, function=False, method=False, saves="none")
op("_cartesian_prod", B.cartesian_prod, function=False, method=False, saves="none")
op("combinations", B.combinations, static=("r", "with_replacement"), **_F)
op("unravel_index", B.unravel_index, static=("shape",), **_F)
op("nonzero_static", B.nonzero_static, static=("size", "fill_value"), saves="none")
op("isin", B.isin, static=("assume_unique", "invert"), out=True, **_F)
op("complex", B.complex, out=True, **_F)
op("polar", B.polar, out=True, **_F)
op("renorm", B.renorm, static=("p", "dim", "maxnorm"), inplace=True, out=True)
op("norm_except_dim", B.norm_except_dim, static=("pow", "dim"), **_F)


def _check_index(operands, statics) -> None:
    """PyTorch checks index_reduce's indices on the host."""
    index, x = operands["index"], operands["input"]
    if index.numel() and index.dtype._kind == 1:
        dim = statics["dim"] % max(x.dim(), 1)
        host = np.asarray(index._value)
        if ((host < -x._shape[dim]) | (host >= x._shape[dim])).any() if x._shape else host.any():
            raise IndexError("index out of range in self")


op("index_reduce", B.index_reduce, static=("dim", "reduce", "include_self"), inplace=True,
   out=True, extra={"check": _check_index})


def _check_segments(operands, statics) -> None:
    """PyTorch checks on the host that the segments cover the data exactly."""
    lengths, data = operands.get("lengths"), operands["data"]
    if statics["unsafe"] or lengths is None or not hasattr(lengths, "_storage"):
        return
    axis = statics["axis"] % max(data.dim(), 1)
    total = np.asarray(lengths._value).sum(-1)
    if (total != data._shape[axis]).any():
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                           "data.size(lengths.dim()-1) when !unsafe.")


op("segment_reduce", B.segment_reduce, static=("reduce", "axis", "unsafe", "initial"),
   extra={"check": _check_segments}, **_F)
