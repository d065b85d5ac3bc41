"""Reductions whose result's size depends on the data, computed on the host.

unique/unique_consecutive/bincount read the data on the host (PyTorch synchronises for
them too) and return fresh tensors with no autograd history; histc runs a kernel on the
detached input (its bin count is static), since PyTorch's histc is not differentiable.

Tensor methods set here: ``unique``, ``unique_consecutive``, ``bincount``, ``histc``.
"""

from __future__ import annotations

import numpy as np

from .._kernels import device_array
from ..eager.bind import bound
from ..eager.tensor import Tensor, wrap

__all__ = ["unique", "unique_consecutive", "bincount", "histc"]


def _host(x: Tensor) -> np.ndarray:
    return np.asarray(x._value)


def _wrap(a, like: np.ndarray | None = None) -> Tensor:
    return wrap(device_array(a, None if like is None else like.dtype))


def _results(values, inverse, counts, return_inverse, return_counts):
    out = [values]
    if return_inverse:
        out.append(_wrap(np.asarray(inverse, np.int64)))
    if return_counts:
        out.append(_wrap(np.asarray(counts, np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique: the distinct elements (or slices along ``dim``), in ascending order.

    NaNs are all distinct, as in PyTorch. Differences from PyTorch: ``sorted=False`` also
    sorts (PyTorch's CPU kernel does the same)."""
    host = _host(input)
    if dim is None:
        flat = host.reshape(-1)
        vals, inv, cnt = np.unique(flat, return_inverse=True, return_counts=True,
                                   equal_nan=False)
        inv = inv.reshape(host.shape)
    else:
        d = _wrap_dim(dim, host.ndim)
        if host.shape[d] == 0:
            vals, inv, cnt = host, np.zeros(0, np.int64), np.zeros(0, np.int64)
        else:
            vals, inv, cnt = np.unique(host, axis=d, return_inverse=True, return_counts=True)
        inv = inv.reshape(-1)
    return _results(_wrap(vals, host), inv, cnt, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """torch.unique_consecutive: collapse runs of equal elements (or slices along ``dim``)."""
    host = _host(input)
    if dim is None:
        x, d = host.reshape(-1), 0
    else:
        x, d = host, _wrap_dim(dim, host.ndim)
    n = x.shape[d]
    moved = np.moveaxis(x, d, 0).reshape(n, -1)
    starts = np.ones(n, bool)
    starts[1:] = (moved[1:] != moved[:-1]).any(axis=1) if moved.shape[1] else False
    inv = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    cnt = np.diff(np.append(first, n))
    vals = np.take(x, first, axis=d)
    inv = inv.reshape(host.shape) if dim is None else inv
    return _results(_wrap(vals, host), inv, cnt, return_inverse, return_counts)


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def bincount(input, weights=None, minlength=0):
    """torch.bincount: occurrences of each value of a 1-D non-negative integer tensor.

    Differences from PyTorch: the result has no autograd history even when ``weights``
    requires grad (PyTorch records a node whose backward is not implemented)."""
    if input.dtype._kind != 1:
        from .. import _dtypes as D

        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{D.legacy_name(input.dtype)}'")
    host = _host(input)
    if host.ndim != 1 or (host.size and host.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _wrap(np.bincount(host, minlength=minlength).astype(np.int64))
    w = _host(weights)
    if w.ndim != 1 or w.shape[0] != host.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = np.float32 if w.dtype == np.float32 else np.float64
    return _wrap(np.bincount(host, w.astype(np.float64), minlength).astype(dtype))


def histc(input, bins=100, min=0, max=0, *, out=None):
    """torch.histc: a histogram of ``bins`` equal bins over [min, max] (the data's range
    when min == max); not differentiable, as in PyTorch."""
    if out is None:
        return bound("_histc")(input.detach(), bins, min, max)
    return bound("_histc")(input.detach(), bins, min, max, out=out)


Tensor.unique = unique
Tensor.unique_consecutive = unique_consecutive
Tensor.bincount = bincount
Tensor.histc = histc
