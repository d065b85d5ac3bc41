"""Unary pointwise math declarations: exp/log families, trigonometry, rounding, signs."""

from __future__ import annotations

from .._registry import BIN, op
from ..functional import unary as U

# Ops whose backward reads only their result (torch saves ``result``).
for _name in ("exp", "exp2", "expm1", "sqrt", "rsqrt", "reciprocal", "tanh", "sigmoid"):
    op(_name, getattr(U, _name), saves="out", **BIN)
for _name in ("log", "log2", "log10", "log1p", "sin", "cos", "tan", "sinh", "cosh", "erf",
              "erfc", "erfinv", "logit", "frac", "sign", "sgn", "square", "nan_to_num"):
    static = {"logit": ("eps",), "nan_to_num": ("nan", "posinf", "neginf")}.get(_name, ())
    name = {"square": "PowBackward0", "log1p": "Log1PBackward0"}.get(_name, "")
    op(_name, getattr(U, _name), static=static, grad_name=name, **BIN)
for _name in ("asin", "acos", "atan", "asinh", "acosh", "atanh"):
    op(_name, getattr(U, _name), aliases=("arc" + _name[1:],), **BIN)
op("deg2rad", U.deg2rad, saves="none", grad_name="Deg2RadBackward0", **BIN)
op("rad2deg", U.rad2deg, saves="none", grad_name="Rad2DegBackward0", **BIN)
for _name in ("ceil", "floor"):
    op(_name, getattr(U, _name), saves="none", **BIN)
op("trunc", U.trunc, saves="none", aliases=("fix",), **BIN)
op("round", U.round, static=("decimals",), saves="none", grad_name=lambda s, o: (
    f"RoundBackward{int(s['decimals'] is not None)}"), **BIN)
op("signbit", U.signbit, saves="none", out=True, pointwise=True)
op("angle", U.angle, out=True, pointwise=True)
op("conj_physical", U.conj_physical, saves="none", **BIN)
