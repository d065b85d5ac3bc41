"""Convolutions (``conv1d/2d/3d`` and their transposes) on ``lax.conv_general_dilated``.

Layouts are torch's: input ``(N, C, *spatial)`` (or unbatched ``(C, *spatial)``), weight
``(C_out, C_in / groups, *kernel)``, transposed weight ``(C_in, C_out / groups, *kernel)``.
float32 convolutions run at full precision, as PyTorch's, unless TF32 is allowed.

Differences from PyTorch: a channels_last input gives a (row-major) contiguous result;
PyTorch keeps the channels_last strides (jtorch's memory-format support is pending).
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from .. import _dtypes as D
from . import _conv_taps
from ._util import dtype_of
from .products import precision


def ntuple(x, n: int, name: str = "") -> tuple[int, ...]:
    """An int or a sequence as an ``n``-tuple (torch's ``_ntuple``)."""
    if isinstance(x, int):
        return (x,) * n
    x = tuple(int(i) for i in x)
    if len(x) == 1:
        return x * n
    if len(x) != n:
        raise RuntimeError(f"expected {name or 'argument'} to be a single integer value or "
                           f"a list of {n} values to match the convolution dimensions, but "
                           f"got {name or 'argument'}={list(x)}")
    return x


def _dims(n: int):
    sp = "DHW"[-n:] if n <= 3 else None
    return ("NC" + sp, "OI" + sp, "NC" + sp)


def _precision(d):
    # Full float32 unless TF32 is allowed (torch.backends.cuda.matmul / cudnn flags).
    return precision() if d._kind >= 2 else None


def _check(name, input, weight, bias, n, transposed, groups):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    if weight.ndim != n + 2:
        raise RuntimeError(f"weight should have at least three dimensions; expected "
                           f"{n + 2}-dimensional weight for {name}, but got weight of size "
                           f"{list(weight.shape)}")
    di, dw = dtype_of(input), dtype_of(weight)
    if di is not dw or (bias is not None and dtype_of(bias) is not di):
        other = dw if di is not dw else dtype_of(bias)
        raise RuntimeError(f"Input type ({D.legacy_name(di)}) and weight/bias type "
                           f"({D.legacy_name(other)}) should be the same")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    c_in = input.shape[-n - 1]
    expect = weight.shape[0] if transposed else weight.shape[1] * groups
    if c_in != expect or (not transposed and weight.shape[0] % groups):
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {expect} channels, but got {c_in} channels instead")
    out_ch = weight.shape[1] * groups if transposed else weight.shape[0]
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_ch):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {out_ch} elements, but got bias of size "
                           f"{list(bias.shape)} instead")


def _same_padding(padding, n, stride, dilation, kernel):
    if padding == "valid":
        return ((0, 0),) * n
    if padding != "same":
        raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                         "{'valid', 'same'}")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for d, k in zip(dilation, kernel, strict=True)]
    return tuple((t // 2, t - t // 2) for t in total)


def _batched(input, n):
    return input if input.ndim == n + 2 else input[None]


def _add_bias(out, bias, n):
    return out if bias is None else out + bias.reshape((-1,) + (1,) * n).astype(out.dtype)


def convolution(input, weight, bias, stride, padding, dilation, groups, n, name):
    """``conv{n}d``: torch's output size, padding ('same', 'valid', ints), groups."""
    _check(name, input, weight, bias, n, False, groups)
    stride, dilation = ntuple(stride, n, "stride"), ntuple(dilation, n, "dilation")
    kernel = weight.shape[2:]
    if isinstance(padding, str):
        pads = _same_padding(padding, n, stride, dilation, kernel)
    else:
        pads = tuple((p, p) for p in ntuple(padding, n, "padding"))
    x = _batched(input, n)
    padded = [s + lo + hi for s, (lo, hi) in zip(x.shape[2:], pads, strict=True)]
    eff = [d * (k - 1) + 1 for d, k in zip(dilation, kernel, strict=True)]
    if any(p < e for p, e in zip(padded, eff, strict=True)):
        fmt = lambda v: " x ".join(map(str, v))  # noqa: E731
        raise RuntimeError(f"Calculated padded input size per channel: ({fmt(padded)}). "
                           f"Kernel size: ({fmt(eff)}). Kernel size can't be greater than "
                           "actual input size")
    d = dtype_of(input)
    out = _conv_taps.conv(x, weight, stride, pads, dilation, groups, _dims(n), _precision(d))
    out = _add_bias(out.astype(d.np), bias, n)
    return out if input.ndim == n + 2 else out[0]


def conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n,
                   name):
    """``conv_transpose{n}d``: the gradient of ``conv{n}d`` w.r.t. its input, as a conv with
    a dilated input and a flipped, transposed kernel."""
    _check(name, input, weight, bias, n, True, groups)
    stride, dilation = ntuple(stride, n, "stride"), ntuple(dilation, n, "dilation")
    padding = ntuple(padding, n, "padding")
    output_padding = ntuple(output_padding, n, "output_padding")
    for op, s, dl in zip(output_padding, stride, dilation, strict=True):
        if op >= s and op >= dl:
            raise RuntimeError("output padding must be smaller than either stride or "
                               "dilation, but got output_padding: "
                               f"{list(output_padding)}, stride: {list(stride)}, dilation: "
                               f"{list(dilation)}")
    kernel = weight.shape[2:]
    c_in, c_out_g = weight.shape[0], weight.shape[1]
    w = weight.reshape((groups, c_in // groups, c_out_g) + kernel)
    w = jnp.swapaxes(w, 1, 2).reshape((groups * c_out_g, c_in // groups) + kernel)
    w = jnp.flip(w, axis=tuple(range(2, n + 2)))
    pads = [(dl * (k - 1) - p, dl * (k - 1) - p + op) for dl, k, p, op
            in zip(dilation, kernel, padding, output_padding, strict=True)]
    x = _batched(input, n)
    size = [(i - 1) * s + lo + hi + 1 for i, s, (lo, hi)
            in zip(x.shape[2:], stride, pads, strict=True)]
    eff = [dl * (k - 1) + 1 for dl, k in zip(dilation, kernel, strict=True)]
    if any(sz < e for sz, e in zip(size, eff, strict=True)):
        raise RuntimeError(f"Given input size per channel: {list(x.shape[2:])}. Calculated "
                           "output size per channel is too small")
    d = dtype_of(input)
    out = lax.conv_general_dilated(
        x, w, (1,) * n, pads, lhs_dilation=stride, rhs_dilation=dilation,
        dimension_numbers=_dims(n), feature_group_count=groups, precision=_precision(d))
    out = _add_bias(out.astype(d.np), bias, n)
    return out if input.ndim == n + 2 else out[0]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return convolution(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return convolution(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return convolution(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 1, "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 2, "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 3, "conv_transpose3d")
