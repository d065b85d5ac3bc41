"""Unary pointwise math: torch's result dtypes (INT_TO_FLOAT promotion, rounding that keeps
integers, ``sign`` of bool) and torch's gradient conventions where JAX's differ."""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import broadcast_shapes, cast, dtype_of, not_implemented, result_type

__all__ = [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "sigmoid", "logit", "erf", "erfc", "erfinv", "deg2rad", "rad2deg", "ceil",
    "floor", "trunc", "round", "frac", "sign", "sgn", "signbit", "square", "angle",
    "nan_to_num", "conj_physical",
]


def float_result(*xs) -> D.dtype:
    """Promotion kind INT_TO_FLOAT: integer and bool results become the default float."""
    broadcast_shapes(*(jnp.shape(x) for x in xs))
    dtype = result_type(*xs)
    return D.get_default_dtype() if dtype._kind < 2 else dtype


def _unary_float(name, jfn):
    def op(input):
        return jfn(cast(input, float_result(input)))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}: integer and bool inputs compute in the default float."
    return op


def _times(c):
    return lambda x: x * jnp.asarray(c, x.dtype)


exp = _unary_float("exp", jnp.exp)
exp2 = _unary_float("exp2", jnp.exp2)
expm1 = _unary_float("expm1", jnp.expm1)
log = _unary_float("log", jnp.log)
log2 = _unary_float("log2", jnp.log2)
log10 = _unary_float("log10", jnp.log10)
log1p = _unary_float("log1p", jnp.log1p)
sqrt = _unary_float("sqrt", jnp.sqrt)
rsqrt = _unary_float("rsqrt", jax.lax.rsqrt)
reciprocal = _unary_float("reciprocal", lambda x: 1 / x)
sin = _unary_float("sin", jnp.sin)
cos = _unary_float("cos", jnp.cos)
tan = _unary_float("tan", jnp.tan)
asin = _unary_float("asin", jnp.arcsin)
acos = _unary_float("acos", jnp.arccos)
atan = _unary_float("atan", jnp.arctan)
sinh = _unary_float("sinh", jnp.sinh)
cosh = _unary_float("cosh", jnp.cosh)
tanh = _unary_float("tanh", jnp.tanh)
asinh = _unary_float("asinh", jnp.arcsinh)
acosh = _unary_float("acosh", jnp.arccosh)
atanh = _unary_float("atanh", jnp.arctanh)
sigmoid = _unary_float("sigmoid", jax.nn.sigmoid)
erf = _unary_float("erf", jax.lax.erf)
erfc = _unary_float("erfc", jax.lax.erfc)
erfinv = _unary_float("erfinv", jax.lax.erf_inv)
deg2rad = _unary_float("deg2rad", _times(math.pi / 180))
rad2deg = _unary_float("rad2deg", _times(180 / math.pi))


def logit(input, eps=None):
    """torch.logit: ``log(x / (1 - x))``, with x clamped to [eps, 1 - eps] when eps is given."""
    return _logit(cast(input, float_result(input)), eps)


@partial(jax.custom_jvp, nondiff_argnums=(1,))
def _logit(x, eps):
    if eps is not None and eps >= 0:
        x = jnp.clip(x, eps, 1 - eps)
    return jnp.log(x / (1 - x))


@_logit.defjvp
def _logit_jvp(eps, primals, tangents):
    # torch's logit_backward: with eps the gradient is 0 outside [eps, 1 - eps] (where the
    # clamp holds x constant); without, NaN outside [0, 1].
    # The masks pick a NaN or safe denominator rather than the result, so that the tangent
    # stays linear in dx and no 0/0 leaks into the transposed (backward) computation.
    (x,), (dx,) = primals, tangents
    if eps is None or eps < 0:
        return _logit(x, eps), dx / jnp.where((x < 0) | (x > 1), jnp.nan, x * (1 - x))
    outside = (x < eps) | (x > 1 - eps)
    return _logit(x, eps), jnp.where(outside, 0, dx / jnp.where(outside, 1, x * (1 - x)))


# ------------------------------------------------------------------ rounding


def _rounding(name, jfn):
    def op(input):
        d = dtype_of(input)
        if d is D.bool:
            raise not_implemented(f"{name}_vml_cpu", d)
        return jfn(input) if d._kind >= 2 else input

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}: integer inputs are returned unchanged; bool raises."
    return op


ceil = _rounding("ceil", jnp.ceil)
floor = _rounding("floor", jnp.floor)
trunc = _rounding("trunc", jnp.trunc)


def round(input, *, decimals=None):
    """torch.round: half to even; ``decimals`` scales by a power of ten first.

    Differences from PyTorch: ``decimals`` defaults to None (meaning 0) so that passing it
    explicitly, which PyTorch refuses for integer inputs, can be told apart.
    """
    d = dtype_of(input)
    if d is D.bool or (decimals is not None and d._kind < 2):
        raise not_implemented("round_cpu", d)
    if d._kind < 2:
        return input
    if not decimals:
        return jnp.round(input)
    ten = jnp.asarray(10.0 ** abs(decimals), input.dtype)
    if decimals < 0:
        return jnp.round(input / ten) * ten
    return jnp.round(input * ten) / ten


def frac(input):
    d = dtype_of(input)
    if d._kind < 2:
        raise not_implemented("frac_cpu", d)
    return input - jnp.trunc(input)


# ------------------------------------------------------------------ signs


def sign(input):
    """torch.sign: -1, 0 or 1 in the input's dtype; NaN and -0.0 give +0.0."""
    d = dtype_of(input)
    if d._kind == 3:
        raise NotImplementedError(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
            "torch.sgn instead."
        )
    if d is D.bool:
        return input
    return (input > 0).astype(input.dtype) - (input < 0).astype(input.dtype)


def sgn(input):
    """torch.sgn: ``sign`` for real inputs, ``x / |x|`` (0 at 0) for complex ones."""
    if dtype_of(input)._kind != 3:
        return sign(input)
    mag = jnp.abs(input)
    return jnp.where(mag == 0, 0, input / jnp.where(mag == 0, 1, mag).astype(input.dtype))


def signbit(input):
    d = dtype_of(input)
    if d._kind == 3:
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    if d._kind == 2:
        return jnp.signbit(input)
    return input < 0 if d.is_signed else jnp.zeros(jnp.shape(input), bool)


def square(input):
    """torch.square: ``x * x``; bool squares in int64, as torch's ``pow(x, 2)``."""
    if dtype_of(input) is D.bool:
        input = input.astype(jnp.int64)
    return input * input


def angle(input):
    """torch.angle: the argument of a complex number; pi for negative reals, NaN kept."""
    d = dtype_of(input)
    if d._kind == 3:
        return jnp.angle(input)
    x = cast(input, float_result(input))
    # Built from constants: the gradient of a real angle is zero everywhere (NaN included).
    pi = jnp.where(x < 0, jnp.asarray(math.pi, x.dtype), jnp.zeros((), x.dtype))
    return jnp.where(jnp.isnan(x), jnp.asarray(jnp.nan, x.dtype), pi)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """torch.nan_to_num: NaN, +inf and -inf replaced (infinities default to the dtype's
    largest and lowest finite values); integer and bool inputs are returned unchanged."""
    d = dtype_of(input)
    if d._kind < 2:
        return input
    if d._kind == 3:
        parts = (jnp.real(input), jnp.imag(input))
        re, im = (nan_to_num(p, nan, posinf, neginf) for p in parts)
        return jax.lax.complex(re, im)
    info = jnp.finfo(input.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    x = jnp.where(jnp.isnan(input), jnp.asarray(nan, input.dtype), input)
    x = jnp.where(input == jnp.inf, jnp.asarray(posinf, input.dtype), x)
    return jnp.where(input == -jnp.inf, jnp.asarray(neginf, input.dtype), x)


# ------------------------------------------------------------------ complex parts


def conj_physical(input):
    """torch.conj_physical: the conjugate, materialized; real inputs are returned as they are."""
    return jnp.conj(input) if dtype_of(input)._kind == 3 else input

