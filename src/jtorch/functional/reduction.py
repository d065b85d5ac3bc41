"""Reductions: torch's dim/keepdim conventions and result dtypes."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from ._util import cast, dtype_of, norm_dim, norm_dims, result_type


def _dims(input, dim):
    dims = norm_dims(dim, input.ndim)
    return dims if input.ndim else ()


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """torch.sum: integer and bool inputs accumulate in int64 unless ``dtype`` is given."""
    if dtype is None:
        d = dtype_of(input)
        dtype = D.int64 if d._kind < 2 else d
    return jnp.sum(cast(input, dtype), axis=_dims(input, dim), keepdims=keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    d = dtype or dtype_of(input)
    if d._kind < 2:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {D.legacy_name(d)}"
        )
    return jnp.mean(cast(input, d), axis=_dims(input, dim), keepdims=keepdim)


def _check_nonempty(input, name, dim=None):
    if input.size == 0 and (dim is None or input.shape[dim] == 0):
        raise IndexError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
            if dim is None
            else f"{name}(): Expected reduction dim {dim} to have non-zero size."
        )


@jax.custom_vjp
def _max_all(x):
    return jnp.max(x)


def _max_all_fwd(x):
    m = jnp.max(x)
    return m, (x, m)


def _max_all_bwd(res, g):
    # torch spreads the gradient of a full max evenly over all tied maxima.
    x, m = res
    ties = (x == m) | (jnp.isnan(x) & jnp.isnan(m))
    return (jnp.where(ties, g / jnp.sum(ties), 0).astype(x.dtype),)


_max_all.defvjp(_max_all_fwd, _max_all_bwd)


def max(input):
    """torch.max(input): the maximum of all elements (NaN propagates)."""
    _check_nonempty(input, "max")
    if dtype_of(input) is D.bool:
        return jnp.any(input)
    return _max_all(input) if dtype_of(input)._kind >= 2 else jnp.max(input)


def min(input):
    _check_nonempty(input, "min")
    if dtype_of(input) is D.bool:
        return jnp.all(input)
    return -_max_all(-input) if dtype_of(input)._kind >= 2 else jnp.min(input)


def max_dim(input, dim, keepdim=False):
    """torch.max(input, dim): (values, indices); the first maximal index, NaN wins."""
    return _arg_reduce(input, dim, keepdim, "max", jnp.argmax)


def min_dim(input, dim, keepdim=False):
    return _arg_reduce(input, dim, keepdim, "min", jnp.argmin)


def _arg_reduce(input, dim, keepdim, name, argfn):
    d = norm_dim(dim, input.ndim)
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    _check_nonempty(input, name, d)
    x = input
    if dtype_of(input)._kind >= 2:
        # jnp.argmax ignores NaN; torch treats NaN as the extreme value.
        nan = jnp.isnan(x)
        idx = jnp.where(jnp.any(nan, axis=d), jnp.argmax(nan, axis=d), argfn(x, axis=d))
    else:
        idx = argfn(x, axis=d)
    idx = jnp.expand_dims(idx.astype(np.int64), d)
    values = jnp.take_along_axis(input, idx, axis=d)
    if not keepdim:
        values, idx = jnp.squeeze(values, d), jnp.squeeze(idx, d)
    return values, idx


def maximum(input, other):
    dtype = result_type(input, other)
    return jnp.maximum(cast(input, dtype), cast(other, dtype))


def minimum(input, other):
    dtype = result_type(input, other)
    return jnp.minimum(cast(input, dtype), cast(other, dtype))
