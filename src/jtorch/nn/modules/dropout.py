"""Dropout modules: the identity in eval mode, F's dropouts in training mode."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return self._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


def _dropout_module(name, fn, doc):
    return type(name, (_DropoutNd,), {"_fn": staticmethod(fn), "__doc__": doc,
                                      "__module__": __name__})


Dropout = _dropout_module("Dropout", F.dropout, "Zero elements with probability p in "
                          "training; scale the rest by 1 / (1 - p).")
Dropout1d = _dropout_module("Dropout1d", F.dropout1d, "Zero whole channels of (N, C, L).")
Dropout2d = _dropout_module("Dropout2d", F.dropout2d, "Zero whole channels of (N, C, H, W).")
Dropout3d = _dropout_module("Dropout3d", F.dropout3d, "Zero whole channels of (N, C, D, H, W).")
AlphaDropout = _dropout_module("AlphaDropout", F.alpha_dropout,
                               "Dropout keeping SELU's self-normalizing mean and variance.")
FeatureAlphaDropout = _dropout_module("FeatureAlphaDropout", F.feature_alpha_dropout,
                                      "Alpha dropout of whole channels.")
