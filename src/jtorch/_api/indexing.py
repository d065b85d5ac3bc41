"""Indexing functions whose result's size depends on the data, and compositions.

nonzero/argwhere/where(condition) read the data on the host (PyTorch synchronises for
them too); masked_select counts the mask on the host and gathers in a kernel (so it is
differentiable); take_along_dim is a gather of broadcast operands; index_put is the
function form of ``Tensor.index_put``.

Tensor methods set here: ``nonzero``, ``argwhere``, ``masked_select``, ``take_along_dim``.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes as D
from .. import _strides
from .._registry import REGISTRY
from ..eager.bind import bound, call
from ..eager.tensor import Tensor, wrap

__all__ = ["nonzero", "argwhere", "where", "masked_select", "take_along_dim", "index_put"]


def _write(result: Tensor, out):
    if out is None:
        return result
    from ..eager import views

    if out.shape != result.shape:
        views.resize_(out, result.shape)
    return out.copy_(result)


def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the non-zero elements: an (n, ndim) int64 tensor, or one tensor per dim."""
    host = np.asarray(input._value)
    idx = np.argwhere(host) if host.ndim else np.zeros((int(bool(host)), 0), np.int64)
    if as_tuple:
        if host.ndim == 0:
            return (wrap(_jnp(np.zeros(int(bool(host)), np.int64))),)
        return tuple(wrap(_jnp(idx[:, k].astype(np.int64))) for k in range(host.ndim))
    return _write(wrap(_jnp(idx.astype(np.int64))), out)


def _jnp(a):
    import jax.numpy as jnp

    return jnp.asarray(a)


def argwhere(input) -> Tensor:
    return nonzero(input)


def where(condition, input=None, other=None, *, out=None):
    """torch.where: ``where(cond, x, y)`` picks elementwise; ``where(cond)`` is
    ``nonzero(cond, as_tuple=True)``."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    fn = bound("where")
    return fn(condition, input, other) if out is None else fn(condition, input, other, out=out)


def masked_select(input, mask, *, out=None) -> Tensor:
    if not isinstance(mask, Tensor) or mask.dtype is not D.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    from ..functional._util import broadcast_shapes

    shape = broadcast_shapes(input.shape, mask.shape)
    count = int(np.count_nonzero(np.broadcast_to(np.asarray(mask._value), shape)))
    return call(_MASKED_SELECT, ("input", "mask"), [input, mask], (count,), out)


def take_along_dim(input, indices, dim=None, *, out=None) -> Tensor:
    """``gather`` along ``dim`` after broadcasting all other dims (flat when dim is None)."""
    if indices.dtype is not D.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{D.legacy_name(indices.dtype)}")
    gather = bound("gather")
    if dim is None:
        result = gather(input.reshape(-1), 0, indices.reshape(-1))
        return _write(result, out)
    if input.dim() != indices.dim():
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.dim()} dimensions for input, and {indices.dim()} "
            "dimensions for indices")
    d = _strides.wrap_dim(dim, input.dim())
    from ..functional._util import broadcast_shapes

    a, b = list(input.shape), list(indices.shape)
    a[d] = b[d] = 1
    shape = list(broadcast_shapes(a, b))
    x_shape, i_shape = list(shape), list(shape)
    x_shape[d], i_shape[d] = input.shape[d], indices.shape[d]
    result = gather(input.expand(x_shape), d, indices.expand(i_shape))
    return _write(result, out)


def index_put(input, indices, values, accumulate=False) -> Tensor:
    return input.index_put(indices, values, accumulate)


def _masked_select_method(self, mask):
    return masked_select(self, mask)


def _nonzero_method(self, *, as_tuple=False):
    return nonzero(self, as_tuple=as_tuple)


def _take_along_dim_method(self, indices, dim=None):
    return take_along_dim(self, indices, dim)


_MASKED_SELECT = REGISTRY["_masked_select"]
for _name, _fn in dict(nonzero=_nonzero_method, argwhere=argwhere,
                       masked_select=_masked_select_method,
                       take_along_dim=_take_along_dim_method).items():
    setattr(Tensor, _name, _fn)
