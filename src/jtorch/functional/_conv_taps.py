"""Convolution as a sum over kernel taps, for the cases where XLA:CPU's own is slow.

XLA:CPU lowers a convolution's weight gradient (a convolution over the batch) and a
convolution with one input channel per group (a first layer on grey images, depthwise
layers) to loops far slower than the matmuls they amount to: 114 ms against 47 for the
weight gradient of a 32->64 channel 3x3 layer on 64 MNIST-sized images, 3.7 ms against
0.8 for the forward of a 1->32 channel one (one thread). Written as a sum over the
kernel's taps, each tap a strided window of the (padded) input contracted with that tap's
weights, the same arithmetic runs as a few dense products. Results equal
``lax.conv_general_dilated``'s within float32 rounding (the sum runs in another order).

``conv(x, w, ...)`` is what ``functional/conv.py`` calls: on the CPU backend, for stride 1
and at most ``MAX_TAPS`` taps, it takes the forward from the taps when a group has one
input channel, and otherwise keeps XLA's forward and input gradient but routes the
weight's tangent (so its gradient, by transposition) through the taps. Everything else
(other backends, strides, half precision, symbolic shapes) is ``lax.conv_general_dilated``.
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
from jax import lax

# Kernels with more taps than this keep XLA's weight gradient: each tap is one product
# over the whole batch, and past a few dozen taps the products get too thin to win.
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
            or x.dtype not in (jnp.float32, jnp.float64)
            or not all(type(d) is int for d in x.shape)):
        return _xla(x, w, stride, pads, dilation, groups, dims, precision)
    if x.shape[1] == groups:  # one input channel per group: the taps are cheaper outright
        return _remat_taps(x, w, tuple(stride), tuple(map(tuple, pads)), tuple(dilation),
                           groups, precision)
    statics = (tuple(stride), tuple(map(tuple, pads)), tuple(dilation), groups, dims, precision)
    return _conv_tap_grad(statics, x, w)


def _xla(x, w, stride, pads, dilation, groups, dims, precision):
    return lax.conv_general_dilated(x, w, stride, pads, rhs_dilation=dilation,
                                    dimension_numbers=dims, feature_group_count=groups,
                                    precision=precision)


@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def _conv_tap_grad(statics, x, w):
    stride, pads, dilation, groups, dims, precision = statics
    return _xla(x, w, stride, pads, dilation, groups, dims, precision)


@_conv_tap_grad.defjvp
def _conv_tap_grad_jvp(statics, primals, tangents):
    stride, pads, dilation, groups, dims, precision = statics
    x, w = primals
    x_t, w_t = tangents
    out = _conv_tap_grad(statics, x, w)
    # Linear in each tangent; JAX transposes these two terms for the VJP: XLA's input
    # gradient for the first, the taps' weight gradient for the second.
    t = _xla(x_t, w, stride, pads, dilation, groups, dims, precision)
    t = t + _remat_taps(x, w_t, stride, pads, dilation, groups, precision)
    return out, t


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
