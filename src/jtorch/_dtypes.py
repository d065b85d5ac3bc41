"""torch dtypes as objects, and torch's type-promotion rules.

JAX's promotion lattice differs from torch's (e.g. uint8 + int8 is int16 in both, but
bfloat16 + float16, 0-dim tensors and Python scalars behave differently), so every op
computes its result dtype here first and then calls JAX with explicit casts.
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import numpy as np

# 64-bit types must be real (torch.float64, torch.int64): jtorch never lets JAX narrow them.
jax.config.update("jax_enable_x64", True)


class dtype:
    """A torch dtype: prints as ``torch.float32`` and maps to one NumPy/JAX dtype."""

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_complex", "is_signed", "_kind")

    def __init__(self, name: str, np_dtype, kind: int):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self._kind = kind  # 0 bool, 1 integer, 2 floating, 3 complex
        self.is_floating_point = kind == 2
        self.is_complex = kind == 3
        self.is_signed = name not in ("bool", "uint8", "uint16", "uint32", "uint64")

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self) -> dtype:
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self) -> dtype:
        return {"float64": complex128, "complex128": complex128}.get(self.name, complex64)


bool = dtype("bool", np.bool_, 0)  # noqa: A001 - torch's public name
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float16 = dtype("float16", np.float16, 2)
bfloat16 = dtype("bfloat16", jnp.bfloat16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)
complex64 = dtype("complex64", np.complex64, 3)
complex128 = dtype("complex128", np.complex128, 3)

ALL = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
       complex64, complex128)
ALIASES = {
    "half": float16, "float": float32, "double": float64, "short": int16, "int": int32,
    "long": int64, "cfloat": complex64, "cdouble": complex128,
}
_BY_NAME = {d.name: d for d in ALL} | ALIASES
_BY_NP = {d.np: d for d in ALL}


def _dtype_by_name(name: str) -> dtype:
    return _BY_NAME[name]


_default = [float32]


def get_default_dtype() -> dtype:
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """Set the dtype of Python floats and float factories (float16/32/64 or bfloat16 only)."""
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    if d is not _default[0]:
        _default[0] = d
        # Kernels read the default at trace time (it types Python floats), so traces made
        # under the old default are stale.
        jax.clear_caches()


def default_complex() -> dtype:
    return complex128 if _default[0] is float64 else complex64


def from_numpy_dtype(np_dtype) -> dtype:
    """The torch dtype of a NumPy/JAX dtype; TypeError for types torch lacks."""
    d = _BY_NP.get(np.dtype(np_dtype))
    if d is None:
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types "
            "are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
            "uint8, and bool."
        )
    return d


def to_dtype(d) -> dtype:
    """Accept a torch dtype, a Python type (float/int/bool/complex) or a NumPy dtype."""
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    if d is builtins.complex:
        return complex128
    return from_numpy_dtype(d)


# ---------------------------------------------------------------- promotion


def _kind(d: dtype) -> int:
    return d._kind


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: the smallest dtype both can be cast to without losing category."""
    if a is b:
        return a
    ka, kb = a._kind, b._kind
    if ka != kb:
        lo, hi = (a, b) if ka < kb else (b, a)
        if hi._kind == 3 and lo._kind == 2:
            return complex128 if lo is float64 else hi
        return hi
    if ka == 1:
        if a is uint8 or b is uint8:
            other = b if a is uint8 else a
            return int16 if other is int8 else other
        return a if a.itemsize >= b.itemsize else b
    if ka == 2 and {a.name, b.name} == {"float16", "bfloat16"}:
        return float32
    return a if a.itemsize >= b.itemsize else b


def _scalar_dtype(x) -> dtype:
    """The dtype a Python number takes as a 'wrapped number' operand."""
    if isinstance(x, builtins.bool):
        return bool
    if isinstance(x, builtins.int):
        return int64
    if isinstance(x, builtins.float):
        return _default[0]
    if isinstance(x, builtins.complex):
        return default_complex()
    raise TypeError(f"unsupported scalar type {type(x).__name__}")


def numpy_scalar(x):
    """A NumPy scalar as PyTorch's argument parser reads a ``Scalar``: NumPy integers are
    ints, np.complex128 (a ``complex`` subclass) is complex, every other one is read as a
    float: np.bool_ too, and np.complex64 loses its imaginary part."""
    if isinstance(x, np.integer):
        return builtins.int(x)
    return builtins.complex(x) if isinstance(x, builtins.complex) else builtins.float(x)


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """Combine a higher-priority result with a lower-priority one (torch's category rule)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher._kind == 3:
        return higher
    if lower._kind == 3:
        return higher.to_complex() if higher._kind == 2 else lower
    if higher._kind == 2:
        return higher
    if higher is bool or lower._kind == 2:
        return promote_types(higher, lower)
    return higher


def _acc(cur: dtype | None, d: dtype) -> dtype:
    return d if cur is None else promote_types(cur, d)


def result_type_of(operands) -> dtype:
    """torch's result type for operands given as (dtype, ndim) pairs or Python scalars.

    Operands with ndim > 0 win over 0-dim ones, which win over Python scalars, unless the
    lower-priority group is of a higher category (bool < int < float < complex).
    """
    dim = zero = wrapped = None
    for op in operands:
        if isinstance(op, tuple):
            d, ndim = op
            if ndim > 0:
                dim = _acc(dim, d)
            else:
                zero = _acc(zero, d)
        elif op is not None:
            wrapped = _acc(wrapped, _scalar_dtype(op))
    out = _combine(dim, _combine(zero, wrapped))
    if out is None:
        raise TypeError("result_type needs at least one operand")
    return out


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """torch.can_cast: no complex -> real, float -> integer, or non-bool -> bool."""
    if from_._kind == 3 and to._kind != 3:
        return False
    if from_._kind == 2 and to._kind < 2:
        return False
    return not (from_ is not bool and to is bool)


# Python-facing names torch uses in error messages ("Float", "Long", ...).
_LEGACY = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
    "float64": "Double", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


def legacy_name(d: dtype) -> str:
    return _LEGACY[d.name]


half, float, double = float16, float32, float64  # noqa: A001 - torch's public names
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128
