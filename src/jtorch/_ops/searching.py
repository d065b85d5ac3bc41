"""searchsorted and bucketize (integer results: not differentiable)."""

from __future__ import annotations

import numpy as np

from .._registry import op
from ..functional import searching


def _sorter_in_range(operands, statics):
    sorter = operands.get("sorter")
    if sorter is not None and sorter.dtype._kind == 1 and sorter.numel():
        host = np.asarray(sorter)
        if (host < 0).any() or (host >= sorter.shape[-1]).any():
            raise RuntimeError("torch.searchsorted(): sorter index out of range")


op("searchsorted", searching.searchsorted, static=("out_int32", "right", "side"), method=False,
   out=True, saves="none", extra={"check": _sorter_in_range})
op("bucketize", searching.bucketize, static=("out_int32", "right"), method=False, out=True,
   saves="none")
