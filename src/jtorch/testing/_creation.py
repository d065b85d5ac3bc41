"""``torch.testing.make_tensor``: a tensor of random values in a dtype's default range."""

from __future__ import annotations

import collections.abc
import math
import warnings

import numpy as np

from .. import _dtypes as D

__all__ = ["make_tensor"]

_INTEGRAL = (D.bool, D.uint8, D.int8, D.int16, D.int32, D.int64)
_FLOATING = (D.float16, D.bfloat16, D.float32, D.float64, D.complex64, D.complex128)


def _bounds(dtype, low, high, lowest, highest, default_low, default_high):
    """PyTorch's ``modify_low_high``: defaults, checks and clamping of [low, high)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATING:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`torch.full(...)` instead.", stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def _random(shape, dtype, device, low, high):
    import jtorch

    if dtype is D.bool:
        low, high = _bounds(dtype, low, high, 0, 2, 0, 2)
        return jtorch.randint(low, high, shape, device=device, dtype=dtype)
    if dtype in _INTEGRAL:
        info = np.iinfo(dtype.np)
        low, high = _bounds(dtype, low, high, int(info.min),
                            int(info.max) + (1 if dtype is not D.int64 else 0), -9, 10)
        return jtorch.randint(low, high, shape, device=device, dtype=dtype)
    if dtype in _FLOATING:
        info = np.finfo(dtype.to_real().np if dtype.is_complex else dtype.np)
        low, high = _bounds(dtype, low, high, float(info.min), float(info.max), -9, 9)
        real = dtype.to_real() if dtype.is_complex else dtype
        shape2 = (*shape, 2) if dtype.is_complex else shape
        out = jtorch.empty(shape2, device=device, dtype=real)
        if high - low >= float(info.max):  # uniform_ needs to - from within the dtype's range
            out.uniform_(low / 2, high / 2).mul_(2)
        else:
            out.uniform_(low, high)
        return jtorch.view_as_complex(out) if dtype.is_complex else out
    raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                    "torch.testing.make_tensor(). To request support, file an issue at: "
                    "https://github.com/pytorch/pytorch/issues")


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False, memory_format=None):
    """A tensor of ``shape`` with values drawn uniformly from [low, high) (defaults: [-9, 9]
    for floating types, [-9, 10) for integers), as PyTorch's."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    if requires_grad and dtype in _INTEGRAL:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    result = _random(shape, dtype, device, low, high)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        tiny = 1 if dtype in _INTEGRAL else float(np.finfo(
            (dtype.to_real() if dtype.is_complex else dtype).np).tiny)
        result[result == 0] = tiny
    if dtype in _FLOATING:
        result.requires_grad = requires_grad
    return result
