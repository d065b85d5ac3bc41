"""torch.scatter_reduce: sum, prod, mean, amax and amin along a dim, with include_self.

Differences from JAX: JAX has no gradient for a scatter-multiply with repeated indices,
and its scatter-max gives ties no even split; PyTorch's formulas for both are
implemented as a ``custom_vjp`` (``_prod_or_extremum``).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import dtype_of, norm_dim
from .indexing import _grid, _nonempty, _scatter_gather_checks

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return jnp.zeros((), dtype)
    if reduce == "prod":
        return jnp.ones((), dtype)
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.array(-jnp.inf if reduce == "amax" else jnp.inf, dtype)
    info = jnp.iinfo(dtype) if dtype != jnp.bool_ else None
    if info is None:
        return jnp.array(reduce != "amax")
    return jnp.array(info.min if reduce == "amax" else info.max, dtype)


def _forward(input, index, src, d, reduce, include_self):
    """The reduction on the ``(1,)``-padded shapes; ``index`` is already a grid."""
    base = input if include_self else input.at[index].set(_identity(reduce, input.dtype))
    at = base.at[index]
    if reduce in ("sum", "mean"):
        out = at.add(src)
    elif reduce == "prod":
        out = at.multiply(src)
    elif reduce == "amax":
        out = at.max(src)
    else:
        out = at.min(src)
    if reduce != "mean":
        return out
    count = jnp.zeros(input.shape, jnp.int64).at[index].add(1) + int(include_self)
    count = jnp.maximum(count, 1)
    if jnp.issubdtype(input.dtype, jnp.integer):
        return jnp.floor_divide(out, count.astype(out.dtype))
    return out / count.astype(out.dtype)


@partial(jax.custom_vjp, nondiff_argnums=(3, 4, 5))
def _prod_or_extremum(input, index, src, d, reduce, include_self):
    return _forward(input, index, src, d, reduce, include_self)


def _fwd(input, index, src, d, reduce, include_self):
    out = _forward(input, index, src, d, reduce, include_self)
    return out, (input, index, src, out)


def _bwd(d, reduce, include_self, res, grad):
    input, index, src, out = res
    if reduce == "prod":
        g_self, g_src = _prod_grads(input, index, src, out, grad, d, include_self)
    else:
        # PyTorch splits the gradient evenly among every element equal to the result.
        self_hit = (input == out).astype(grad.dtype)
        if not include_self:
            self_hit = self_hit.at[index].set(0)
        src_hit = (src == out[index]).astype(grad.dtype)
        n = self_hit.at[index].add(src_hit)
        share = grad / jnp.where(n == 0, 1, n)
        g_self, g_src = self_hit * share, src_hit * share[index]
    if not include_self:
        g_self = g_self.at[index].set(0)
    return g_self, None, g_src


def _prod_grads(input, index, src, out, grad, d, include_self):
    """PyTorch's prod gradient: exact when an input is zero (divides only by non-zeros)."""
    masked_self = jnp.where(input == 0, 1, input)
    g_self = grad * _forward(masked_self, index, src, d, "prod", include_self) / masked_self
    src_zero = src == 0
    zeros_at = jnp.zeros(input.shape, jnp.int32).at[index].add(src_zero.astype(jnp.int32))
    single = src_zero & (zeros_at[index] == 1)
    masked_src_out = _forward(input, index, jnp.where(single, 1, src), d, "prod", include_self)
    g_src = jnp.where(single, (grad * masked_src_out)[index],
                      (grad * out)[index] / jnp.where(src_zero, 1, src))
    return g_self, g_src


_prod_or_extremum.defvjp(_fwd, _bwd)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """``input`` with ``src`` reduced into the positions ``index`` names along ``dim``."""
    d = norm_dim(dim, input.ndim)
    if reduce not in _REDUCES:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    _scatter_gather_checks(input, d, index, "scatter", src)
    if dtype_of(src) is not dtype_of(input):
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.size == 0:
        return input
    ish = _nonempty(index.shape)
    x = input.reshape(_nonempty(input.shape))
    vals = src.reshape(_nonempty(src.shape))[tuple(slice(0, n) for n in ish)]
    grid = _grid(d, index)
    if reduce in ("sum", "mean") or dtype_of(input)._kind < 2 or dtype_of(input) is D.bool:
        out = _forward(x, grid, vals, d, reduce, include_self)
    else:
        out = _prod_or_extremum(x, grid, vals, d, reduce, include_self)
    return out.reshape(input.shape)
