"""Comparison, predicate, logical, bitwise and clamping declarations."""

from __future__ import annotations

from .. import _dtypes as D
from .._registry import BIN, is_number, numbered, op
from ..functional import comparison as C

_ALIASES = {"ne": ("not_equal",), "lt": ("less",), "le": ("less_equal",), "gt": ("greater",),
            "ge": ("greater_equal",)}
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    op(_name, getattr(C, _name), dunders=(_name,), saves="none", promotion="always_bool",
       aliases=_ALIASES.get(_name, ()), **BIN)
op("isclose", C.isclose, static=("rtol", "atol", "equal_nan"), saves="none")
for _name in ("isnan", "isinf", "isfinite", "isreal"):
    op(_name, getattr(C, _name), saves="none", pointwise=True)
for _name in ("isposinf", "isneginf"):
    op(_name, getattr(C, _name), saves="none", out=True, pointwise=True)

op("bitwise_and", C.bitwise_and, dunders=("and", "rand", "iand"), saves="none", **BIN)
op("bitwise_or", C.bitwise_or, dunders=("or", "ror", "ior"), saves="none", **BIN)
op("bitwise_xor", C.bitwise_xor, dunders=("xor", "rxor", "ixor"), saves="none", **BIN)
op("bitwise_not", C.bitwise_not, saves="none", **BIN)  # ~ is Tensor.__invert__ (methods)
op("bitwise_left_shift", C.bitwise_left_shift, dunders=("lshift", "rlshift", "ilshift"),
   saves="none", **BIN)
op("bitwise_right_shift", C.bitwise_right_shift, dunders=("rshift", "rrshift", "irshift"),
   saves="none", **BIN)
for _name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    op(_name, getattr(C, _name), saves="none", promotion="always_bool", **BIN)

def _check_bool_bounds(operands, statics) -> None:
    """torch has no bool kernel for number bounds. Under jit a Python bool is not weakly
    typed, so the functional layer cannot tell it from a 0-dim tensor: checked here."""
    x = operands.get("input")
    if getattr(x, "dtype", None) is D.bool and any(
            isinstance(operands.get(k), bool) for k in ("min", "max")):
        raise NotImplementedError('"clamp_scalar_cpu" not implemented for \'Bool\'')


_BOOL_BOUNDS = {"check": _check_bool_bounds}
# The overload with a Python-number bound is PyTorch's ClampBackward1 (scalar min/max).
op("clamp", C.clamp, aliases=("clip",), extra=_BOOL_BOUNDS, **BIN, grad_name=numbered(
    "Clamp", lambda s, o: int(is_number(o.get("min")) or is_number(o.get("max")))))
op("clamp_min", C.clamp_min, grad_name=numbered(
    "ClampMin", lambda s, o: int(not is_number(o["min"]))), extra=_BOOL_BOUNDS, **BIN)
op("clamp_max", C.clamp_max, grad_name=numbered(
    "ClampMax", lambda s, o: int(not is_number(o["max"]))), extra=_BOOL_BOUNDS, **BIN)
op("fmax", C.fmax, **{**BIN, "inplace": False})  # PyTorch has no fmax_
op("fmin", C.fmin, **{**BIN, "inplace": False})
