"""Matrix products and linear algebra."""

from __future__ import annotations

from .._registry import op
from ..functional import linalg

_MATMUL_NAMES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0"}
op("matmul", linalg.matmul, dunders=("matmul", "rmatmul"), out=True, grad_name=lambda s, o: (
    _MATMUL_NAMES.get((len(o["input"].shape), len(o["other"].shape)), "MmBackward0")),
   saves="others")
op("mm", linalg.mm, out=True, saves="others")
