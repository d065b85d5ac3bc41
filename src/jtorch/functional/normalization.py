"""Normalization kernels: batch, instance, layer, group and RMS norm.

Batch and instance norm return their updated running statistics as extra outputs (the
eager layer writes them back into the buffers): normalization uses the BIASED batch
variance, the running variance is updated with the UNBIASED one, as in PyTorch.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
from jax import lax

from ._util import dtype_of, not_implemented


def _check_float(name, input):
    d = dtype_of(input)
    if d._kind < 2:
        raise not_implemented(name, d)
    return d


def _affine(out, weight, bias, shape):
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def _check_param(name, x, c):
    if x is not None and (x.ndim != 1 or x.shape[0] != c):
        raise RuntimeError(f"{name} should contain {c} elements not "
                           f"{x.shape[0] if x.ndim == 1 else x.size}")


def _running_update(stat, new, momentum):
    return lax.stop_gradient((1 - momentum) * stat + momentum * new.astype(stat.dtype))


def batch_norm(input, weight=None, bias=None, running_mean=None, running_var=None,
               training=False, momentum=0.1, eps=1e-5):
    """Returns ``(out,)`` or, training with running stats, ``(out, new_mean, new_var)``."""
    d = _check_float("batch_norm", input)
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    c = input.shape[1]
    for name, x in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        _check_param(name, x, c)
    axes = (0, *range(2, input.ndim))
    shape = (1, c) + (1,) * (input.ndim - 2)
    if training:
        mean = jnp.mean(input, axis=axes, keepdims=True)
        var = jnp.mean(jnp.square(input - mean), axis=axes, keepdims=True)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation "
                               "mode")
        mean = running_mean.reshape(shape).astype(d.np)
        var = running_var.reshape(shape).astype(d.np)
    out = (input - mean) * lax.rsqrt(var + jnp.asarray(eps, d.np))
    out = _affine(out, weight, bias, shape).astype(d.np)
    if not training or running_mean is None:
        return (out,)
    n = input.size // c
    unbiased = var.reshape(c) * (n / max(n - 1, 1))
    return (out, _running_update(running_mean, mean.reshape(c), momentum),
            _running_update(running_var, unbiased, momentum))


def instance_norm(input, weight=None, bias=None, running_mean=None, running_var=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Batch norm of each (sample, channel) over its spatial dims; the running stats take
    the batch average of the per-instance statistics."""
    d = _check_float("instance_norm", input)
    n, c = input.shape[:2]
    axes = tuple(range(2, input.ndim))
    shape = (1, c) + (1,) * (input.ndim - 2)
    for name, x in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        _check_param(name, x, c)
    if use_input_stats:
        mean = jnp.mean(input, axis=axes, keepdims=True)
        var = jnp.mean(jnp.square(input - mean), axis=axes, keepdims=True)
    else:
        mean = running_mean.reshape(shape).astype(d.np)
        var = running_var.reshape(shape).astype(d.np)
    out = (input - mean) * lax.rsqrt(var + jnp.asarray(eps, d.np))
    out = _affine(out, weight, bias, shape).astype(d.np)
    if not use_input_stats or running_mean is None:
        return (out,)
    m = math.prod(input.shape[2:])
    unbiased = var.reshape(n, c) * (m / max(m - 1, 1))
    return (out, _running_update(running_mean, jnp.mean(mean.reshape(n, c), 0), momentum),
            _running_update(running_var, jnp.mean(unbiased, 0), momentum))


def _normalized_dims(input, normalized_shape, name="normalized_shape"):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(
        normalized_shape)
    k = len(shape)
    if k == 0 or input.shape[input.ndim - k:] != shape or input.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    return shape, tuple(range(input.ndim - k, input.ndim))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    d = _check_float("LayerNormKernelImpl", input)
    shape, axes = _normalized_dims(input, normalized_shape)
    for x in (weight, bias):
        if x is not None and x.shape != shape:
            raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but "
                               f"got weight of shape {list(x.shape)} and normalized_shape = "
                               f"{list(shape)}")
    if d.itemsize == 2:  # PyTorch computes half-precision layer norms in float32
        input = input.astype(jnp.float32)
        weight, bias = (None if x is None else x.astype(jnp.float32) for x in (weight, bias))
    mean = jnp.mean(input, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(input - mean), axis=axes, keepdims=True)
    out = (input - mean) * lax.rsqrt(var + jnp.asarray(eps, input.dtype))
    return _affine(out, weight, bias, shape).astype(d.np)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    d = _check_float("GroupNormKernelImpl", input)
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    n, c = input.shape[:2]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for name, x in (("weight", weight), ("bias", bias)):
        if x is not None and (x.ndim != 1 or x.shape[0] != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number "
                               f"of channels in input, but got {name} of shape "
                               f"{list(x.shape)} and input of shape {list(input.shape)}")
    x = input.reshape(n, num_groups, -1)
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    out = ((x - mean) * lax.rsqrt(var + jnp.asarray(eps, d.np))).reshape(input.shape)
    shape = (1, c) + (1,) * (input.ndim - 2)
    return _affine(out, weight, bias, shape).astype(d.np)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2) + eps); ``eps=None`` is the input dtype's machine epsilon."""
    d = _check_float("rms_norm", input)
    shape, axes = _normalized_dims(input, normalized_shape)
    if eps is None:
        eps = float(jnp.finfo(d.np).eps)
    ms = jnp.mean(jnp.square(input), axis=axes, keepdims=True)
    out = input * lax.rsqrt(ms + jnp.asarray(eps, d.np))
    return _affine(out, weight, None, shape).astype(d.np)
