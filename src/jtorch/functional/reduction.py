"""Reductions: torch's dim/keepdim conventions and result dtypes."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from ._util import dtype_of, norm_dim, norm_dims, not_implemented, promote, require_tensor
from .elementwise import to_dtype


def _dims(input, dim):
    # torch reduces over every dim when given an empty dim list, as for dim=None.
    dims = norm_dims(None if dim == () or dim == [] else dim, input.ndim)
    return dims if input.ndim else ()


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """torch.sum: integer and bool inputs accumulate in int64 unless ``dtype`` is given."""
    if dtype is None:
        d = dtype_of(input)
        dtype = D.int64 if d._kind < 2 else d
    x, axis = to_dtype(input, dtype), _dims(input, dim)
    if dtype is D.bool:  # jnp.sum would widen bools to an integer count
        return jnp.any(x, axis=axis, keepdims=keepdim)
    return jnp.sum(x, axis=axis, keepdims=keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    d = dtype or dtype_of(input)
    if d._kind < 2:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {D.legacy_name(d)}"
        )
    return jnp.mean(to_dtype(input, d), axis=_dims(input, dim), keepdims=keepdim)


def _check_nonempty(input, name, dim=None):
    if dim is None and input.size == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    if dim is not None and input.size == 0 and input.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def _check_real(input, name, dim):
    d = dtype_of(input)
    if d._kind == 3:
        if dim:
            raise RuntimeError(f"{name}(): does not support complex input")
        raise not_implemented(f"{name}_all", d)


@jax.custom_jvp
def _max_all(x):
    return jnp.max(x)


@_max_all.defjvp
def _max_all_jvp(primals, tangents):
    # torch spreads the gradient of a full max evenly over all tied maxima.
    (x,), (dx,) = primals, tangents
    m = jnp.max(x)
    ties = (x == m) | (jnp.isnan(x) & jnp.isnan(m))
    return m, jnp.sum(jnp.where(ties, dx, 0)) / jnp.sum(ties).astype(x.dtype)


def max(input):
    """torch.max(input): the maximum of all elements (NaN propagates)."""
    _check_real(input, "max", dim=False)
    _check_nonempty(input, "max")
    if dtype_of(input) is D.bool:
        return jnp.any(input)
    return _max_all(input) if dtype_of(input)._kind >= 2 else jnp.max(input)


def min(input):
    _check_real(input, "min", dim=False)
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
    _check_real(input, name, dim=True)
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


def _binary_extreme(name, jfn):
    def op(input, other):
        require_tensor(name, "input", 1, input)
        require_tensor(name, "other", 2, other)
        dtype, a, b = promote(input, other)
        if dtype._kind == 3:
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return jfn(a, b)

    op.__name__ = name
    op.__doc__ = f"torch.{name}: elementwise, in the promoted dtype; NaN propagates."
    return op


maximum = _binary_extreme("maximum", jnp.maximum)
minimum = _binary_extreme("minimum", jnp.minimum)
