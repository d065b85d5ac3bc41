"""Conv1d/2d/3d and ConvTranspose1d/2d/3d, initialized exactly as PyTorch's
(weight ~ kaiming_uniform(a=sqrt(5)), bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)))."""

from __future__ import annotations

import math

import jtorch

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]


def _ntuple(x, n):
    return tuple(x) if isinstance(x, list | tuple) else (x,) * n


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                     "output_padding", "in_channels", "out_channels", "kernel_size"]
    _n = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None) -> None:
        super().__init__()
        n = self._n
        stride, dilation = _ntuple(stride, n), _ntuple(dilation, n)
        kernel_size = _ntuple(kernel_size, n)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of {'zeros', 'reflect', 'replicate', "
                             f"'circular'}}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.transposed = dilation, transposed
        self.output_padding, self.groups = _ntuple(output_padding, n), groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._reversed_padding()
        kw = dict(device=device, dtype=dtype)
        shape = ((in_channels, out_channels // groups) if transposed
                 else (out_channels, in_channels // groups))
        self.weight = Parameter(jtorch.empty((*shape, *kernel_size), **kw))
        if bias:
            self.bias = Parameter(jtorch.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _reversed_padding(self):
        if not isinstance(self.padding, str):
            return [p for p in reversed(self.padding) for _ in range(2)]
        out = [0, 0] * len(self.kernel_size)
        if self.padding == "same":
            for i, (d, k) in enumerate(zip(reversed(self.dilation), reversed(self.kernel_size))):
                total = d * (k - 1)
                out[2 * i], out[2 * i + 1] = total // 2, total - total // 2
        return out

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         False, 0, groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        conv = getattr(F, f"conv{self._n}d")
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(input, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    _n = 1


class Conv2d(_Conv):
    _n = 2


class Conv3d(_Conv):
    _n = 3


class _ConvTranspose(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         True, output_padding, groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        if output_size is None:
            return self.output_padding
        non_spatial = 2 if input.dim() == num_spatial_dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, "
                             f"output_size must have {num_spatial_dims} or "
                             f"{non_spatial + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        dil = dilation if dilation is not None else (1,) * num_spatial_dims
        mins = [(input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                + dil[d] * (kernel_size[d] - 1) + 1 for d in range(num_spatial_dims)]
        maxs = [m + s - 1 for m, s in zip(mins, stride)]
        for size, lo, hi in zip(output_size, mins, maxs):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {mins} to {maxs} (for an input of "
                                 f"{input.size()[2:]})")
        return [int(s) - m for s, m in zip(output_size, mins)]

    def forward(self, input, output_size=None):
        n = self._n
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, n, self.dilation)
        return getattr(F, f"conv_transpose{n}d")(input, self.weight, self.bias, self.stride,
                                                 self.padding, output_padding, self.groups,
                                                 self.dilation)


class ConvTranspose1d(_ConvTranspose):
    _n = 1


class ConvTranspose2d(_ConvTranspose):
    _n = 2


class ConvTranspose3d(_ConvTranspose):
    _n = 3
