"""Reductions: torch's dim/keepdim conventions and result dtypes."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from ._util import cast, dtype_of, norm_dim, norm_dims, not_implemented, promote, require_tensor
from .elementwise import to_dtype


def _dims(input, dim):
    # torch reduces over every dim when given an empty dim list, as for dim=None.
    dims = norm_dims(None if dim == () or dim == [] else dim, input.ndim)
    return dims if input.ndim else ()


def _numel(input, axis) -> int:
    return math.prod(input.shape[a] for a in axis) if input.ndim else 1


def _acc(x):
    """torch accumulates float16/bfloat16 reductions in float32."""
    return x.astype(jnp.float32) if x.dtype in (jnp.float16, jnp.bfloat16) else x


def _int_to_long(input, dtype):
    if dtype is None:
        d = dtype_of(input)
        dtype = D.int64 if d._kind < 2 else d
    return dtype


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """torch.sum: integer and bool inputs accumulate in int64 unless ``dtype`` is given."""
    dtype = _int_to_long(input, dtype)
    x, axis = to_dtype(input, dtype), _dims(input, dim)
    if dtype is D.bool:  # jnp.sum would widen bools to an integer count
        return jnp.any(x, axis=axis, keepdims=keepdim)
    return jnp.sum(_acc(x), axis=axis, keepdims=keepdim).astype(x.dtype)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """torch.nansum: sum treating NaN as zero."""
    if dtype_of(input)._kind == 3:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    dtype = _int_to_long(input, dtype)
    x = to_dtype(input, dtype)
    if dtype._kind >= 2:
        x = _nan_to_zero(x)
    return sum(x, dim, keepdim)


@jax.custom_vjp
def _nan_to_zero(x):
    return jnp.where(jnp.isnan(x), jnp.zeros((), x.dtype), x)


def _nan_to_zero_fwd(x):
    return _nan_to_zero(x), jnp.isnan(x)


def _nan_to_zero_bwd(nan, g):
    # torch's nansum backward multiplies by the not-NaN mask (a select would drop the
    # inf * 0 = NaN that nanmean's all-NaN slices give).
    return (g * cast(~nan, dtype_of(g)),)


_nan_to_zero.defvjp(_nan_to_zero_fwd, _nan_to_zero_bwd)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    d = dtype or dtype_of(input)
    if d._kind < 2:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {D.legacy_name(d)}"
        )
    x = to_dtype(input, d)
    return jnp.mean(_acc(x), axis=_dims(input, dim), keepdims=keepdim).astype(x.dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """torch.nanmean: the mean of the non-NaN elements."""
    d = dtype_of(input)
    if d._kind < 2:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {D.legacy_name(d)}")
    count = jnp.sum(~jnp.isnan(input), axis=_dims(input, dim), keepdims=keepdim)
    total = nansum(input, dim, keepdim, dtype=dtype)
    return total / count.astype(total.dtype)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """torch.prod: over all elements or one ``dim`` (an int); integers multiply in int64."""
    if dim is not None and not isinstance(dim, int):
        raise TypeError("prod() received an invalid combination of arguments - got "
                        f"(Tensor, {type(dim).__name__})")
    dtype = _int_to_long(input, dtype)
    x = to_dtype(input, dtype)
    if dtype is D.bool:
        return jnp.all(x, axis=_dims(input, dim), keepdims=keepdim)
    return jnp.prod(_acc(x), axis=_dims(input, dim), keepdims=keepdim).astype(x.dtype)


# ------------------------------------------------------------------ max / min family


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


def evenly(select):
    """``select(x)`` (a scalar picked from x) whose gradient torch spreads evenly over every
    element equal to the result (NaN counting as equal to a NaN result):
    max(), min(), median() and nanmedian() without dim."""

    @jax.custom_jvp
    def f(x):
        return select(x)

    @f.defjvp
    def _jvp(primals, tangents):
        (x,), (dx,) = primals, tangents
        m = select(x)
        ties = (x == m) | (jnp.isnan(x) & jnp.isnan(m))
        return m, jnp.sum(jnp.where(ties, dx, 0)) / jnp.sum(ties).astype(x.dtype)

    return f


_max_all = evenly(jnp.max)


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


def _arg_index(x, d, argfn):
    if dtype_of(x)._kind >= 2:
        # jnp.argmax ignores NaN; torch treats NaN as the extreme value.
        nan = jnp.isnan(x)
        return jnp.where(jnp.any(nan, axis=d), jnp.argmax(nan, axis=d), argfn(x, axis=d))
    return argfn(x, axis=d)


def _arg_reduce(input, dim, keepdim, name, argfn):
    d = norm_dim(dim, input.ndim)
    _check_real(input, name, dim=True)
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    _check_nonempty(input, name, d)
    idx = jnp.expand_dims(_arg_index(input, d, argfn).astype(np.int64), d)
    values = jnp.take_along_axis(input, idx, axis=d)
    if not keepdim:
        values, idx = jnp.squeeze(values, d), jnp.squeeze(idx, d)
    return values, idx


def _argfn(name, jfn):
    def op(input, dim=None, keepdim=False):
        if dtype_of(input) is D.bool:
            raise RuntimeError(f"{name}(): does not support bool input")
        _check_real(input, name, dim=True)
        if dim is None:
            if input.size == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                                 "input.numel() == 0.")
            idx = _arg_index(input.reshape(-1), 0, jfn).astype(np.int64)
            return idx.reshape((1,) * input.ndim) if keepdim else idx
        d = norm_dim(dim, input.ndim)
        if input.ndim == 0:
            return jnp.zeros((), jnp.int64)
        _check_nonempty(input, name, d)
        idx = _arg_index(input, d, jfn).astype(np.int64)
        return jnp.expand_dims(idx, d) if keepdim else idx

    op.__name__ = name
    op.__doc__ = f"torch.{name}: the first extreme index (NaN counts as the extreme)."
    return op


argmax = _argfn("argmax", jnp.argmax)
argmin = _argfn("argmin", jnp.argmin)


def _extreme(name, jfn):
    def op(input, dim=(), keepdim=False):
        if dtype_of(input)._kind == 3:
            raise not_implemented(f"{name[1:]}_values_cpu", dtype_of(input))
        axis = _dims(input, dim)
        if input.size == 0:
            if not axis or dim in ((), []):
                _check_nonempty(input, name)
            for a in axis:
                _check_nonempty(input, name, a)
        if dtype_of(input) is D.bool:
            red = jnp.any if name == "amax" else jnp.all
            return red(input, axis=axis, keepdims=keepdim)
        # jnp.max/min propagate NaN and split the gradient evenly over ties, as torch does.
        return jfn(input, axis=axis, keepdims=keepdim)

    op.__name__ = name
    op.__doc__ = f"torch.{name}: NaN propagates; the gradient is shared evenly among ties."
    return op


amax = _extreme("amax", jnp.max)
amin = _extreme("amin", jnp.min)


def aminmax(input, *, dim=None, keepdim=False):
    """torch.aminmax: (min, max) over all elements or one dim."""
    if input.size == 0 and (dim is None or input.shape[norm_dim(dim, input.ndim)] == 0):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dim is not None:
        norm_dim(dim, input.ndim)
    d = () if dim is None else dim
    lo, hi = amin(input, d, keepdim), amax(input, d, keepdim)
    if dim is None and keepdim:
        lo, hi = lo.reshape((1,) * input.ndim), hi.reshape((1,) * input.ndim)
    return lo, hi


def _logical(name, jfn):
    def op(input, dim=None, keepdim=False):
        out = jfn(input != 0, axis=_dims(input, dim), keepdims=keepdim)
        return out.astype(jnp.uint8) if input.dtype == jnp.uint8 else out

    op.__name__ = name
    op.__doc__ = f"torch.{name}: bool result (uint8 for uint8 input)."
    return op


all = _logical("all", jnp.all)
any = _logical("any", jnp.any)


def count_nonzero(input, dim=None):
    return jnp.sum(input != 0, axis=_dims(input, dim)).astype(jnp.int64)


def logsumexp(input, dim, keepdim=False):
    """torch.logsumexp: stable log(sum(exp)); integer inputs compute in the default float."""
    d = dtype_of(input)
    x = to_dtype(input, D.get_default_dtype()) if d._kind < 2 else input
    axis = _dims(input, dim)
    if x.size == 0:
        return jnp.log(jnp.sum(jnp.exp(x), axis=axis, keepdims=keepdim))
    m = jax.lax.stop_gradient(jnp.max(x, axis=axis, keepdims=True))
    m = jnp.where(jnp.isinf(m), jnp.zeros((), m.dtype), m)
    out = jnp.log(jnp.sum(jnp.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdim else jnp.squeeze(out, axis)


def _extreme_vjp(jfn, lose):
    """maximum/minimum with PyTorch's gradient: split evenly on a tie, and at a NaN (where
    neither ``a == b`` nor a strict order holds) the full gradient to both inputs."""

    @jax.custom_vjp
    def f(a, b):
        return jfn(a, b)

    def fwd(a, b):
        return jfn(a, b), (a, b)

    def bwd(res, g):
        a, b = res
        half = jnp.where(a == b, g / 2, g)
        zero = jnp.zeros((), g.dtype)
        return jnp.where(lose(a, b), zero, half), jnp.where(lose(b, a), zero, half)

    f.defvjp(fwd, bwd)
    return f


def _binary_extreme(name, jfn):
    smooth = _extreme_vjp(jfn, jnp.less if name == "maximum" else jnp.greater)

    def op(input, other):
        require_tensor(name, "input", 1, input)
        require_tensor(name, "other", 2, other)
        dtype, a, b = promote(input, other)
        if dtype._kind == 3:
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        if dtype._kind != 2:
            return jfn(a, b)
        return smooth(*jnp.broadcast_arrays(a, b))  # broadcasting's VJP sums back down

    op.__name__ = name
    op.__doc__ = f"torch.{name}: elementwise, in the promoted dtype; NaN propagates."
    return op


maximum = _binary_extreme("maximum", jnp.maximum)
minimum = _binary_extreme("minimum", jnp.minimum)
