"""Vision kernels: upsampling (torch's exact source-index math), pixel/channel shuffle,
im2col/col2im (``F.unfold``/``F.fold``).

Upsampling is separable: along each spatial dim a host-built table of source indices and
weights (constants of the kernel) is gathered and summed. The tables reproduce PyTorch's
CPU arithmetic, including its float32 index computation for nearest modes.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from ._util import dtype_of, not_implemented
from .conv import ntuple
from .pooling import _positions, _table, _windows

_CUBIC_A = -0.75
_NDIM_MODE = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _scale(in_size, out_size, scale, align_corners, np_dtype):
    """torch's area_pixel_compute_scale in the kernel's compute type."""
    f = np_dtype.type
    if align_corners:
        return f(in_size - 1) / f(out_size - 1) if out_size > 1 else f(0)
    if scale is not None and scale > 0:
        return f(1.0 / scale)
    return f(in_size) / f(out_size)


def _nearest_table(in_size, out_size, scale, exact):
    if not exact and out_size == in_size:
        return np.arange(out_size)[:, None], None
    if not exact and out_size == 2 * in_size:
        return (np.arange(out_size) >> 1)[:, None], None
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 else (
        np.float32(in_size) / np.float32(out_size))
    dst = np.arange(out_size, dtype=np.float32) + (np.float32(0.5) if exact else 0)
    src = np.floor(dst * s).astype(np.int64)
    return np.minimum(src, in_size - 1)[:, None], None


def _linear_table(in_size, out_size, scale, align_corners, np_dtype):
    s = _scale(in_size, out_size, scale, align_corners, np_dtype)
    dst = np.arange(out_size).astype(np_dtype)
    real = s * dst if align_corners else np.maximum(s * (dst + np_dtype.type(0.5)) - 0.5, 0)
    real = real.astype(np_dtype)
    i0 = real.astype(np.int64)
    lam1 = np.clip(real - i0, 0, 1).astype(np_dtype)
    i1 = i0 + (i0 < in_size - 1)
    return np.stack([i0, i1], 1), np.stack([1 - lam1, lam1], 1)


def _cubic_coefficients(t):
    a = _CUBIC_A

    def cc1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def cc2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return np.stack([cc2(t + 1), cc1(t), cc1(1 - t), cc2(2 - t)], 1)


def _cubic_table(in_size, out_size, scale, align_corners, np_dtype):
    s = _scale(in_size, out_size, scale, align_corners, np_dtype)
    dst = np.arange(out_size).astype(np_dtype)
    real = (s * dst if align_corners else s * (dst + np_dtype.type(0.5)) - 0.5).astype(np_dtype)
    i0 = np.floor(real)
    t = (real - i0).astype(np_dtype)
    idx = np.clip(i0.astype(np.int64)[:, None] + np.arange(-1, 3)[None, :], 0, in_size - 1)
    return idx, _cubic_coefficients(t).astype(np_dtype)


def _resample(x, axis, idx, weights):
    if weights is None:
        return jnp.take(x, jnp.asarray(idx[:, 0]), axis=axis)
    out = None
    shape = [1] * x.ndim
    shape[axis] = -1
    for t in range(idx.shape[1]):
        term = jnp.take(x, jnp.asarray(idx[:, t]), axis=axis) * jnp.asarray(
            weights[:, t]).reshape(shape)
        out = term if out is None else out + term
    return out


def upsample(input, output_size, scales, mode, align_corners=False):
    """torch's upsample_{nearest,nearest_exact,linear,bilinear,bicubic,trilinear} kernels.

    ``output_size`` is the spatial size; ``scales`` the user's scale factors (or None),
    whose reciprocals the index math uses, as in PyTorch.
    """
    d = dtype_of(input)
    n = len(output_size)
    nearest = mode in ("nearest", "nearest-exact")
    if not nearest and d._kind < 2 or d._kind == 3 or d is D.bool:
        raise not_implemented(f"upsample_{mode}{n}d", d)
    compute = np.dtype(np.float64 if d is D.float64 else np.float32)
    scales = scales or (None,) * n
    x = input
    for i in range(n):
        axis = input.ndim - n + i
        in_size, out_size = input.shape[axis], output_size[i]
        if nearest:
            idx, w = _nearest_table(in_size, out_size, scales[i], mode == "nearest-exact")
        elif mode == "bicubic":
            idx, w = _cubic_table(in_size, out_size, scales[i], align_corners, compute)
        else:
            idx, w = _linear_table(in_size, out_size, scales[i], align_corners, compute)
        x = _resample(x, axis, idx, w)
    return x.astype(d.np)


# ------------------------------------------------------------------ shuffles


def pixel_shuffle(input, upscale_factor):
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c}"
                           f" is not divisible by {r * r}")
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    k = len(lead)
    x = x.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, "
                           f"but got input with {input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} is not divisible by {r}"
                           if h % r else
                           f"pixel_unshuffle expects width to be divisible by "
                           f"downscale_factor, but input.size(-1)={w} is not divisible by {r}")
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    k = len(lead)
    x = x.transpose(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value "
                           f"of groups:{groups}")
    n, c = input.shape[:2]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    x = input.reshape(n, groups, c // groups, *input.shape[2:])
    return jnp.swapaxes(x, 1, 2).reshape(input.shape)


# ------------------------------------------------------------------ im2col / col2im


def _fold_params(kernel_size, dilation, padding, stride):
    return (ntuple(kernel_size, 2, "kernel_size"), ntuple(dilation, 2, "dilation"),
            ntuple(padding, 2, "padding"), ntuple(stride, 2, "stride"))


def _blocks(sizes, k, d, p, s):
    outs = [(sz + 2 * pi - (di * (ki - 1) + 1)) // si + 1
            for sz, ki, di, pi, si in zip(sizes, k, d, p, s, strict=True)]
    return outs, [_positions(sz, o, ki, si, pi, di)
                  for sz, o, ki, si, pi, di in zip(sizes, outs, k, s, p, d, strict=True)]


def im2col(input, kernel_size, dilation=1, padding=0, stride=1):
    """``F.unfold``: (N, C, H, W) -> (N, C * kh * kw, L) sliding blocks."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor for input with possible 0 "
                           f"batch size and non-zero dimensions, but got: {list(input.shape)}")
    k, d, p, s = _fold_params(kernel_size, dilation, padding, stride)
    outs, per_dim = _blocks(input.shape[-2:], k, d, p, s)
    if any(o < 1 for o in outs):
        raise RuntimeError(f"Given input with spatial size {list(input.shape[-2:])}, "
                           f"kernel_size={list(k)}, dilation={list(d)}, padding={list(p)}, "
                           f"calculated shape of the array of sliding blocks as {outs}, but "
                           "its components must be at least one.")
    table, _ = _table(input.shape[-2:], per_dim)
    win = _windows(input, 2, table, 0)  # (..., C, L, K)
    win = jnp.swapaxes(win, -1, -2)
    return win.reshape(*input.shape[:-3], -1, win.shape[-1])


def col2im(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``F.fold``: sum (N, C * kh * kw, L) blocks into (N, C, H, W)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possible 0 "
                           f"batch size and non-zero dimensions, but got: {list(input.shape)}")
    out_hw = ntuple(output_size, 2, "output_size")
    k, d, p, s = _fold_params(kernel_size, dilation, padding, stride)
    kk = k[0] * k[1]
    if input.shape[-2] % kk:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={input.shape[-2]} "
                           f"and kernel_size={tuple(k)}")
    outs, per_dim = _blocks(out_hw, k, d, p, s)
    if math.prod(outs) != input.shape[-1]:
        raise RuntimeError(f"Given output_size={tuple(out_hw)}, kernel_size={tuple(k)}, "
                           f"dilation={tuple(d)}, padding={tuple(p)}, stride={tuple(s)}, "
                           f"expected size of input's dimension 2 to match the calculated "
                           f"number of sliding blocks {outs[0]} * {outs[1]} = "
                           f"{math.prod(outs)}, but got input.size(2)={input.shape[-1]}.")
    table, _ = _table(out_hw, per_dim)  # (L, K)
    lead = input.shape[:-2]
    c = input.shape[-2] // kk
    cols = jnp.swapaxes(input.reshape(*lead, c, kk, -1), -1, -2)  # (..., C, L, K)
    total = math.prod(out_hw)
    out = jnp.zeros((*lead, c, total + 1), input.dtype).at[..., table].add(cols)
    return out[..., :total].reshape(*lead, c, *out_hw)
