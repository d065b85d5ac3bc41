"""Sorting and selection: sort, argsort, msort, topk, kthvalue.

NaN sorts as the largest value (last ascending, first descending); sorts are stable, so
equal elements keep their order and the gradient of a selected value goes to the index
returned with it (values are gathered from the input by those indices).
"""

from __future__ import annotations

import jax.numpy as jnp

from ._util import dtype_of, norm_dim


def _check_sortable(input):
    if dtype_of(input)._kind == 3:
        raise RuntimeError("Sort does not support complex dtypes on CPU")


def _order(input, d, descending):
    return jnp.argsort(input, axis=d, stable=True, descending=descending).astype(jnp.int64)


def sort(input, dim=-1, descending=False, *, stable=False):
    """torch.sort: (values, indices).

    Differences from PyTorch: always stable (PyTorch's CPU sort is stable too)."""
    d = norm_dim(dim, input.ndim)
    _check_sortable(input)
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    idx = _order(input, d, descending)
    return jnp.take_along_axis(input, idx, axis=d), idx


def argsort(input, dim=-1, descending=False, *, stable=False):
    d = norm_dim(dim, input.ndim)
    _check_sortable(input)
    if input.ndim == 0:
        return jnp.zeros((), jnp.int64)
    return _order(input, d, descending)


def msort(input):
    """torch.msort: values sorted along dim 0."""
    return sort(input, 0)[0]


def topk(input, k, dim=-1, largest=True, sorted=True):
    """torch.topk: the ``k`` largest (or smallest) values and their indices.

    Differences from PyTorch: ``sorted=False`` still returns them sorted."""
    d = norm_dim(dim, input.ndim)
    _check_sortable(input)
    n = input.shape[d] if input.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    idx = jnp.take(_order(input, d, largest), jnp.arange(k), axis=d)
    return jnp.take_along_axis(input, idx, axis=d), idx


def kthvalue(input, k, dim=-1, keepdim=False):
    """torch.kthvalue: the k-th smallest value (1-based) and its index."""
    d = norm_dim(dim, input.ndim)
    _check_sortable(input)
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    idx = jnp.take(_order(input, d, False), jnp.array([k - 1]), axis=d)
    values = jnp.take_along_axis(input, idx, axis=d)
    if not keepdim:
        values, idx = jnp.squeeze(values, d), jnp.squeeze(idx, d)
    return values, idx
