"""torch.functional's varargs forms over the registry ops: ``block_diag``,
``cartesian_prod`` and ``histogramdd`` (its edges regrouped into a tuple)."""

from __future__ import annotations

from .. import return_types
from ..eager.bind import bound
from ..eager.tensor import Tensor

__all__ = ["block_diag", "cartesian_prod", "histogramdd"]


def block_diag(*tensors) -> Tensor:
    """The tensors (0-, 1- or 2-dim) along the diagonal of one matrix."""
    return bound("_block_diag")(tensors)


def cartesian_prod(*tensors) -> Tensor:
    """Every combination of one element of each 1-D tensor, one row per combination."""
    return bound("_cartesian_prod")(tensors)


def histogramdd(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """A D-dimensional histogram of the rows of ``input`` (..., D): per dim a bin count
    (``bins`` an int or a list of ints, over ``range`` or the data's) or a tensor of edges."""
    if isinstance(bins, list | tuple) and bins and isinstance(bins[0], Tensor):
        out = bound("_histogramdd_edges")(input, tuple(bins), range, weight, density)
    else:
        bins = tuple(bins) if isinstance(bins, list | tuple) else bins
        range = None if range is None else tuple(float(r) for r in range)
        out = bound("_histogramdd_bins")(input, bins, range, weight, density)
    return return_types.histogramdd(out[0], tuple(out[1:]))
