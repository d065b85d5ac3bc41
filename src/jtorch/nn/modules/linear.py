"""Linear, Bilinear and LazyLinear, initialized exactly as PyTorch's (same distributions)."""

from __future__ import annotations

import math

import jtorch

from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter, is_lazy
from .module import Module

__all__ = ["Linear", "Bilinear", "LazyLinear"]


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


class LazyLinear(Linear):
    """A Linear whose ``in_features`` is read from the first input; it then becomes a Linear.

    Differences from PyTorch: the lazy logic is this class's own (there is no general
    LazyModuleMixin yet): loading a state_dict into a still-uninitialized LazyLinear is
    not supported.
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(p) for p in (self.weight, self.bias) if p is not None)

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with jtorch.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()

    def forward(self, input):
        self.initialize_parameters(input)
        self.__class__ = self.cls_to_become
        return F.linear(input, self.weight, self.bias)
