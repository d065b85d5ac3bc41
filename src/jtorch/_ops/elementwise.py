"""Pointwise ops: arithmetic, comparisons, logical and bitwise ops, unary math."""

from __future__ import annotations

from .._registry import BIN, WRAP, is_number, numbered, op
from ..functional import elementwise as E
from ..functional import reduction as R

op("add", E.add, dunders=("add", "radd", "iadd"), saves="none", **WRAP, **BIN)
op("sub", E.sub, dunders=("sub", "isub"), saves="none", aliases=("subtract",), **WRAP,
   **BIN)
op("rsub", E.rsub, method=False, saves="none", dunders=("rsub",), **WRAP,
   grad_name=numbered("Rsub", lambda s, o: int(is_number(o.get("other")))))
op("mul", E.mul, dunders=("mul", "rmul", "imul"), aliases=("multiply",), saves="others", **WRAP,
   **BIN)
op("div", E.div, static=("rounding_mode",), dunders=("truediv", "rtruediv", "itruediv"), **WRAP,
   aliases=("divide", "true_divide"), **BIN)
op("floor_divide", E.floor_divide, dunders=("floordiv", "rfloordiv", "ifloordiv"), **BIN)
op("remainder", E.remainder, dunders=("mod", "rmod", "imod"), **BIN)
op("pow", E.pow, dunders=("pow", "rpow", "ipow"), **BIN, grad_name=numbered(
    "Pow", lambda s, o: 2 if is_number(o.get("input")) else int(not is_number(o["exponent"]))))
op("neg", E.neg, dunders=("neg",), saves="none", aliases=("negative",), **BIN)
op("abs", E.abs, dunders=("abs",), aliases=("absolute",), **BIN)
for _name in ("exp", "tanh", "sigmoid"):
    op(_name, getattr(E, _name), saves="out", **BIN)
for _name in ("log", "sqrt", "sin", "cos"):
    op(_name, getattr(E, _name), **BIN)
for _name, _d in (("eq", "eq"), ("ne", "ne"), ("lt", "lt"), ("le", "le"), ("gt", "gt"),
                  ("ge", "ge")):
    op(_name, getattr(E, _name), dunders=(_d,), saves="none", promotion="always_bool", **BIN)
op("bitwise_and", E.bitwise_and, dunders=("and", "rand", "iand"), saves="none", **BIN)
op("bitwise_or", E.bitwise_or, dunders=("or", "ror", "ior"), saves="none", **BIN)
op("bitwise_xor", E.bitwise_xor, dunders=("xor", "rxor", "ixor"), saves="none", **BIN)
op("bitwise_not", E.bitwise_not, saves="none", **BIN)  # ~ is Tensor.__invert__ (methods)
for _name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    op(_name, getattr(E, _name), saves="none", promotion="always_bool", **BIN)
op("where", E.where, saves="others", out=True, pointwise=True, method=False)
op("maximum", R.maximum, **{**BIN, "inplace": False})  # PyTorch has no maximum_
op("minimum", R.minimum, **{**BIN, "inplace": False})
op("clone", E.clone, static=("memory_format",), saves="none", extra={"fresh": True})
op("_copy", E.copy, function=False, method=False, saves="none", grad_name="CopyBackwards")
op("_fill", E.fill, function=False, method=False, saves="none", grad_name="FillBackward0")
op("_zero", E.zero, function=False, method=False, saves="none", grad_name="ZeroBackward0")
op("_to_dtype", E.to_dtype, static=("dtype",), function=False, method=False, saves="none",
   grad_name="ToCopyBackward0")
