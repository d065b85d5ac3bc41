"""Pooling: max/avg (with torch's ceil_mode and padding rules), adaptive, unpooling.

A pooling window is a gather through a host-built table of flat spatial positions (a
constant of the compiled kernel), or, where the windows tile the input (stride = kernel,
no padding: ``MaxPool2d(2)``), a reshape; values, PyTorch's flattened ``indices`` and the
gradient (max: to the ONE index PyTorch picks, the first maximum) come from one place.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtypes as D
from ._util import dtype_of, not_implemented
from .conv import ntuple


def _spatial(input, n: int, name: str):
    if input.ndim not in (n + 1, n + 2) or any(s == 0 for s in input.shape[-n:]):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D (batch mode) tensor with "
                           f"optional 0 dim batch size for input, but got: "
                           f"{list(input.shape)}")
    return input.shape[-n:]


def _table(sizes, per_dim):
    """Flat positions of each window element: ``per_dim[i]`` is an (O_i, K_i) array of
    positions along dim i (-1 = outside); the result is (prod O, prod K) with the
    sentinel ``prod(sizes)`` for outside elements."""
    n = len(sizes)
    strides = [math.prod(sizes[i + 1:]) for i in range(n)]
    flat, valid = np.zeros((), np.int64), np.ones((), bool)
    for i, idx in enumerate(per_dim):
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = idx.shape
        v = idx.reshape(shape)
        flat = flat + np.where(v >= 0, v, 0) * strides[i]
        valid = valid & (v >= 0)
    outs = tuple(p.shape[0] for p in per_dim)
    ks = math.prod(p.shape[1] for p in per_dim)
    table = np.broadcast_to(np.where(valid, flat, math.prod(sizes)), outs + tuple(
        p.shape[1] for p in per_dim))
    return table.reshape(math.prod(outs), ks), outs


def _windows(input, n, table, fill):
    """(..., O, K) window values; ``fill`` stands for the positions outside the input."""
    lead = input.shape[:-n]
    flat = input.reshape(lead + (-1,))
    pad = jnp.full(lead + (1,), fill, input.dtype)
    return jnp.concatenate([flat, pad], axis=-1)[..., table]


def _out_size(size, k, s, p, d, ceil_mode):
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _params(name, n, sizes, kernel_size, stride, padding, dilation, ceil_mode):
    k = ntuple(kernel_size, n, "kernel_size")
    s = k if stride is None or stride == () or stride == [] else ntuple(stride, n, "stride")
    p, d = ntuple(padding, n, "padding"), ntuple(dilation, n, "dilation")
    if any(v <= 0 for v in k) or any(v <= 0 for v in s) or any(v <= 0 for v in d):
        raise RuntimeError(f"{name}: kernel_size, stride and dilation must be greater than "
                           "zero")
    for pi, ki, di in zip(p, k, d, strict=True):
        if pi < 0 or pi > (di * (ki - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pi}, kernel_size={ki} and dilation={di}")
    outs = [_out_size(*a, ceil_mode) for a in zip(sizes, k, s, p, d, strict=True)]
    if any(o < 1 for o in outs):
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, sizes))}). Calculated "
                           f"output size: ({'x'.join(map(str, outs))}). Output size is too "
                           "small")
    return k, s, p, d, outs


def _positions(size, out, k, s, p, d):
    pos = np.arange(out)[:, None] * s - p + np.arange(k)[None, :] * d
    return np.where((pos >= 0) & (pos < size), pos, -1)


def _lowest(d):
    return -jnp.inf if d._kind >= 2 else jnp.iinfo(d.np).min


def _tiles(input, n, k, outs):
    """(..., O, K) windows of a pooling whose windows tile the input (stride = kernel, no
    padding or dilation): a reshape and a transpose, no gather."""
    lead = input.shape[:-n]
    x = input[(...,) + tuple(slice(0, o * ki) for o, ki in zip(outs, k, strict=True))]
    x = x.reshape(lead + tuple(v for o, ki in zip(outs, k, strict=True) for v in (o, ki)))
    m = len(lead)
    order = (*range(m), *(m + 2 * i for i in range(n)), *(m + 2 * i + 1 for i in range(n)))
    return jnp.transpose(x, order).reshape(lead + (math.prod(outs), math.prod(k)))


def _tiled(k, s, p, d, sizes, ceil_mode) -> bool:
    return (all(pi == 0 for pi in p) and all(di == 1 for di in d) and tuple(s) == tuple(k)
            and not (ceil_mode and any(z % ki for z, ki in zip(sizes, k, strict=True))))


_UNROLL = 16  # windows up to this size pick by comparisons, not argmax (see _window_arg)


def _window_arg(win):
    """The position PyTorch's max pooling picks in each window: the first maximum, or the
    last NaN. A small window is one pass of element-wise comparisons, as PyTorch's loop
    (a 2x2 pooling's gradient: 12% less compile time, run 20-50% faster than argmax)."""
    if win.shape[-1] <= _UNROLL:
        nan = jnp.issubdtype(win.dtype, jnp.floating)
        best, arg = win[..., 0], jnp.zeros(win.shape[:-1], jnp.int32)
        for j in range(1, win.shape[-1]):
            w = win[..., j]
            take = (w > best) | jnp.isnan(w) if nan else w > best
            best, arg = jnp.where(take, w, best), jnp.where(take, j, arg)
        return arg
    arg = jnp.argmax(win, axis=-1)
    if jnp.issubdtype(win.dtype, jnp.floating):
        isnan = jnp.isnan(win)
        last = win.shape[-1] - 1 - jnp.argmax(isnan[..., ::-1], axis=-1)
        arg = jnp.where(jnp.any(isnan, axis=-1), last, arg)
    return arg


@jax.custom_jvp
def _window_max(win):
    return jnp.take_along_axis(win, _window_arg(win)[..., None], axis=-1)[..., 0]


@_window_max.defjvp
def _window_max_jvp(primals, tangents):
    # The derivative flows through the picked element only, as PyTorch's; written as a
    # masked sum so that its transpose (the gradient) is a select, not a scatter.
    (win,), (t,) = primals, tangents
    arg = _window_arg(win)
    hit = lax.broadcasted_iota(arg.dtype, win.shape, win.ndim - 1) == arg[..., None]
    out = jnp.take_along_axis(win, arg[..., None], axis=-1)[..., 0]
    return out, jnp.sum(jnp.where(hit, t, jnp.zeros((), t.dtype)), axis=-1)


def _tile_indices(arg, sizes, k, outs):
    """PyTorch's flat input positions of the picked elements of tiled windows."""
    n = len(sizes)
    o_idx = lax.broadcasted_iota(jnp.int64, (math.prod(outs),), 0)
    flat, a, o = jnp.zeros(arg.shape, jnp.int64), arg.astype(jnp.int64), o_idx
    for i in reversed(range(n)):  # the last spatial dim varies fastest, in O and in K
        # lax.div on these non-negative indices, not % and //: ONNX conversion (jax2onnx)
        # cannot lower ``rem`` on arrays with a symbolic batch dimension.
        a_next, o_next = lax.div(a, jnp.int64(k[i])), lax.div(o, jnp.int64(outs[i]))
        pos = (o - o_next * outs[i]) * k[i] + (a - a_next * k[i])
        flat = flat + pos * math.prod(sizes[i + 1:])
        a, o = a_next, o_next
    return flat


def _max_windows(input, n, name, per_dim, tiles=None):
    d = dtype_of(input)
    if d is D.bool or d._kind == 3:
        raise not_implemented(name, d)
    sizes = input.shape[-n:]
    if tiles is None:
        table, outs = _table(sizes, per_dim)
        win = _windows(input, n, table, _lowest(d))
        arg = _window_arg(win)
        indices = jnp.asarray(table)[jnp.arange(table.shape[0]), arg]
    else:
        k, outs = tiles
        win = _tiles(input, n, k, outs)
        arg = _window_arg(win)
        indices = _tile_indices(arg, sizes, k, outs)
    shape = input.shape[:-n] + tuple(outs)
    return _window_max(win).reshape(shape), indices.reshape(shape).astype(jnp.int64)


def max_pool_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode, n):
    name = f"max_pool{n}d"
    sizes = _spatial(input, n, name)
    k, s, p, d, outs = _params(name, n, sizes, kernel_size, stride, padding, dilation,
                               ceil_mode)
    per_dim = [_positions(*a) for a in zip(sizes, outs, k, s, p, d, strict=True)]
    tiles = (k, outs) if _tiled(k, s, p, d, sizes, ceil_mode) else None
    return _max_windows(input, n, name, per_dim, tiles)


def max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, n):
    """Max pooling's values alone (``F.max_pool2d`` without ``return_indices``).

    For floats in 1-d and 2-d the values are one ``lax.reduce_window``, which XLA:CPU
    compiles in about a tenth of the time of the windows-and-argmax program the indices
    need (a 64x16x8x8 input: 15 vs 140-160 ms; the digits CNN's pooling forwards cost
    ~1.2 s of its cold run). Its gradient (and forward-mode derivative) is
    ``max_pool_with_indices``' own: all of it to the first maximum of each window, or to
    its last NaN, as PyTorch's. A window whose maximum is a zero of both signs gives +0.0,
    where PyTorch gives the sign of the first.
    """
    name = f"max_pool{n}d"
    sizes = _spatial(input, n, name)
    k, s, p, d, outs = _params(name, n, sizes, kernel_size, stride, padding, dilation,
                               ceil_mode)
    dt = dtype_of(input)
    if dt is D.bool or dt._kind == 3:
        raise not_implemented(name, dt)
    per_dim = [_positions(*a) for a in zip(sizes, outs, k, s, p, d, strict=True)]
    tiles = (k, outs) if _tiled(k, s, p, d, sizes, ceil_mode) else None
    lead = input.ndim - n
    if n > 2 or dt._kind != 2:  # jax2onnx converts reduce_window to an ONNX MaxPool,
        # which takes floats alone and, past the leading dim, 3 pooled dims at most
        return _max_windows(input, n, name, per_dim, tiles)[0]

    @jax.custom_jvp
    def pool(x):
        # Right padding up to the last window PyTorch's size rule keeps (ceil_mode); at
        # least 0: floor division drops a shorter remainder.
        high = [max(0, (o - 1) * si + (ki - 1) * di + 1 - z - pi)
                for o, si, ki, di, z, pi in zip(outs, s, k, d, sizes, p, strict=True)]
        # One leading dim: jax2onnx converts this to an ONNX MaxPool over every dim, and
        # onnxruntime's takes at most three.
        flat = x.reshape((-1,) + tuple(sizes)) if lead > 1 else x
        out = lax.reduce_window(flat, jnp.asarray(_lowest(dt), x.dtype), lax.max,
                                (1,) * (flat.ndim - n) + tuple(k),
                                (1,) * (flat.ndim - n) + tuple(s),
                                ((0, 0),) * (flat.ndim - n) + tuple(zip(p, high, strict=True)),
                                window_dilation=(1,) * (flat.ndim - n) + tuple(d))
        out = out[(...,) + tuple(slice(0, o) for o in outs)]
        return out.reshape(x.shape[:lead] + tuple(outs))

    @pool.defjvp
    def _pool_jvp(primals, tangents):
        return jax.jvp(lambda x: _max_windows(x, n, name, per_dim, tiles)[0], primals,
                       tangents)

    return pool(input)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 2)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 3)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False):
    return max_pool_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode, 2)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False):
    return max_pool_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode, 3)


def _divide(total, divisor, d):
    if d._kind >= 2:
        return (total / jnp.asarray(divisor, d.np)).astype(d.np)
    divisor = jnp.broadcast_to(jnp.asarray(divisor, d.np), total.shape)
    return lax.div(total, divisor)  # C++ integer division truncates


def avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
             divisor_override, n):
    name = f"avg_pool{n}d"
    d = dtype_of(input)
    if d is not D.int64 and d._kind < 2 or d._kind == 3:
        raise not_implemented(name, d)
    sizes = _spatial(input, n, name)
    k, s, p, _, outs = _params(name, n, sizes, kernel_size, stride, padding, 1, ceil_mode)
    if _tiled(k, s, p, (1,) * n, sizes, ceil_mode):
        total = jnp.sum(_tiles(input, n, k, outs), axis=-1)
    else:
        per_dim = [_positions(*a, 1) for a in zip(sizes, outs, k, s, p, strict=True)]
        total = jnp.sum(_windows(input, n, _table(sizes, per_dim)[0], 0), axis=-1)
    if divisor_override:
        divisor = np.asarray(divisor_override)
    else:
        divisor = np.ones((), np.int64)
        for size, o, ki, si, pi in zip(sizes, outs, k, s, p, strict=True):
            start = np.arange(o) * si - pi
            end = np.minimum(start + ki, size + pi)
            count = end - start if count_include_pad else (
                np.minimum(end, size) - np.maximum(start, 0))
            divisor = np.multiply.outer(divisor, count)
        divisor = divisor.reshape(-1)
    return _divide(total, divisor, d).reshape(input.shape[:-n] + tuple(outs))


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override, 2)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override, 3)


def _adaptive_positions(size, out):
    start = (np.arange(out) * size) // out
    end = -((-(np.arange(out) + 1) * size) // out)
    k = int((end - start).max())
    pos = start[:, None] + np.arange(k)[None, :]
    return np.where(pos < end[:, None], pos, -1), end - start


def _output_size(output_size, sizes, n):
    if isinstance(output_size, int) or output_size is None:
        output_size = (output_size,) * n
    if len(output_size) != n:
        raise RuntimeError(f"adaptive pool: output_size must be {n}")
    return tuple(s if o is None else int(o) for o, s in zip(output_size, sizes, strict=True))


def adaptive_avg_pool(input, output_size, n):
    name = f"adaptive_avg_pool{n}d"
    d = dtype_of(input)
    if d._kind < 2:
        raise not_implemented(name, d)
    sizes = _spatial(input, n, name)
    outs = _output_size(output_size, sizes, n)
    pos = [_adaptive_positions(s, o) for s, o in zip(sizes, outs, strict=True)]
    table, _ = _table(sizes, [p for p, _ in pos])
    total = jnp.sum(_windows(input, n, table, 0), axis=-1)
    count = np.ones((), np.int64)
    for _, c in pos:
        count = np.multiply.outer(count, c)
    return _divide(total, count.reshape(-1), d).reshape(input.shape[:-n] + outs)


def adaptive_avg_pool2d(input, output_size):
    return adaptive_avg_pool(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    return adaptive_avg_pool(input, output_size, 3)


def adaptive_max_pool_with_indices(input, output_size, n):
    name = f"adaptive_max_pool{n}d"
    if dtype_of(input)._kind != 2:
        raise not_implemented(name if n == 2 else f"{name}_cpu", dtype_of(input))
    sizes = _spatial(input, n, name)
    outs = _output_size(output_size, sizes, n)
    per_dim = [_adaptive_positions(s, o)[0] for s, o in zip(sizes, outs, strict=True)]
    return _max_windows(input, n, name, per_dim)


def adaptive_max_pool2d_with_indices(input, output_size):
    return adaptive_max_pool_with_indices(input, output_size, 2)


def adaptive_max_pool3d_with_indices(input, output_size):
    return adaptive_max_pool_with_indices(input, output_size, 3)


def max_unpool(input, indices, output_size):
    """Scatter ``input`` into zeros of spatial ``output_size`` at the flat ``indices``."""
    if dtype_of(indices) is not D.int64:
        raise RuntimeError("elements in indices should be type int64 but got: "
                           f"{D.legacy_name(dtype_of(indices))}")
    if input.shape != indices.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    n = len(output_size)
    lead, total = input.shape[:-n], math.prod(output_size)
    flat_in = input.reshape((-1, math.prod(input.shape[-n:])))
    flat_idx = indices.reshape(flat_in.shape)
    rows = jnp.arange(flat_in.shape[0])[:, None]
    out = jnp.zeros((flat_in.shape[0], total), input.dtype).at[rows, flat_idx].set(
        flat_in, mode="drop")
    return out.reshape(lead + tuple(output_size))
