"""Elementwise ops with torch's type promotion: the result dtype first, then JAX."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero

from .. import _dtypes as D
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

__all__ = [
    "add", "sub", "rsub", "mul", "div", "floor_divide", "remainder", "pow", "neg", "abs",
    "exp", "log", "sqrt", "tanh", "sin", "cos", "sigmoid", "eq", "ne", "lt", "le", "gt", "ge",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_and", "logical_or",
    "logical_xor", "logical_not", "where", "to_dtype", "copy", "fill", "zero", "clone",
]


def _float_result(*xs) -> D.dtype:
    """Promotion kind INT_TO_FLOAT: integer and bool results become the default float."""
    broadcast_shapes(*(jnp.shape(x) for x in xs))
    dtype = result_type(*xs)
    return D.get_default_dtype() if dtype._kind < 2 else dtype


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


def pow(input, exponent):
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
sigmoid = _unary_float(jax.nn.sigmoid)
sigmoid.__name__ = "sigmoid"


# ------------------------------------------------------------------ comparisons and logic


def _compare(name, jfn, ordered):
    def op(input, other):
        dtype, a, b = promote(input, other)
        if ordered and dtype._kind == 3:
            raise not_implemented(f"{name}_cpu", dtype)
        return jfn(a, b)

    op.__name__ = name
    op.__doc__ = f"torch.{name}: compares in the promoted dtype, returns bool."
    return op


eq = _compare("eq", jnp.equal, False)
ne = _compare("ne", jnp.not_equal, False)
lt = _compare("lt", jnp.less, True)
le = _compare("le", jnp.less_equal, True)
gt = _compare("gt", jnp.greater, True)
ge = _compare("ge", jnp.greater_equal, True)


def _bitwise(name, jfn):
    def op(input, other):
        dtype, a, b = promote(input, other)
        if dtype._kind >= 2:
            raise not_implemented(f"{name}_cpu", dtype)
        return jfn(a, b)

    op.__name__ = name
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


def _logical(name, jfn):
    def op(input, other):
        require_tensor(name, "input", 1, input)
        require_tensor(name, "other", 2, other)
        broadcast_shapes(jnp.shape(input), jnp.shape(other))
        return jfn(jnp.asarray(input) != 0, jnp.asarray(other) != 0)

    op.__name__ = name
    return op


logical_and = _logical("logical_and", jnp.logical_and)
logical_or = _logical("logical_or", jnp.logical_or)
logical_xor = _logical("logical_xor", jnp.logical_xor)


def logical_not(input):
    return jnp.asarray(input) == 0


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
