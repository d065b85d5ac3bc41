"""Pointwise arithmetic declarations (unary math: ``unary.py``; comparisons, logical and
bitwise ops, clamping: ``comparison.py``)."""

from __future__ import annotations

import numpy as np

from .._registry import BIN, WRAP, is_number, numbered, op
from ..functional import elementwise as E
from ..functional import reduction as R


def _is_tensor(x) -> bool:
    # A dense tensor (asking for ``_value`` would run a recorded op: see eager/lazy.py), or
    # a sparse one.
    return hasattr(x, "_storage") or hasattr(x, "_value")


def _is_int_result(*xs) -> bool:
    from .._dtypes import result_type_of

    ops = [(x.dtype, x.dim()) if _is_tensor(x) else np.asarray(x).item() for x in xs]
    return result_type_of(ops)._kind == 1


def _check_int_divisor(operands, statics) -> None:
    """Integer division by zero raises in torch: checked on the host, and only for integer
    results, so float division stays asynchronous."""
    if statics.get("rounding_mode", "floor") is None:
        return
    a, b = operands.get("input"), operands.get("other")
    if a is None or b is None or not _is_int_result(a, b):
        return
    if not np.all(np.asarray(b._value) if _is_tensor(b) else np.asarray(b)):
        raise RuntimeError("ZeroDivisionError")


def _check_fmod(operands, statics) -> None:
    if _is_tensor(operands.get("input")):  # fmod(number, tensor) is the kernel's TypeError
        _check_int_divisor(operands, statics)


def _check_int_pow(operands, statics) -> None:
    a, b = operands.get("input"), operands.get("exponent")
    if (_is_tensor(a) and a.dtype._kind < 2 and isinstance(b, int | np.integer)
            and not isinstance(b, bool) and b < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def _constant_exponent(operands) -> tuple:
    """``pow``'s exponent is compiled in when it is a number with a shortcut (see
    ``functional.elementwise.pow``) and the base a float32/float64 tensor."""
    a, b = operands.get("input"), operands.get("exponent")
    if (type(b) in (int, float) and b in E.POW_SHORTCUTS and _is_tensor(a)
            and a.dtype.name in ("float32", "float64")):
        return ("exponent",)
    return ()


def _scalar_other(name, key="other"):
    """PyTorch numbers the backward by overload: 0 for a Python-number ``key``, 1 for a tensor."""
    return numbered(name, lambda s, o: int(not is_number(o.get(key))))


_DIV = dict(extra={"check": _check_int_divisor})
_POW_NAME = numbered(
    "Pow", lambda s, o: 2 if is_number(o.get("input")) else int(not is_number(o["exponent"])))

op("add", E.add, dunders=("add", "radd", "iadd"), saves="none", **WRAP, **BIN)
op("sub", E.sub, dunders=("sub", "isub"), saves="none", aliases=("subtract",), **WRAP,
   **BIN)
# ``number - x`` is rsub's Scalar overload in PyTorch: the number is no graph edge.
op("rsub", E.rsub, method=False, saves="none", dunders=("rsub",), scalar_edges="tensors",
   grad_name=numbered("Rsub", lambda s, o: int(is_number(o.get("other")))))
op("mul", E.mul, dunders=("mul", "rmul", "imul"), aliases=("multiply",), saves="others", **WRAP,
   **BIN)
op("div", E.div, static=("rounding_mode",), dunders=("truediv", "rtruediv", "itruediv"), **WRAP,
   aliases=("divide", "true_divide"), **_DIV, **BIN)
op("floor_divide", E.floor_divide, dunders=("floordiv", "rfloordiv", "ifloordiv"), **_DIV,
   **BIN)
op("remainder", E.remainder, dunders=("mod", "rmod", "imod"), grad_name=_scalar_other(
    "Remainder"), **_DIV, **BIN)
op("fmod", E.fmod, grad_name=_scalar_other("Fmod"), extra={"check": _check_fmod}, **BIN)
op("pow", E.pow, dunders=("pow", "rpow", "ipow"), grad_name=_POW_NAME,
   extra={"check": _check_int_pow, "constant": _constant_exponent, "by_types": True}, **BIN)
op("float_power", E.float_power, grad_name=_POW_NAME, **BIN)
op("neg", E.neg, dunders=("neg",), saves="none", aliases=("negative",), **BIN)
op("abs", E.abs, dunders=("abs",), aliases=("absolute",), **BIN)
op("atan2", E.atan2, aliases=("arctan2",), **BIN)
op("hypot", E.hypot, saves="all", **BIN)
op("copysign", E.copysign, saves="all", grad_name=numbered(
    "Copysign", lambda s, o: int(is_number(o["other"]))), **BIN)
op("xlogy", E.xlogy, grad_name=numbered("Xlogy", lambda s, o: 1 if is_number(o["input"])
                                         else 2 if is_number(o["other"]) else 0), **BIN)
op("heaviside", E.heaviside, saves="none", **BIN)
op("nextafter", E.nextafter, saves="none", **BIN)
op("lerp", E.lerp, grad_name=numbered("Lerp", lambda s, o: int(not is_number(o["weight"]))),
   **BIN)
# ``value`` takes no part in type promotion: int_x.addcmul_(a, b, value=0.5) is allowed.
op("addcmul", E.addcmul, promotion="tensors_only", **BIN)
op("addcdiv", E.addcdiv, promotion="tensors_only", **BIN)
op("where", E.where, saves="others", out=True, pointwise=True, method=False)
op("maximum", R.maximum, **{**BIN, "inplace": False})  # PyTorch has no maximum_
op("minimum", R.minimum, **{**BIN, "inplace": False})
op("clone", E.clone, static=("memory_format",), saves="none", extra={"fresh": True})
op("_copy", E.copy, function=False, method=False, saves="none", grad_name="CopyBackwards")
op("_fill", E.fill, function=False, method=False, saves="none",  # fill_(Scalar | Tensor)
   grad_name=numbered("Fill", lambda s, o: 2 if is_number(o["value"]) else 3))
op("_zero", E.zero, function=False, method=False, saves="none", grad_name="ZeroBackward0")
op("_to_dtype", E.to_dtype, static=("dtype",), function=False, method=False, saves="none",
   grad_name="ToCopyBackward0")
