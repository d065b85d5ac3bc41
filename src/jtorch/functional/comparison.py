"""Comparisons, predicates, logical and bitwise ops, and the clamping family (clamp, fmax,
fmin) with torch's gradient conventions at ties and boundaries."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import (
    broadcast_shapes,
    cast,
    dtype_of,
    is_scalar,
    not_implemented,
    promote,
    require_tensor,
)

__all__ = [
    "eq", "ne", "lt", "le", "gt", "ge", "isclose", "isnan", "isinf", "isfinite", "isposinf",
    "isneginf", "isreal", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "bitwise_left_shift", "bitwise_right_shift", "logical_and", "logical_or", "logical_xor",
    "logical_not", "clamp", "clamp_min", "clamp_max", "fmax", "fmin",
]


def _compare(name, jfn, ordered):
    def op(input, other):
        dtype, a, b = promote(input, other)
        if ordered and dtype._kind == 3:
            raise not_implemented(f"{name}_cpu", dtype)
        return jfn(a, b)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}: compares in the promoted dtype, returns bool."
    return op


eq = _compare("eq", jnp.equal, False)
ne = _compare("ne", jnp.not_equal, False)
lt = _compare("lt", jnp.less, True)
le = _compare("le", jnp.less_equal, True)
gt = _compare("gt", jnp.greater, True)
ge = _compare("ge", jnp.greater_equal, True)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.isclose: ``|input - other| <= atol + rtol * |other|``, or equal (infinities).

    Both tensors must have the same dtype; the error is computed in it (integers and bool
    in the default float).
    """
    require_tensor("isclose", "input", 1, input)
    require_tensor("isclose", "other", 2, other)
    da, db = dtype_of(input), dtype_of(other)
    if da is not db:
        raise RuntimeError(f"{D.legacy_name(da)} did not match {D.legacy_name(db)}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol}")
    broadcast_shapes(jnp.shape(input), jnp.shape(other))
    close = input == other
    if equal_nan and da._kind >= 2:
        close = close | (jnp.isnan(input) & jnp.isnan(other))
    if rtol == 0 and atol == 0:
        return close
    if da._kind < 2:  # integers differ in the default float: uint8 differences never wrap
        input, other = (cast(x, D.get_default_dtype()) for x in (input, other))
    allowed = atol + jnp.abs(rtol * other)
    actual = jnp.abs(input - other)
    return close | (jnp.isfinite(actual) & (actual <= allowed))


# ------------------------------------------------------------------ predicates


def _float_only(name, jfn, complex_ok=True, default=False):
    def op(input):
        d = dtype_of(input)
        if d._kind == 3 and not complex_ok:
            raise RuntimeError(f"{name} does not support complex inputs.")
        if d._kind >= 2:
            return jfn(input)
        return jnp.full(jnp.shape(input), default)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}: a bool tensor; integer and bool inputs give {default}."
    return op


isnan = _float_only("isnan", jnp.isnan)
isinf = _float_only("isinf", jnp.isinf)
isfinite = _float_only("isfinite", jnp.isfinite, default=True)
isposinf = _float_only("isposinf", lambda x: x == jnp.inf, complex_ok=False)
isneginf = _float_only("isneginf", lambda x: x == -jnp.inf, complex_ok=False)


def isreal(input):
    if dtype_of(input)._kind == 3:
        return jnp.imag(input) == 0
    return jnp.ones(jnp.shape(input), bool)


# ------------------------------------------------------------------ bitwise and logical


def _bitwise(name, jfn):
    def op(input, other):
        dtype, a, b = promote(input, other)
        if dtype._kind >= 2:
            raise not_implemented(f"{name}_cpu", dtype)
        return jfn(a, b)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}: integer and bool dtypes only."
    return op


bitwise_and = _bitwise("bitwise_and", jnp.bitwise_and)
bitwise_or = _bitwise("bitwise_or", jnp.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", jnp.bitwise_xor)


def bitwise_not(input):
    d = dtype_of(input)
    if d._kind >= 2:
        raise not_implemented("bitwise_not_cpu", d)
    return jnp.invert(input)


def _shift_operands(kernel, input, other):
    dtype, a, b = promote(input, other)
    if dtype._kind != 1:
        raise not_implemented(kernel, dtype)
    return dtype, a, b, dtype.itemsize * 8


def bitwise_left_shift(input, other):
    """torch's ``<<``: a shift by a negative amount or by the bit width or more gives 0."""
    dtype, a, b, bits = _shift_operands("lshift_cpu", input, other)
    out = (b < 0) | (b >= bits)
    return jnp.where(out, jnp.zeros((), a.dtype), jnp.left_shift(a, jnp.clip(b, 0, bits - 1)))


def bitwise_right_shift(input, other):
    """torch's ``>>``: arithmetic for signed dtypes; out-of-range amounts shift fully."""
    dtype, a, b, bits = _shift_operands("rshift_cpu", input, other)
    top = bits - 1 if dtype.is_signed else bits
    out = (b < 0) | (b >= top)
    full = jnp.right_shift(a, bits - 1) if dtype.is_signed else jnp.zeros((), a.dtype)
    return jnp.where(out, full, jnp.right_shift(a, jnp.clip(b, 0, bits - 1)))


def _logical(name, jfn):
    def op(input, other):
        require_tensor(name, "input", 1, input)
        require_tensor(name, "other", 2, other)
        broadcast_shapes(jnp.shape(input), jnp.shape(other))
        return jfn(jnp.asarray(input) != 0, jnp.asarray(other) != 0)

    op.__name__ = op.__qualname__ = name
    return op


logical_and = _logical("logical_and", jnp.logical_and)
logical_or = _logical("logical_or", jnp.logical_or)
logical_xor = _logical("logical_xor", jnp.logical_xor)


def logical_not(input):
    return jnp.asarray(input) == 0


# ------------------------------------------------------------------ clamping


def _is_wrapped(x) -> bool:
    """A Python number, or what one becomes under jit (a weakly typed 0-dim array)."""
    return is_scalar(x) or (getattr(x, "weak_type", False) and jnp.ndim(x) == 0)


def _clamp_operands(name, input, lo, hi):
    dtype, x, lo_, hi_ = promote(input, lo, hi)
    if dtype._kind == 3:
        raise NotImplementedError(f"{name} is not supported for complex types")
    if dtype is D.bool and (_is_wrapped(lo) or _is_wrapped(hi)):
        raise not_implemented(f"{name}_scalar_cpu", dtype)
    return x, lo_, hi_


def clamp(input, min=None, max=None):
    """torch.clamp: ``min(max(input, min), max)``; NaN propagates; with min > max every
    element is max. Bounds may be tensors or numbers and take part in type promotion."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    x, lo, hi = _clamp_operands("clamp", input, min, max)
    if x.dtype == bool and lo is not None and hi is not None:
        raise not_implemented("clamp_cpu", D.bool)
    if lo is None:
        return _clamp_max(x, hi)
    if hi is None:
        return _clamp_min(x, lo)
    return _clamp(x, lo, hi)


def clamp_min(input, min):
    return _clamp_min(*_clamp_operands("clamp_min", input, min, None)[:2])


def clamp_max(input, max):
    x, _, hi = _clamp_operands("clamp_max", input, None, max)
    return _clamp_max(x, hi)


# torch's clamp_backward: the input's gradient flows where min <= x <= max, boundaries
# included (JAX's maximum/minimum would split it in half there); a bound gets the gradient
# where it is the result. With min >= max the result is max, and PyTorch gives min nothing.


@jax.custom_jvp
def _clamp(x, lo, hi):
    return jnp.minimum(jnp.maximum(x, lo), hi)


@_clamp.defjvp
def _clamp_jvp(primals, tangents):
    (x, lo, hi), (dx, dlo, dhi) = primals, tangents
    dy = (jnp.where((x >= lo) & (x <= hi), dx, 0) + jnp.where((x < lo) & (lo < hi), dlo, 0)
          + jnp.where((x > hi) | (hi < lo), dhi, 0))
    return _clamp(x, lo, hi), dy


@jax.custom_jvp
def _clamp_min(x, lo):
    return jnp.maximum(x, lo)


@_clamp_min.defjvp
def _clamp_min_jvp(primals, tangents):
    (x, lo), (dx, dlo) = primals, tangents
    return _clamp_min(x, lo), jnp.where(x >= lo, dx, 0) + jnp.where(x < lo, dlo, 0)


@jax.custom_jvp
def _clamp_max(x, hi):
    return jnp.minimum(x, hi)


@_clamp_max.defjvp
def _clamp_max_jvp(primals, tangents):
    (x, hi), (dx, dhi) = primals, tangents
    return _clamp_max(x, hi), jnp.where(x <= hi, dx, 0) + jnp.where(x > hi, dhi, 0)


def _nan_ignoring(name, pick):
    def op(input, other):
        require_tensor(name, "input", 1, input)
        require_tensor(name, "other", 2, other)
        dtype, a, b = promote(input, other)
        if dtype._kind == 3:
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        # where() routes the whole gradient to input on ties, as torch's fmax/fmin backward.
        return jnp.where(pick(a, b) | jnp.isnan(b), a, b)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}: like maximum/minimum, but a NaN loses to a number."
    return op


fmax = _nan_ignoring("fmax", jnp.greater_equal)
fmin = _nan_ignoring("fmin", jnp.less_equal)
