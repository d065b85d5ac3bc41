"""``torch.finfo``/``torch.iinfo`` and the predicates on a tensor's dtype and size."""

from __future__ import annotations

import math

import jax.numpy as jnp

from .. import _dtypes as D
from ..eager.tensor import Tensor

__all__ = ["finfo", "iinfo", "is_complex", "is_nonzero", "is_same_size", "is_signed",
           "scalar_tensor"]


def _fmt(x) -> str:
    return f"{x:g}"  # C++'s default stream format, which torch's repr uses


class _Info:
    """Read-only, unhashable, equal when the dtypes are (as torch's finfo/iinfo)."""

    __slots__ = ()
    __hash__ = None

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.{type(self).__name__}' objects is "
                             "not writable")

    def __eq__(self, other):
        return type(other) is type(self) and other.dtype == self.dtype

    def _set(self, **values):
        for k, v in values.items():
            object.__setattr__(self, k, v)


def _check_dtype(fn: str, type_) -> D.dtype:
    if not isinstance(type_, D.dtype):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{type(type_).__name__}")
    return type_


class finfo(_Info):  # noqa: N801 - torch's public name
    """Machine limits of a floating-point (or complex: of its real part) dtype."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):  # noqa: A002 - torch's parameter name
        d = D.get_default_dtype() if type is None else _check_dtype("finfo", type)
        if d._kind < 2:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        d = d.to_real()
        info = jnp.finfo(d.np)
        self._set(bits=int(info.bits), eps=float(info.eps), max=float(info.max),
                  min=float(info.min), tiny=float(info.smallest_normal),
                  smallest_normal=float(info.smallest_normal),
                  resolution=10.0 ** -math.floor(-math.log10(float(info.eps))),
                  dtype=d.name)

    def __repr__(self) -> str:
        return (f"finfo(resolution={_fmt(self.resolution)}, min={_fmt(self.min)}, "
                f"max={_fmt(self.max)}, eps={_fmt(self.eps)}, "
                f"smallest_normal={_fmt(self.smallest_normal)}, tiny={_fmt(self.tiny)}, "
                f"dtype={self.dtype})")

    __str__ = __repr__


class iinfo(_Info):  # noqa: N801 - torch's public name
    """Machine limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type):  # noqa: A002 - torch's parameter name
        d = _check_dtype("iinfo", type)
        if d is D.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d._kind != 1:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = jnp.iinfo(d.np)
        self._set(bits=int(info.bits), max=int(info.max), min=int(info.min), dtype=d.name)

    def __repr__(self) -> str:
        lo, hi = _fmt(float(self.min)), _fmt(float(self.max))
        return f"iinfo(min={lo}, max={hi}, dtype={self.dtype})"

    __str__ = __repr__


def _tensor_arg(fn: str, x, name: str = "input", pos: int = 1) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")
    return x


def is_complex(input) -> bool:
    return _tensor_arg("is_complex", input).dtype.is_complex


def is_signed(input) -> bool:
    return _tensor_arg("is_signed", input).dtype.is_signed


def is_nonzero(input) -> bool:
    """Whether a one-element tensor is nonzero; RuntimeError for any other size."""
    return bool(_tensor_arg("is_nonzero", input))


def is_same_size(input, other) -> bool:
    _tensor_arg("is_same_size", input)
    return input._shape == _tensor_arg("is_same_size", other, "other", 2)._shape


_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "int64": "int64_t", "int32": "int32_t", "int16": "int16_t",
            "int8": "int8_t", "uint8": "uint8_t", "bool": "bool"}


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False) -> Tensor:
    """A 0-dim tensor holding the number ``s``, of the default dtype unless ``dtype`` says."""
    from ..eager.creation import tensor

    if isinstance(s, Tensor):
        if s.dim() != 0 and s.numel() != 1:
            raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not "
                            "Tensor")
        s = s.item()
    if not isinstance(s, bool | int | float | complex):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{type(s).__name__}")
    dtype = D.get_default_dtype() if dtype is None else dtype
    if isinstance(s, complex) and dtype._kind < 3 and s.imag:
        raise RuntimeError(f"value cannot be converted to type {_C_NAMES.get(dtype.name, 'int')} "
                           "without overflow")
    return tensor(s.real if isinstance(s, complex) and dtype._kind < 3 else s, dtype=dtype,
                  device=device, requires_grad=requires_grad)
