"""LinearCrossEntropyLoss: a linear layer and the cross-entropy of its logits in one."""

from __future__ import annotations

import math

from .. import functional as F
from .linear import Linear
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss"]


class LinearCrossEntropyLoss(_WeightedLoss):
    """``F.linear_cross_entropy`` with its own (num_classes * prod(out_features), in_features)
    linear weight, stored 2-d as PyTorch's."""

    __constants__ = ["num_classes", "out_features", "reduction", "ignore_index",
                     "label_smoothing"]

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple = (),
                 bias: bool = False, device=None, dtype=None, reduction: str = "mean",
                 weight=None, ignore_index: int | None = None, label_smoothing: float = 0.0,
                 options: LinearCrossEntropyOptions | None = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes, self.out_features = num_classes, out_features
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes),
                             bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        shape = (self.num_classes, *self.out_features)
        bias = self.linear.bias
        return F.linear_cross_entropy(
            input, self.linear.weight.reshape((*shape, self.linear.in_features)), target,
            linear_bias=bias.reshape(shape) if bias is not None else None, weight=self.weight,
            reduction=self.reduction, ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
