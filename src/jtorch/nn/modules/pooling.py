"""Pooling modules: MaxPool, AvgPool, AdaptiveAvgPool, AdaptiveMaxPool, MaxUnpool, LPPool,
FractionalMaxPool."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d"]


def _ntuple(x, n):
    return tuple(x) if isinstance(x, list | tuple) else (x,) * n


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices",
                     "ceil_mode"]
    _fn = ""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, "
                "dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return getattr(F, self._fn)(input, self.kernel_size, self.stride, self.padding,
                                    self.dilation, ceil_mode=self.ceil_mode,
                                    return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    _fn = "max_pool1d"


class MaxPool2d(_MaxPoolNd):
    _fn = "max_pool2d"


class MaxPool3d(_MaxPoolNd):
    _fn = "max_pool3d"


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPool(_AvgPoolNd):
    __constants__ = [*_AvgPoolNd.__constants__, "divisor_override"]
    _fn = ""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return getattr(F, self._fn)(input, self.kernel_size, self.stride, self.padding,
                                    self.ceil_mode, self.count_include_pad,
                                    self.divisor_override)


class AvgPool2d(_AvgPool):
    _fn = "avg_pool2d"


class AvgPool3d(_AvgPool):
    _fn = "avg_pool3d"


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]
    _fn = ""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input):
        return getattr(F, self._fn)(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _fn = "adaptive_avg_pool1d"


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    _fn = "adaptive_avg_pool2d"


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    _fn = "adaptive_avg_pool3d"


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]
    _fn = ""

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"

    def forward(self, input):
        return getattr(F, self._fn)(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _fn = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _fn = "adaptive_max_pool2d"


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _fn = "adaptive_max_pool3d"


class _MaxUnpoolNd(Module):
    _n = 0

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._n)
        self.padding = _ntuple(padding, self._n)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size=None):
        return getattr(F, f"max_unpool{self._n}d")(input, indices, self.kernel_size,
                                                   self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _n = 3


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _fn = ""

    def __init__(self, norm_type: float, kernel_size, stride=None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def extra_repr(self) -> str:
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return getattr(F, self._fn)(input, float(self.norm_type), self.kernel_size,
                                    self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    _fn = "lp_pool1d"


class LPPool2d(_LPPoolNd):
    _fn = "lp_pool2d"


class LPPool3d(_LPPoolNd):
    _fn = "lp_pool3d"


class _FractionalMaxPoolNd(Module):
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _n = 0

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices: bool = False, _random_samples=None) -> None:
        super().__init__()
        name, n = type(self).__name__, self._n
        if n == 3 and any(k <= 0 for k in _ntuple(kernel_size, n)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a "
                             "pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return getattr(F, f"fractional_max_pool{self._n}d")(
            input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
            _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _n = 3
