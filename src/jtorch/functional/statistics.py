"""Statistics: var/std, norms, median, mode, quantiles and histograms."""

from __future__ import annotations

import builtins
from functools import partial

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import cast, dtype_of, is_scalar, norm_dim, promote
from .elementwise import to_dtype
from .reduction import _acc, _check_nonempty, _dims, _numel, evenly

# ------------------------------------------------------------------ var / std


def _correction(dim, unbiased, correction):
    if isinstance(dim, bool):  # std(x, True): the legacy ``unbiased`` overload
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _var(input, dim, unbiased, keepdim, correction):
    """(var, mean): var in the real dtype of ``input``, accumulated in float32 for halves."""
    d = dtype_of(input)
    if d._kind < 2:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dim, correction = _correction(dim, unbiased, correction)
    axis = _dims(input, dim)
    x = _acc(input)
    mu = jnp.mean(x, axis=axis, keepdims=True)
    dev = x - mu
    sq = jnp.real(dev * jnp.conj(dev)) if d._kind == 3 else dev * dev
    dof = builtins.max(_numel(input, axis) - correction, 0)
    v = jnp.sum(sq, axis=axis, keepdims=keepdim) / jnp.asarray(dof, sq.dtype)
    mu = mu if keepdim else jnp.squeeze(mu, axis)
    return v, mu.astype(input.dtype)


@jax.custom_vjp
def _sqrt0(v):
    return jnp.sqrt(v)


def _sqrt0_fwd(v):
    r = jnp.sqrt(v)
    return r, r


def _sqrt0_bwd(r, g):
    # torch's std backward masks the result's zeros: the gradient of std at a constant
    # slice is 0, not the NaN that d sqrt(v) = 1 / (2 sqrt v) gives at v = 0.
    return (jnp.where(r == 0, jnp.zeros((), r.dtype), g / (2 * r)),)


_sqrt0.defvjp(_sqrt0_fwd, _sqrt0_bwd)


def _real_of(x, input):
    return x.astype(dtype_of(input).to_real().np)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """torch.var: ``correction`` (default 1) or the legacy ``unbiased`` flag."""
    v, _ = _var(input, dim, unbiased, keepdim, correction)
    return _real_of(v, input)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """torch.std: the square root of var; its gradient is 0 where the std is 0."""
    v, _ = _var(input, dim, unbiased, keepdim, correction)
    return _real_of(_sqrt0(v), input)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    v, mu = _var(input, dim, unbiased, keepdim, correction)
    return _real_of(v, input), mu


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    v, mu = _var(input, dim, unbiased, keepdim, correction)
    return _real_of(_sqrt0(v), input), mu


# ------------------------------------------------------------------ norms


def _pnorm_value(a, p, axis, keepdim):
    if p == 0:
        return jnp.sum((a != 0).astype(a.dtype), axis=axis, keepdims=keepdim)
    if p == 1:
        return jnp.sum(a, axis=axis, keepdims=keepdim)
    if p == 2:
        return jnp.sqrt(jnp.sum(a * a, axis=axis, keepdims=keepdim))
    if p == float("inf"):
        return jnp.max(a, axis=axis, keepdims=keepdim)
    if p == -float("inf"):
        return jnp.min(a, axis=axis, keepdims=keepdim)
    return jnp.sum(a**p, axis=axis, keepdims=keepdim) ** (1.0 / p)


@partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3))
def _pnorm(x, p, axis, keepdim):
    return _pnorm_value(jnp.abs(x), p, axis, keepdim)


def _pnorm_fwd(x, p, axis, keepdim):
    n = _pnorm_value(jnp.abs(x), p, axis, keepdim)
    return n, (x, n)


def _pnorm_bwd(p, axis, keepdim, res, g):
    # torch's norm_backward: its masks give 0 where the norm is 0 (JAX's sqrt/pow rules give
    # NaN there), sgn(0) = 0 (JAX's abs has slope 1 at 0), and the inf-norm's gradient is
    # spread evenly over ties.
    x, n = res
    a = jnp.abs(x)
    if not keepdim:
        g, n = jnp.expand_dims(g, axis), jnp.expand_dims(n, axis)
    zero = jnp.zeros((), a.dtype)
    if p == 0:
        return (jnp.zeros_like(x),)
    if p == 1:
        ga = jnp.broadcast_to(g, a.shape)
    elif p in (float("inf"), -float("inf")):
        mask = cast((a == n) | jnp.isnan(a), dtype_of(a))
        ga = g / jnp.sum(mask, axis=axis, keepdims=True) * mask
    elif p < 1:
        ga = jnp.where(a == 0, zero, a ** (p - 1)) * g * n ** (1 - p)
    else:
        ga = a ** (p - 1) * jnp.where(n == 0, zero, g / n ** (p - 1))
    sgn = jnp.where(a == 0, jnp.zeros((), x.dtype), x / jnp.where(a == 0, 1, a).astype(x.dtype))
    # JAX's cotangent for a complex input is the conjugate of PyTorch's gradient.
    return ((jnp.conj(sgn) * ga).astype(x.dtype),)


_pnorm.defvjp(_pnorm_fwd, _pnorm_bwd)


def _vector_norm(x, p, dim, keepdim, dtype):
    d = dtype_of(x)
    if d._kind < 2:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {D.legacy_name(d)}")
    if dtype is not None:
        x = to_dtype(x, dtype)
    axis = _dims(x, dim)
    return _pnorm(x, float(p), axis, bool(keepdim))


def _nuclear(x, dim, keepdim):
    if x.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " + str(list(dim)))
    d0, d1 = norm_dim(dim[0], x.ndim), norm_dim(dim[1], x.ndim)
    m = jnp.moveaxis(x, (d0, d1), (-2, -1))
    out = jnp.sum(jnp.linalg.svd(m, compute_uv=False), axis=-1)
    if keepdim:
        out = jnp.expand_dims(out, tuple(sorted((d0, d1))))
    return out


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm: a vector norm for numeric ``p`` and 'fro'; 'nuc' is the nuclear norm.

    Differences from PyTorch: ``out`` is keyword-only (PyTorch also takes it fifth)."""
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(p, str):
        if p == "fro" and (dim is None or len(dim) <= 2):
            return _vector_norm(input, 2, dim, keepdim, dtype)
        if p != "nuc":
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        x = input if dtype is None else to_dtype(input, dtype)
        return _nuclear(x, tuple(range(input.ndim)) if dim is None else dim, keepdim)
    return _vector_norm(input, 2 if p is None else p, dim, keepdim, dtype)


def dist(input, other, p=2):
    """torch.dist: the p-norm of ``input - other`` (broadcast, promoted)."""
    _, a, b = promote(input, other)
    return _vector_norm(a - b, p, None, False, None)


# ------------------------------------------------------------------ median / mode


def _sorted_nan_last(x, axis):
    order = jnp.argsort(x, axis=axis, stable=True)
    return order, jnp.take_along_axis(x, order, axis=axis)


def _median_all(ignore_nan):
    def select(x):
        flat = jnp.sort(x.reshape(-1))
        n = flat.shape[0]
        if not jnp.issubdtype(x.dtype, jnp.floating):
            return flat[(n - 1) // 2]
        nans = jnp.sum(jnp.isnan(flat))
        if ignore_nan:
            return jnp.take(flat, jnp.maximum((n - nans - 1) // 2, 0))
        return jnp.where(nans > 0, jnp.asarray(jnp.nan, x.dtype), flat[(n - 1) // 2])

    return evenly(select)


_MEDIAN_ALL = {False: _median_all(False), True: _median_all(True)}


def _median(input, ignore_nan):
    if dtype_of(input)._kind == 3:
        raise RuntimeError("median() does not support complex input")
    if input.size == 0:
        return jnp.asarray(jnp.nan, input.dtype)
    return _MEDIAN_ALL[ignore_nan](input)


def median(input):
    """torch.median(input): the lower of the two middle values; NaN if any element is NaN."""
    return _median(input, False)


def nanmedian(input):
    """torch.nanmedian(input): the lower middle of the non-NaN values."""
    return _median(input, True)


def _median_dim(input, dim, keepdim, ignore_nan, name):
    d = norm_dim(dim, input.ndim)
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    _check_nonempty(input, name, d)
    order, s = _sorted_nan_last(input, d)
    n = input.shape[d]
    nans = jnp.sum(jnp.isnan(input), axis=d, keepdims=True) if jnp.issubdtype(
        input.dtype, jnp.floating) else jnp.zeros((), jnp.int64)
    if ignore_nan:
        k = jnp.maximum((n - nans - 1) // 2, 0)
    else:  # the first NaN (stable sort keeps NaNs in their original order)
        k = jnp.where(nans > 0, n - nans, (n - 1) // 2)
    k = jnp.broadcast_to(k, input.shape[:d] + (1,) + input.shape[d + 1:])
    idx = jnp.take_along_axis(order, k, axis=d).astype(jnp.int64)
    values = jnp.take_along_axis(input, idx, axis=d)
    if not keepdim:
        values, idx = jnp.squeeze(values, d), jnp.squeeze(idx, d)
    return values, idx


def median_dim(input, dim=-1, keepdim=False):
    """torch.median(input, dim): (values, indices); the gradient goes to the returned index."""
    return _median_dim(input, dim, keepdim, False, "median")


def nanmedian_dim(input, dim=-1, keepdim=False):
    return _median_dim(input, dim, keepdim, True, "nanmedian")


def mode(input, dim=-1, keepdim=False):
    """torch.mode: the smallest most frequent value and the last index where it occurs."""
    d = norm_dim(dim, input.ndim)
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    _check_nonempty(input, "mode", d)
    order, s = _sorted_nan_last(input, d)
    pos = jnp.arange(s.shape[d]).reshape((-1,) + (1,) * (input.ndim - d - 1))
    first = jnp.concatenate([jnp.ones_like(jnp.take(s, jnp.array([0]), axis=d), bool),
                             jnp.take(s, jnp.arange(1, s.shape[d]), axis=d)
                             != jnp.take(s, jnp.arange(s.shape[d] - 1), axis=d)], axis=d)
    start = jax.lax.cummax(jnp.where(first, pos, 0), axis=d)
    best = jnp.expand_dims(jnp.argmax(pos - start, axis=d), d)
    idx = jnp.take_along_axis(order, best, axis=d).astype(jnp.int64)
    values = jnp.take_along_axis(input, idx, axis=d)
    if not keepdim:
        values, idx = jnp.squeeze(values, d), jnp.squeeze(idx, d)
    return values, idx


# ------------------------------------------------------------------ quantiles

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_quantile(input, q, interpolation, name):
    if input.dtype not in (jnp.float32, jnp.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if input.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if not is_scalar(q):
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype and not getattr(q, "weak_type", False):
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    elif not 0 <= q <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")


def _lerp(a, b, w):
    return jnp.where(w < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    _check_quantile(input, q, interpolation, name)
    x = input.reshape(-1) if dim is None else jnp.moveaxis(input, norm_dim(dim, input.ndim), -1)
    s = jnp.sort(x, axis=-1)
    qv = jnp.asarray(q, input.dtype).reshape(-1)
    n = s.shape[-1]
    nan = jnp.isnan(s)
    if ignore_nan:
        ranks = qv * (jnp.sum(~nan, axis=-1, keepdims=True) - 1).astype(s.dtype)
        ranks = jnp.maximum(ranks, 0)
    else:
        ranks = jnp.where(jnp.any(nan, axis=-1, keepdims=True), n - 1, qv * (n - 1))
    ranks = jnp.broadcast_to(ranks, s.shape[:-1] + qv.shape).astype(s.dtype)
    ranks = {"lower": jnp.floor, "higher": jnp.ceil, "nearest": jnp.round}.get(
        interpolation, lambda r: r)(ranks)
    below = ranks.astype(jnp.int64)
    out = jnp.take_along_axis(s, below, axis=-1)
    if interpolation in ("linear", "midpoint"):
        above = jnp.take_along_axis(s, jnp.ceil(ranks).astype(jnp.int64), axis=-1)
        w = jnp.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        out = _lerp(out, above, w)
    out = jnp.moveaxis(out, -1, 0)  # (q, *kept dims)
    if keepdim:  # the reduced dims come back as size 1
        out = (out.reshape((-1,) + (1,) * input.ndim) if dim is None
               else jnp.expand_dims(out, 1 + norm_dim(dim, input.ndim)))
    return out[0] if is_scalar(q) or q.ndim == 0 else out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """torch.quantile: q a number or a 0-/1-D tensor (a 1-D q adds a leading dim)."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """torch.nanquantile: quantiles of the non-NaN values."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


# ------------------------------------------------------------------ histograms


def histc(input, bins=100, min=0, max=0):
    """torch.histc: ``bins`` equal bins over [min, max] (the data's range when min == max);
    elements outside are ignored, the last bin is closed."""
    if dtype_of(input)._kind != 2:
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{D.legacy_name(dtype_of(input))}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = input.reshape(-1)
    acc = x.dtype if x.dtype == jnp.float64 else jnp.float32
    lo, hi = jnp.asarray(min, acc), jnp.asarray(max, acc)
    if min == max and x.size:
        lo, hi = jnp.min(x).astype(acc), jnp.max(x).astype(acc)
        same = lo == hi
        lo, hi = jnp.where(same, lo - 1, lo), jnp.where(same, hi + 1, hi)
    elif min == max:
        lo, hi = lo - 1, hi + 1
    xf = x.astype(acc)
    pos = jnp.floor((xf - lo) * bins / (hi - lo)).astype(jnp.int64)
    edges = lo + (hi - lo) * jnp.arange(bins + 1, dtype=acc) / bins
    inner = jnp.clip(pos, 0, bins - 1)
    pos = jnp.where(xf < edges[inner], inner - 1, jnp.where(xf >= edges[inner + 1], inner + 1,
                                                            inner))
    pos = jnp.where(xf == hi, bins - 1, pos)
    keep = (xf >= lo) & (xf <= hi)
    counts = jnp.zeros(bins, acc).at[jnp.where(keep, pos, bins)].add(1, mode="drop")
    return counts.astype(input.dtype)

