"""Elementwise ops with torch's type promotion: the result dtype first, then JAX."""

from __future__ import annotations

import jax.numpy as jnp

from .. import _dtypes as D
from ._util import cast, dtype_of, is_scalar, result_type


def _float_result(*xs) -> D.dtype:
    """Promotion kind INT_TO_FLOAT: integer and bool results become the default float."""
    d = result_type(*xs)
    return D.get_default_dtype() if d._kind < 2 else d


def _not_implemented(op: str, d: D.dtype):
    return RuntimeError(f'"{op}" not implemented for \'{D.legacy_name(d)}\'')


def _check_alpha(dtype: D.dtype, alpha) -> None:
    if alpha is None or not is_scalar(alpha):
        return
    if dtype._kind < 2 and isinstance(alpha, float):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if isinstance(alpha, bool) and dtype is not D.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")


def _scaled(other, alpha, dtype):
    b = cast(other, dtype)
    if is_scalar(alpha) and alpha == 1:
        return b
    return b * cast(alpha, dtype) if dtype is not D.bool else b & cast(alpha, dtype)


def add(input, other, *, alpha=1):
    dtype = result_type(input, other)
    _check_alpha(dtype, alpha)
    a, b = cast(input, dtype), _scaled(other, alpha, dtype)
    return a | b if dtype is D.bool else a + b


def sub(input, other, *, alpha=1):
    dtype = result_type(input, other)
    if dtype is D.bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    _check_alpha(dtype, alpha)
    return cast(input, dtype) - _scaled(other, alpha, dtype)


def rsub(input, other, *, alpha=1):
    return sub(other, input, alpha=alpha)


def mul(input, other):
    dtype = result_type(input, other)
    a, b = cast(input, dtype), cast(other, dtype)
    return a & b if dtype is D.bool else a * b


def div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        dtype = _float_result(input, other)
        return cast(input, dtype) / cast(other, dtype)
    dtype = result_type(input, other)
    a, b = cast(input, dtype), cast(other, dtype)
    if rounding_mode == "floor":
        return jnp.floor_divide(a, b) if dtype._kind < 2 else jnp.floor(a / b)
    if rounding_mode == "trunc":
        if dtype._kind < 2:
            q = jnp.floor_divide(a, b)
            return jnp.where((q < 0) & (q * b != a), q + 1, q)
        return jnp.trunc(a / b)
    raise ValueError(
        "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
        f"'{rounding_mode}'"
    )


def floor_divide(input, other):
    return div(input, other, rounding_mode="floor")


def remainder(input, other):
    dtype = result_type(input, other)
    return jnp.remainder(cast(input, dtype), cast(other, dtype))


def pow(input, exponent):
    dtype = result_type(input, exponent)
    return jnp.power(cast(input, dtype), cast(exponent, dtype))


def neg(input):
    if dtype_of(input) is D.bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return jnp.negative(input)


def abs(input):
    if dtype_of(input) is D.bool:
        raise _not_implemented("abs_cpu", D.bool)
    return jnp.abs(input)


def _unary_float(jfn):
    def op(input):
        return jfn(cast(input, _float_result(input)))

    op.__name__ = jfn.__name__
    op.__doc__ = f"torch.{jfn.__name__}: integer and bool inputs compute in the default float."
    return op


exp = _unary_float(jnp.exp)
log = _unary_float(jnp.log)
sqrt = _unary_float(jnp.sqrt)
tanh = _unary_float(jnp.tanh)
sin = _unary_float(jnp.sin)
cos = _unary_float(jnp.cos)


def sigmoid(input):
    x = cast(input, _float_result(input))
    return 1 / (1 + jnp.exp(-x))


# ------------------------------------------------------------------ comparisons and logic


def _compare(jfn):
    def op(input, other):
        dtype = result_type(input, other)
        return jfn(cast(input, dtype), cast(other, dtype))

    op.__name__ = jfn.__name__
    op.__doc__ = f"torch's {jfn.__name__}: compares in the promoted dtype, returns bool."
    return op


eq = _compare(jnp.equal)
ne = _compare(jnp.not_equal)
lt = _compare(jnp.less)
le = _compare(jnp.less_equal)
gt = _compare(jnp.greater)
ge = _compare(jnp.greater_equal)


def _bitwise(name, jfn):
    def op(input, other):
        dtype = result_type(input, other)
        if dtype._kind >= 2:
            raise _not_implemented(f"{name}_cpu", dtype)
        return jfn(cast(input, dtype), cast(other, dtype))

    op.__name__ = name
    op.__doc__ = f"torch.{name}: integer and bool dtypes only."
    return op


bitwise_and = _bitwise("bitwise_and", jnp.bitwise_and)
bitwise_or = _bitwise("bitwise_or", jnp.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", jnp.bitwise_xor)


def bitwise_not(input):
    d = dtype_of(input)
    if d._kind >= 2:
        raise _not_implemented("bitwise_not_cpu", d)
    return jnp.invert(input)


def _logical(jfn):
    def op(input, other):
        return jfn(jnp.asarray(input) != 0, jnp.asarray(other) != 0)

    op.__name__ = jfn.__name__
    return op


logical_and = _logical(jnp.logical_and)
logical_or = _logical(jnp.logical_or)
logical_xor = _logical(jnp.logical_xor)


def logical_not(input):
    return jnp.asarray(input) == 0


def where(condition, input, other):
    if dtype_of(condition) is not D.bool:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{D.legacy_name(dtype_of(condition))}"
        )
    dtype = result_type(input, other)
    return jnp.where(condition, cast(input, dtype), cast(other, dtype))


# ------------------------------------------------------------------ copies and fills


def to_dtype(input, dtype):
    """Convert to a torch dtype (``Tensor.to(dtype)``); complex to real keeps the real part."""
    if dtype_of(input)._kind == 3 and dtype._kind < 3:
        input = jnp.real(input)
    return cast(input, dtype)


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
