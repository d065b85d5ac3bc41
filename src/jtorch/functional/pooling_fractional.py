"""Fractional max pooling (Graham, 2014): windows at pseudo-random, per-plane offsets.

The offsets come from ``random_samples`` (one number in [0, 1) per batch, channel and
spatial dim), turned into window starts by PyTorch's own formula, in the input's dtype,
so that the same samples give the same windows, values and indices as PyTorch.
"""

from __future__ import annotations

import math

import jax.numpy as jnp

from ._util import dtype_of, not_implemented
from .conv import ntuple


def _starts(sample, in_size: int, out_size: int, pool: int):
    """PyTorch's ``generate_intervals``: (..., out_size) window starts from (...,) samples."""
    if out_size == 0:
        return jnp.zeros(sample.shape + (0,), jnp.int64)
    i = jnp.arange(out_size - 1, dtype=sample.dtype)
    alpha = jnp.asarray(in_size - pool, sample.dtype) / jnp.asarray(max(out_size - 1, 1),
                                                                    sample.dtype)
    s = sample[..., None]
    seq = ((i + s) * alpha).astype(jnp.int64) - (s * alpha).astype(jnp.int64)
    last = jnp.full(sample.shape + (1,), in_size - pool, jnp.int64)
    return jnp.concatenate([seq, last], axis=-1)


def _check(input, samples, n, name, kernel, outs):
    d = dtype_of(input)
    if d._kind != 2:
        raise not_implemented(name, d)
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for i, s in enumerate(input.shape[1:] if input.ndim == n + 2 else input.shape):
        if s == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension "
                               f"{i + input.ndim - n - 1} being empty.")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    if dtype_of(samples) is not d:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    batch = input.shape[0] if input.ndim == n + 2 else 1
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got "
                           f"{samples.shape[2]}.")
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-n - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    words = ("time", "height", "width")[3 - n:]
    # PyTorch's 3-d kernel asks for strictly less room than its 2-d one does.
    where = f"{name}_out" if n == 3 else name
    for w, k, o, size in zip(words, kernel, outs, input.shape[-n:], strict=True):
        if o + k - 1 > size - (n == 3):
            raise RuntimeError(f"{where}(): pool {w} {k} too large relative to input {w} "
                               f"{size}")


def fractional_max_pool(input, kernel_size, output_size, random_samples, n: int):
    """(output, flat indices) of an ``n``-d fractional max pool; see the module docstring."""
    name = f"fractional_max_pool{n}d"
    kernel, outs = ntuple(kernel_size, n, "kernel_size"), ntuple(output_size, n, "output_size")
    _check(input, random_samples, n, name, kernel, outs)
    batched = input.ndim == n + 2
    x = input if batched else input[None]
    sizes = x.shape[2:]
    samples = random_samples[: x.shape[0]]
    # PyTorch's 2-d kernel reads sample 0 for the width and 1 for the height; the 3-d one
    # reads them in (time, height, width) order.
    order = (1, 0) if n == 2 else (0, 1, 2)
    flat = jnp.zeros(x.shape[:2] + (1,) * (2 * n), jnp.int64)
    for i in range(n):
        pos = _starts(samples[..., order[i]], sizes[i], outs[i], kernel[i])[..., None] \
            + jnp.arange(kernel[i])
        shape = list(x.shape[:2]) + [1] * (2 * n)
        shape[2 + i], shape[2 + n + i] = outs[i], kernel[i]
        flat = flat + pos.reshape(shape) * math.prod(sizes[i + 1:])
    flat = flat.reshape(x.shape[:2] + (math.prod(outs), math.prod(kernel)))
    win = jnp.take_along_axis(x.reshape(x.shape[:2] + (1, -1)), flat.reshape(
        x.shape[:2] + (1, -1)), axis=-1).reshape(flat.shape)
    arg = jnp.argmax(win, axis=-1)
    isnan = jnp.isnan(win)  # PyTorch keeps the LAST NaN of a window
    last = win.shape[-1] - 1 - jnp.argmax(isnan[..., ::-1], axis=-1)
    arg = jnp.where(jnp.any(isnan, axis=-1), last, arg)
    out = jnp.take_along_axis(win, arg[..., None], axis=-1)[..., 0]
    idx = jnp.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
    shape = x.shape[:2] + tuple(outs)
    out, idx = out.reshape(shape), idx.reshape(shape)
    return (out, idx) if batched else (out[0], idx[0])


def fractional_max_pool2d(input, kernel_size, output_size, random_samples):
    return fractional_max_pool(input, kernel_size, output_size, random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size, random_samples):
    return fractional_max_pool(input, kernel_size, output_size, random_samples, 3)


