"""Linear and Bilinear, initialized exactly as PyTorch's (same distributions)."""

from __future__ import annotations

import math

import jtorch

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Linear", "Bilinear"]


class Linear(Module):
    """y = x W^T + b; W ~ kaiming_uniform(a=sqrt(5)), b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        kw = dict(device=device, dtype=dtype)
        self.weight = Parameter(jtorch.empty((out_features, in_features), **kw))
        if bias:
            self.bias = Parameter(jtorch.empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y = x1^T A x2 + b; A and b ~ U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        kw = dict(device=device, dtype=dtype)
        self.weight = Parameter(jtorch.empty((out_features, in1_features, in2_features), **kw))
        if bias:
            self.bias = Parameter(jtorch.empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
