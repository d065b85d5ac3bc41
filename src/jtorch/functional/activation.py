"""Activation functions with torch's dtype rules and gradient conventions.

Gradients at kinks follow PyTorch's backward kernels, which the branch structure of each
``jnp.where`` below reproduces: relu and threshold give 0 at the threshold, leaky_relu and
prelu give the negative slope at 0, hardtanh/relu6 give 0 on both boundaries, hardswish
uses its middle branch on the open interval (-3, 3). Unused branches are fed safe values
so that their (discarded) gradient never turns into NaN.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import cast, dtype_of, norm_dim, not_implemented

__all__ = [
    "relu", "relu6", "leaky_relu", "prelu", "rrelu", "elu", "selu", "celu", "gelu", "silu",
    "mish", "hardtanh", "hardswish", "hardsigmoid", "hardshrink", "softshrink", "softplus",
    "softsign", "tanhshrink", "logsigmoid", "threshold", "softmax", "log_softmax", "softmin",
    "glu",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _floating(op: str, x) -> D.dtype:
    """The input's dtype, which must be floating: torch's kernels exist for floats only."""
    d = dtype_of(x)
    if d._kind != 2:
        raise not_implemented(op, d)
    return d


def _no_bool(x, msg: str) -> D.dtype:
    d = dtype_of(x)
    if d is D.bool:
        raise RuntimeError(msg)
    return d


def _c(v, x):
    """A Python number as a constant of ``x``'s dtype (no promotion)."""
    return jnp.asarray(v, dtype=x.dtype)


def relu(input):
    _no_bool(input, "Boolean inputs not supported for relu")
    # x <= 0 picks the constant branch: gradient 0 at 0, NaN propagates as in clamp_min.
    return jnp.where(input <= 0, _c(0, input), input)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    _no_bool(input, "Bool inputs not supported for hardtanh")
    lo, hi = _c(min_val, input), _c(max_val, input)
    return jnp.where(input <= lo, lo, jnp.where(input >= hi, hi, input))


def relu6(input):
    return hardtanh(input, 0.0, 6.0)


def leaky_relu(input, negative_slope=0.01):
    _floating("leaky_relu_cpu", input)
    return jnp.where(input > 0, input, input * _c(negative_slope, input))


def prelu(input, weight):
    if dtype_of(input) is not dtype_of(weight):
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{D.legacy_name(dtype_of(input))} and "
                           f"{D.legacy_name(dtype_of(weight))}")
    _floating("prelu_cpu", input)
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    if input.ndim == 0:
        if weight.size != 1:
            raise RuntimeError("Not allow zero-dim input tensor.")
        w = weight.reshape(())
    elif weight.size != 1:
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.size:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.size} and channel size = {channels}.")
        w = weight.reshape((1, -1) + (1,) * (input.ndim - 2))
    else:
        w = weight.reshape(())
    return jnp.where(input > 0, input, w * input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):
    """The evaluation form: leaky_relu with slope (lower + upper) / 2."""
    _floating("rrelu_with_noise_cpu", input)
    return jnp.where(input > 0, input, input * _c((lower + upper) / 2, input))


def rrelu_train(input, key, lower=1.0 / 8, upper=1.0 / 3):
    """The training form: each negative element gets its own slope drawn from U(lower, upper)."""
    _floating("rrelu_with_noise_cpu", input)
    noise = jax.random.uniform(key, input.shape, input.dtype, lower, upper)
    return jnp.where(input > 0, input, input * noise)


def _elu(input, alpha, scale, input_scale, op="elu_cpu"):
    _floating(op, input)
    neg = jnp.where(input > 0, _c(0, input), input)  # a safe operand for the unused branch
    return jnp.where(input > 0, input * _c(scale, input),
                     jnp.expm1(neg * _c(input_scale, input)) * _c(alpha * scale, input))


def elu(input, alpha=1.0):
    return _elu(input, alpha, 1.0, 1.0)


def selu(input):
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def celu(input, alpha=1.0):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _elu(input, alpha, 1.0, 1.0 / alpha)


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating("GeluKernelImpl", input)
    if approximate == "tanh":
        inner = _c(math.sqrt(2 / math.pi), input) * (input + _c(0.044715, input) * input**3)
        return _c(0.5, input) * input * (1 + jnp.tanh(inner))
    return input * _c(0.5, input) * (1 + jax.lax.erf(input * _c(math.sqrt(0.5), input)))


def silu(input):
    _floating("silu_cpu", input)
    return input * jax.nn.sigmoid(input)


def mish(input):
    _floating("mish_cpu", input)
    return input * jnp.tanh(jax.nn.softplus(input))


def hardswish(input):
    _floating("hardswish_cpu", input)
    mid = input * (input + 3) / 6
    return jnp.where(input <= -3, _c(0, input), jnp.where(input < 3, mid, input))


def hardsigmoid(input):
    _floating("hardsigmoid_cpu", input)
    return jnp.where(input <= -3, _c(0, input),
                     jnp.where(input >= 3, _c(1, input), input / 6 + _c(0.5, input)))


def hardshrink(input, lambd=0.5):
    _floating("hardshrink_cpu", input)
    inside = (input >= -lambd) & (input <= lambd)
    return jnp.where(inside, _c(0, input), input)


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(
            f"lambda must be greater or equal to 0, but found to be {float(lambd)}.")
    _floating("softshrink_check", input)
    lam = _c(lambd, input)
    return jnp.where(input > lam, input - lam, jnp.where(input < -lam, input + lam,
                                                         _c(0, input)))


def softplus(input, beta=1.0, threshold=20.0):
    _floating("softplus_cpu", input)
    xb = input * _c(beta, input)
    linear = xb > threshold
    safe = jnp.where(linear, _c(0, input), xb)
    return jnp.where(linear, input, jnp.log1p(jnp.exp(safe)) / _c(beta, input))


def _float_of(x, op_on_bool: str):
    d = dtype_of(x)
    if d is D.bool:
        raise op_on_bool
    return x if d._kind >= 2 else cast(x, D.get_default_dtype())


def softsign(input):
    x = _float_of(input, not_implemented("abs_cpu", D.bool))
    return x / (1 + jnp.abs(x))


def tanhshrink(input):
    x = _float_of(input, RuntimeError(
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
        "trying to invert a mask, use the `~` or `logical_not()` operator instead."))
    return x - jnp.tanh(x)


def logsigmoid(input):
    _floating("log_sigmoid_cpu", input)
    return jax.nn.log_sigmoid(input)


def threshold(input, threshold, value):
    d = dtype_of(input)
    if d is D.bool:
        raise not_implemented("threshold_cpu", d)
    return jnp.where(input <= _c(threshold, input), _c(value, input), input)


def _softmax_input(input, dim, dtype, op):
    if dtype is not None:
        input = cast(input, dtype)
    d = dtype_of(input)
    if d._kind != 2:
        raise not_implemented(op, d)
    return input, norm_dim(dim, input.ndim)


def softmax(input, dim, dtype=None):
    x, dim = _softmax_input(input, dim, dtype, "softmax_lastdim_kernel_impl")
    if x.ndim == 0:
        return jnp.ones_like(x)
    return jax.nn.softmax(x, axis=dim)


def log_softmax(input, dim, dtype=None):
    x, dim = _softmax_input(input, dim, dtype, "log_softmax_lastdim_kernel_impl")
    if x.ndim == 0:
        return jnp.zeros_like(x)
    return jax.nn.log_softmax(x, axis=dim)


def softmin(input, dim, dtype=None):
    x, dim = _softmax_input(input, dim, dtype, "softmax_lastdim_kernel_impl")
    if x.ndim == 0:
        return jnp.ones_like(x)
    return jax.nn.softmax(-x, axis=dim)


def glu(input, dim=-1):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = norm_dim(dim, input.ndim)
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {n}")
    _floating("glu_cpu", input)
    a, b = jnp.split(input, 2, axis=dim)
    return a * jax.nn.sigmoid(b)
