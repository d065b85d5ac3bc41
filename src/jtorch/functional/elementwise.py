"""Elementwise arithmetic with torch's type promotion: the result dtype first, then JAX.

The unary math family lives in ``unary.py``, comparisons, predicates, logical/bitwise ops
and clamping in ``comparison.py``; both are re-exported here.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero

from .. import _dtypes as D
from . import comparison as _comparison
from . import unary as _unary
from ._util import (
    broadcast_shapes,
    cast,
    dtype_of,
    is_scalar,
    not_implemented,
    promote,
    require_tensor,
    result_type,
)
from .comparison import *  # noqa: F403 - re-exported: one namespace for the pointwise ops
from .unary import *  # noqa: F403
from .unary import float_result as _float_result

__all__ = [
    "add", "sub", "rsub", "mul", "div", "floor_divide", "remainder", "fmod", "pow",
    "float_power", "neg", "abs", "atan2", "hypot", "copysign", "xlogy", "heaviside", "nextafter",
    "lerp",
    "addcmul", "addcdiv", "where", "to_dtype", "copy", "fill", "zero", "clone",
    *_unary.__all__, *_comparison.__all__,
]


def _check_alpha(dtype: D.dtype, alpha) -> None:
    # Under jit a Python alpha arrives as a weakly typed array, so judge it by its dtype.
    kind = dtype_of(alpha)._kind
    if dtype._kind < 2 and kind >= 2:
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if dtype._kind < 3 and kind == 3:
        raise RuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number."
        )
    if kind == 0 and dtype is not D.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")


def _scaled(b, alpha, dtype):
    if is_scalar(alpha) and alpha == 1:
        return b
    return b * cast(alpha, dtype) if dtype is not D.bool else b & cast(alpha, dtype)


def add(input, other, *, alpha=1):
    dtype, a, b = promote(input, other)
    _check_alpha(dtype, alpha)
    b = _scaled(b, alpha, dtype)
    return a | b if dtype is D.bool else a + b


def sub(input, other, *, alpha=1):
    dtype, a, b = promote(input, other)
    bools = (dtype_of(input) is D.bool) + (dtype_of(other) is D.bool)
    if bools == 2:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if bools == 1:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    _check_alpha(dtype, alpha)
    return a - _scaled(b, alpha, dtype)


def rsub(input, other, *, alpha=1):
    return sub(other, input, alpha=alpha)


def mul(input, other):
    dtype, a, b = promote(input, other)
    return a & b if dtype is D.bool else a * b


def div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        dtype = _float_result(input, other)
        return cast(input, dtype) / cast(other, dtype)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    dtype, a, b = promote(input, other)
    if dtype._kind in (0, 3):
        raise not_implemented(f"div_{rounding_mode}_cpu", dtype)
    if rounding_mode == "trunc" and dtype._kind == 2:
        return jnp.trunc(a / b)
    # jnp.floor_divide follows Python's divmod for floats, exactly as torch's div_floor.
    q = jnp.floor_divide(a, b)
    if rounding_mode == "floor":
        return q
    return jnp.where((q < 0) & (q * b != a), q + 1, q)


def floor_divide(input, other):
    return div(input, other, rounding_mode="floor")


def remainder(input, other):
    dtype, a, b = promote(input, other)
    if dtype._kind in (0, 3):
        raise not_implemented("remainder_cpu", dtype)
    return jnp.remainder(a, b)


def fmod(input, other):
    """torch.fmod: the remainder of truncated division (sign of the dividend)."""
    require_tensor("fmod", "input", 1, input)
    dtype, a, b = promote(input, other)
    if dtype._kind in (0, 3):
        raise not_implemented("fmod_cpu", dtype)
    return jnp.fmod(a, b)


# The exponents PyTorch's CPU kernel computes without pow(): x*x for 2, x*x*x for 3, sqrt,
# rsqrt, the reciprocal, 1/(x*x). A Python-number exponent among them reaches ``pow`` as a
# number (the eager binding keys the kernel on it), not as a traced scalar.
POW_SHORTCUTS = frozenset((2, 3, 0.5, -0.5, -1, -2))


def pow(input, exponent):
    if (type(exponent) in (int, float) and exponent in POW_SHORTCUTS
            and dtype_of(input) in (D.float32, D.float64)):
        return _pow_const(input, float(exponent))
    dtype, a, b = promote(input, exponent)
    if dtype is D.bool:
        if jnp.ndim(exponent) != 0 or jnp.ndim(input) == 0:
            raise not_implemented("pow", dtype)
        # torch's pow(Tensor, Scalar) answers exponents 1 and 0 before picking a kernel. A
        # Python bool reaches here as a 0-dim bool array, so 0-dim tensors take this path too.
        return jnp.where(b, a, True)
    if dtype._kind == 1:
        return _int_pow(a, b)
    if dtype._kind == 3:
        return jnp.power(a, b)
    return _pow(a, b)


def _int_pow(a, b):
    # XLA's integer pow is undefined for negative exponents; torch truncates 1/a**|b|.
    p = jnp.power(a, jnp.where(b < 0, 0, b))
    odd = (b % 2) != 0
    neg = jnp.where(a == 1, 1, jnp.where(a == -1, jnp.where(odd, -1, 1), 0)).astype(a.dtype)
    return jnp.where(b < 0, neg, p)


@jax.custom_jvp
def _pow(a, b):
    return jnp.power(a, b)


def _pow_jvp(primals, tangents):
    # torch's pow_backward: a zero exponent has zero gradient (JAX gives NaN at a == 0), and
    # the exponent's gradient is zero where a == 0 and b >= 0 (JAX gives NaN from log(0)).
    # Symbolic zeros skip the other input's term, whose NaNs (log of a < 0) would leak.
    (a, b), (da, db) = primals, tangents
    y = jnp.power(a, b)
    dy = jnp.zeros_like(y)
    if not isinstance(da, SymbolicZero):
        dy = dy + da * jnp.where(b == 0, 0, b * jnp.power(a, b - 1)).astype(y.dtype)
    if not isinstance(db, SymbolicZero):
        log_a = jnp.log(jnp.where(a == 0, 1, a))
        dy = dy + db * jnp.where((a == 0) & (b >= 0), 0, y * log_a).astype(y.dtype)
    return y, dy


_pow.defjvp(_pow_jvp, symbolic_zeros=True)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def _pow_const(a, b: float):
    """``a ** b`` for a constant ``b``, as PyTorch's CPU kernel computes the shortcut
    exponents (products are exact as pow's are; sqrt and rsqrt are several times cheaper)."""
    if b == 1:
        return a
    if b == 2:
        return a * a
    if b == 3:
        return a * a * a
    if b == 0.5:
        return jnp.sqrt(a)
    if b == -0.5:
        return jax.lax.rsqrt(a)
    if b == -1:
        return 1 / a
    if b == -2:
        return 1 / (a * a)
    return jnp.power(a, jnp.asarray(b, a.dtype))


@_pow_const.defjvp
def _pow_const_jvp(b, primals, tangents):
    # PyTorch's pow_backward for a number exponent: grad * (b * a ** (b - 1)).
    (a,), (da,) = primals, tangents
    return _pow_const(a, b), da * (b * _pow_const(a, b - 1))


def float_power(input, exponent):
    """torch.float_power: ``pow`` computed in float64 (complex128 for complex operands)."""
    complex_ = any(dtype_of(x)._kind == 3 for x in (input, exponent))
    dtype = D.complex128 if complex_ else D.float64
    broadcast_shapes(jnp.shape(input), jnp.shape(exponent))
    a, b = cast(input, dtype), cast(exponent, dtype)
    return jnp.power(a, b) if complex_ else _pow(a, b)


def neg(input):
    if dtype_of(input) is D.bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return jnp.negative(input)


def abs(input):
    d = dtype_of(input)
    if d is D.bool:
        raise not_implemented("abs_cpu", d)
    return _abs(input) if d._kind == 2 else jnp.abs(input)


@jax.custom_jvp
def _abs(x):
    return jnp.abs(x)


@_abs.defjvp
def _abs_jvp(primals, tangents):
    # torch's abs gradient is sign(x), which is 0 at 0 (JAX's is 1 there).
    (x,), (dx,) = primals, tangents
    return jnp.abs(x), dx * jnp.sign(x)


# ------------------------------------------------------------------ binary float math


def _tensors(name, input, other, other_name="other"):
    require_tensor(name, "input", 1, input)
    require_tensor(name, other_name, 2, other)


def atan2(input, other):
    _tensors("atan2", input, other)
    dtype = _float_result(input, other)
    return _atan2(cast(input, dtype), cast(other, dtype))


@jax.custom_jvp
def _atan2(y, x):
    return jnp.arctan2(y, x)


@_atan2.defjvp
def _atan2_jvp(primals, tangents):
    # torch's atan2_backward gives 0, not JAX's NaN, at the origin (1 / (x^2 + y^2) = inf).
    (y, x), (dy, dx) = primals, tangents
    r2 = x * x + y * y
    recip = jnp.where(r2 == 0, 0, 1 / jnp.where(r2 == 0, 1, r2))
    return _atan2(y, x), (dy * x - dx * y) * recip


def hypot(input, other):
    _tensors("hypot", input, other)
    dtype, a, b = promote(input, other)
    if dtype._kind != 2:
        raise not_implemented("hypot_cpu", dtype)
    return _hypot(a, b)


@jax.custom_jvp
def _hypot(a, b):
    return jnp.hypot(a, b)


@_hypot.defjvp
def _hypot_jvp(primals, tangents):
    # torch: grad * x / hypot(x, y), NaN at the origin (JAX's hypot avoids the 0 / 0).
    (a, b), (da, db) = primals, tangents
    r = _hypot(a, b)
    return r, (da * a + db * b) / r


def copysign(input, other):
    """torch.copysign: |input| with the sign bit of other; integers compute in float."""
    require_tensor("copysign", "input", 1, input)
    dtype = _float_result(input, other)
    a, b = cast(input, dtype), cast(other, dtype)
    # |a| with abs's sign(x) gradient: torch's copysign gradient is result / input, 0 at 0.
    mag = _abs(a)
    return jnp.where(jnp.signbit(b), -mag, mag)


def xlogy(input, other):
    """torch.xlogy: ``input * log(other)``, 0 where input == 0, NaN where other is NaN."""
    dtype = _float_result(input, other)
    return _xlogy(cast(input, dtype), cast(other, dtype))


@jax.custom_jvp
def _xlogy(x, y):
    return jnp.where(jnp.isnan(y), y, jnp.where(x == 0, 0, x * jnp.log(y)))


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    # torch: d/dx = log(y), but 0 where x == 0 and y <= 0 (JAX's rule gives -inf or NaN).
    (x, y), (dx, dy) = primals, tangents
    dlog = jnp.where((x == 0) & (y <= 0), 0, jnp.log(jnp.where(y <= 0, 1, y)))
    dlog = jnp.where((y < 0) & (x != 0), jnp.nan, jnp.where((y == 0) & (x != 0), -jnp.inf, dlog))
    return _xlogy(x, y), dx * dlog + dy * x / y


def heaviside(input, values):
    """torch.heaviside: 0 below zero, 1 above, ``values`` at zero; one dtype for both."""
    _tensors("heaviside", input, values, "values")
    if dtype_of(input) is not dtype_of(values):
        raise RuntimeError(
            "heaviside is not yet implemented for tensors with different dtypes."
        )
    broadcast_shapes(jnp.shape(input), jnp.shape(values))
    return jnp.where(input == 0, values, (input > 0).astype(input.dtype))


def nextafter(input, other):
    """torch.nextafter: the next representable float after ``input`` towards ``other``;
    the gradient passes to ``input`` unchanged and is zero for ``other``, as PyTorch's."""
    _tensors("nextafter", input, other)
    broadcast_shapes(jnp.shape(input), jnp.shape(other))
    dtype = result_type(input, other)
    if dtype._kind < 2 or dtype._kind > 2:
        raise not_implemented("nextafter_cpu", dtype)
    return _nextafter(cast(input, dtype), cast(other, dtype))


@jax.custom_jvp
def _nextafter(a, b):
    return jnp.nextafter(a, b)


_nextafter.defjvp(lambda primals, tangents: (_nextafter(*primals), tangents[0]))


def lerp(input, end, weight):
    """torch.lerp: ``input + weight * (end - input)``, evaluated from ``end`` when
    |weight| >= 0.5 as torch does; input, end and a non-0-dim weight share one dtype."""
    _tensors("lerp", input, end, "end")
    d = dtype_of(input)
    for name, x in (("end", end), ("weight", weight)):
        if not is_scalar(x) and jnp.ndim(x) and dtype_of(x) is not d:
            raise RuntimeError(f"expected dtype {D.legacy_name(d).lower()} for `{name}` but "
                               f"got dtype {D.legacy_name(dtype_of(x)).lower()}")
    if d._kind < 2:
        kind = "scalar" if jnp.ndim(weight) == 0 else "tensor"
        raise not_implemented(f"lerp_kernel_{kind}", d)
    broadcast_shapes(jnp.shape(input), jnp.shape(end), jnp.shape(weight))
    w = cast(weight, d)
    diff = end - input
    return jnp.where(jnp.abs(w) < 0.5, input + w * diff, end - diff * (1 - w))


def addcmul(input, tensor1, tensor2, *, value=1):
    """torch.addcmul: ``input + value * tensor1 * tensor2``; value is cast to the result
    dtype (so a float value truncates for integer tensors, as in torch)."""
    dtype, x, a, b = promote(input, tensor1, tensor2)
    if dtype is D.bool:
        raise not_implemented("addcmul_cpu_out", dtype)
    return x + cast(value, dtype) * a * b


def addcdiv(input, tensor1, tensor2, *, value=1):
    """torch.addcdiv: ``input + value * tensor1 / tensor2``; integer tensor1 and tensor2
    are refused, as in torch."""
    if all(dtype_of(t)._kind < 2 for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
            "for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes."
        )
    dtype, x, a, b = promote(input, tensor1, tensor2)
    return x + cast(value, dtype) * a / b


def where(condition, input, other):
    if dtype_of(condition) is not D.bool:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{D.legacy_name(dtype_of(condition))}"
        )
    broadcast_shapes(jnp.shape(condition), jnp.shape(input), jnp.shape(other))
    dtype = result_type(input, other)
    return jnp.where(condition, cast(input, dtype), cast(other, dtype))


# ------------------------------------------------------------------ copies and fills


def to_dtype(input, dtype):
    """Convert to a torch dtype (``Tensor.to(dtype)``); complex to real keeps the real part.

    Float to integer follows PyTorch on x86: NaN and out-of-range values become the type's
    minimum for int32/int64, and narrower types wrap around through int32 (-2.7 -> 254 as
    uint8). XLA would saturate instead.
    """
    if dtype_of(input)._kind == 3 and dtype._kind < 3:
        input = jnp.real(input)
    if dtype._kind == 1 and hasattr(input, "dtype") and dtype_of(input)._kind == 2:
        return _float_to_int(input, dtype)
    return cast(input, dtype)


def _float_to_int(x, dtype: D.dtype):
    wide = D.int64 if dtype is D.int64 else D.int32
    info = jnp.iinfo(wide.np)
    x = x.astype(jnp.float64) if x.dtype != jnp.float64 else x
    bad = jnp.isnan(x) | (x >= float(info.max) + 1.0) | (x < float(info.min))
    out = jnp.where(bad, jnp.asarray(info.min, wide.np), x.astype(wide.np))
    return out if wide is dtype else out.astype(dtype.np)


def copy(input, src):
    """The value ``input.copy_(src)`` writes: ``src`` broadcast to input's shape and dtype."""
    return jnp.broadcast_to(to_dtype(src, dtype_of(input)), input.shape)


def fill(input, value):
    if not is_scalar(value) and value.ndim != 0:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{value.ndim} dimensions."
        )
    return jnp.full(input.shape, to_dtype(value, dtype_of(input)))


def zero(input):
    return jnp.zeros_like(input)


def clone(input, *, memory_format=None):
    """A copy; JAX arrays are immutable, so the eager layer's new storage is the copy."""
    return input
