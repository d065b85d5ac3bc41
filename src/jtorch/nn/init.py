"""torch.nn.init: in-place initializers (all run under no_grad and return the tensor).

Draws come from ``generator`` (or the default generator) as every jtorch random op.
Samplers PyTorch builds from several in-place ops (``trunc_normal_``, ``orthogonal_``,
``sparse_``) are one jitted JAX kernel each here, keyed by shape and dtype.

Differences from PyTorch: the random streams differ (SplitMix64 counter streams, see
``functional/splitmix.py``, not Philox/MT), so the values differ while the distributions
match; ``trunc_normal_`` samples exactly from the truncated normal
(``jax.random.truncated_normal``) rather than by rejection.
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import _kernels
from .._kernels import device_array
from ..eager.autograd.grad_mode import no_grad
from ..eager.random import default_generator
from ..eager.tensor import wrap
from ..functional import splitmix as SM

__all__ = [
    "calculate_gain", "constant", "constant_", "dirac", "dirac_", "eye", "eye_",
    "kaiming_normal", "kaiming_normal_", "kaiming_uniform", "kaiming_uniform_", "normal",
    "normal_", "ones_", "orthogonal", "orthogonal_", "sparse", "sparse_", "trunc_normal_",
    "uniform", "uniform_", "xavier_normal", "xavier_normal_", "xavier_uniform",
    "xavier_uniform_", "zeros_",
]

_KERNELS: dict = {}


def _compute_dtype(dtype):
    """Sample in float32 at least (JAX has no 16-bit normal sampler worth trusting)."""
    return jnp.float64 if dtype == jnp.float64 else jnp.float32


def _sample_into(tensor, name: str, build, generator, *params):
    """Write ``build(key, shape, dtype, *params)`` (a pure sampler) into ``tensor``.

    The kernel is keyed by shape and dtype only: ``params`` are traced operands."""
    shape, np_dtype = tuple(tensor.shape), tensor.dtype.np
    cache_key = (name, shape, np_dtype)
    kernel = _KERNELS.get(cache_key)
    if kernel is None:
        def fn(k, c, *ps):
            out = build(SM.fold(k, c), shape, _compute_dtype(np_dtype), *ps)
            return out.astype(np_dtype)

        kernel = _KERNELS[cache_key] = _kernels.jit(fn)
    key, counter = (generator or default_generator).next()
    with no_grad():
        tensor.copy_(wrap(kernel(key, counter, *params)))
    return tensor


def _trunc_normal(key, shape, dtype, mean, std, a, b):
    lo, hi = (a - mean) / std, (b - mean) / std
    return jax.random.truncated_normal(key, lo, hi, shape, dtype) * std + mean


def _orthogonal(key, shape, dtype, gain):
    rows = shape[0]
    cols = math.prod(shape) // rows
    flat = SM.normal(key, (rows, cols), dtype)
    if rows < cols:
        flat = flat.T
    q, r = jnp.linalg.qr(flat)
    q = q * jnp.sign(jnp.diagonal(r))  # makes Q uniform (Haar), as PyTorch
    if rows < cols:
        q = q.T
    return (q * gain).reshape(shape)


def _sparse(key, shape, dtype, num_zeros, std):
    values = SM.normal(SM.fold(key, 0), shape, dtype) * std
    rank = jnp.argsort(jnp.argsort(SM.uniform(SM.fold(key, 1), shape, dtype), axis=0), axis=0)
    return jnp.where(rank < num_zeros, 0, values)  # num_zeros random rows per column


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (``leaky_relu`` takes its negative slope)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None):
    """Normal(mean, std) truncated to [a, b]."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    return _sample_into(tensor, "trunc_normal", _trunc_normal, generator, float(mean),
                        float(std), float(a), float(b))


def constant_(tensor, val: float):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """The identity matrix (2-D tensors only)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(wrap(jnp.eye(*tensor.shape, dtype=tensor.dtype.np)))
    return tensor


def dirac_(tensor, groups: int = 1):
    """The Dirac delta per group: convolutions initialized so they preserve the input."""
    dims = tensor.ndimension()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    value = np.zeros(tuple(sizes), dtype=np.float64)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min(out_per_group, sizes[1])):
            value[(g * out_per_group + d, d, *centre)] = 1
    with no_grad():
        tensor.copy_(wrap(device_array(value, tensor.dtype.np)))
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive_field_size = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else normal_(tensor, 0, std, generator)


def orthogonal_(tensor, gain: float = 1, generator=None):
    """A (semi-)orthogonal matrix, flattened over the trailing dims, times ``gain``."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    return _sample_into(tensor, "orthogonal", _orthogonal, generator, float(gain))


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """Normal(0, std) with ``ceil(sparsity * rows)`` zeros in each column."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    num_zeros = math.ceil(sparsity * tensor.shape[0])
    return _sample_into(tensor, "sparse", _sparse, generator, num_zeros, float(std))


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
