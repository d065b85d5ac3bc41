"""Convolution as a sum over kernel taps, for a group with one input channel.

XLA:CPU lowers a convolution with one input channel per group (depthwise layers, a first
layer on grey images) to loops far slower than the products it amounts to: 17-19 ms
against 0.55 for a depthwise 3x3 layer of 32 channels on 64 16x16 images, 0.35 against
0.05 for a 1->16 channel first layer on 8x8 digits (one thread). Written as a sum over the
kernel's taps, each tap a strided window of the (padded) input contracted with that tap's
weights, the same arithmetic runs as a few dense products. Results equal
``lax.conv_general_dilated``'s within float32 rounding (the sum runs in another order).

``conv(x, w, ...)`` is what ``functional/conv.py`` calls: on the CPU backend, for stride 1
and at most ``MAX_TAPS`` taps, a group with one input channel takes the taps. Everything
else is ``lax.conv_general_dilated``, whose weight gradient (once also taken from the taps
here) is 3x faster than the taps' where XLA runs convolutions in its own code rather than
YNNPACK's (``_kernels.cpu_library_options``: a convolution's eager kernels on the CPU).
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
from jax import lax

# Kernels with more taps than this keep XLA's convolution: each tap is one product over
# the whole batch, and past a few dozen taps the products get too thin to win.
MAX_TAPS = 27


def conv(x, w, stride, pads, dilation, groups, dims, precision):
    """``lax.conv_general_dilated(x, w, ...)`` (torch layouts, no input dilation)."""
    taps = 1
    for k in w.shape[2:]:
        taps *= k
    # float32/float64 only: half-precision products would round per tap, where XLA's
    # convolution accumulates in float32. Strided convolutions measured no faster on the
    # taps (DCGAN's 4x4 stride-2 layers); symbolic shapes (jax.export) cannot slice so.
    if (jax.default_backend() != "cpu" or taps > MAX_TAPS or any(s != 1 for s in stride)
            or x.dtype not in (jnp.float32, jnp.float64) or x.shape[1] != groups
            or not all(type(d) is int for d in x.shape)):
        return lax.conv_general_dilated(x, w, stride, pads, rhs_dilation=dilation,
                                        dimension_numbers=dims, feature_group_count=groups,
                                        precision=precision)
    return _remat_taps(x, w, tuple(stride), tuple(map(tuple, pads)), tuple(dilation), groups,
                       precision)


@functools.partial(jax.checkpoint, static_argnums=(2, 3, 4, 5, 6))
def _remat_taps(x, w, stride, pads, dilation, groups, precision):
    # Rematerialised: a VJP keeps x and w, not one strided window of x per tap (an eager
    # op's residuals are real buffers, written by its forward kernel).
    return taps_conv(x, w, stride, pads, dilation, groups, precision)


def taps_conv(x, w, stride, pads, dilation, groups, precision):
    """The convolution as ``sum over taps k of window_k(x) . w[..., k]``."""
    n = x.ndim - 2
    if any(lo or hi for lo, hi in pads):  # torch's paddings are never negative
        cfg = [(0, 0, 0), (0, 0, 0)] + [(lo, hi, 0) for lo, hi in pads]
        x = lax.pad(x, jnp.zeros((), x.dtype), cfg)
    batch, c_in = x.shape[:2]
    c_out, kernel = w.shape[0], w.shape[2:]
    out_sz = [(s - d * (k - 1) - 1) // st + 1
              for s, k, d, st in zip(x.shape[2:], kernel, dilation, stride, strict=True)]
    cg, og = c_in // groups, c_out // groups
    wg = w.reshape((groups, og, cg) + tuple(kernel))
    sp = "".join("hwd"[i] for i in range(n))
    acc = None
    for tap in itertools.product(*(range(k) for k in kernel)):
        start = [0, 0] + [t * d for t, d in zip(tap, dilation, strict=True)]
        limit = [batch, c_in] + [s + (o - 1) * st + 1
                                 for s, o, st in zip(start[2:], out_sz, stride, strict=True)]
        win = lax.slice(x, start, limit, [1, 1, *stride])
        win = win.reshape((batch, groups, cg) + tuple(out_sz))
        wk = wg[(Ellipsis, *tap)]  # (groups, og, cg)
        # An einsum even when a group has one input channel: its transpose (the weight
        # gradient) is then a contraction over batch and space, not a slow reduction.
        term = jnp.einsum(f"ngc{sp},goc->ngo{sp}", win, wk, precision=precision)
        acc = term if acc is None else acc + term
    return acc.reshape((batch, c_out) + tuple(out_sz))
