"""Sparse COO operations: conversions, arithmetic, products and reductions.

Each is a composition of registry ops on a sparse tensor's indices and values (see
``_coo.py``), so gradients reach the values and any dense operand. They are also set
as the ``SparseTensor`` methods at the bottom of this file.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

import jtorch

from .. import _dtypes as D
from .. import _strides
from ..eager.tensor import Tensor, wrap
from ._coo import (
    SparseTensor,
    _check_layout,
    _gather,
    _host,
    _linear,
    _long,
    _make,
    _scatter_rows,
    _with_values,
)


def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """``Tensor.to_sparse``: the nonzero entries (over the trailing dense dims) of ``self``."""
    _check_layout(layout)
    sd = self.dim() if sparse_dim is None else int(sparse_dim)
    if not 0 < sd <= self.dim():
        raise RuntimeError(f"sparse_dim must be in [1, {self.dim()}], but got {sd}")
    arr = np.asarray(self.detach()._value)
    nonzero = (arr != 0).reshape((*arr.shape[:sd], -1)).any(-1) if arr.size else (
        np.zeros(arr.shape[:sd], bool))
    idx = _long(np.stack(np.nonzero(nonzero)).reshape(sd, -1))
    pattern = _make(idx, wrap(jnp.zeros((idx._shape[1], *arr.shape[sd:]), arr.dtype)),
                    self._shape, True)
    return _make(idx, _gather(self, pattern), self._shape, True)


def sparse_mask(self, mask: SparseTensor) -> SparseTensor:
    """``Tensor.sparse_mask``: ``self``'s entries at ``mask``'s (raw) index pattern."""
    if not isinstance(mask, SparseTensor):
        raise RuntimeError("sparse_mask expects mask to be sparse")
    if tuple(self._shape) != tuple(mask._shape):
        raise RuntimeError(
            f"sparse_mask(): operands have incompatible sizes; self has size "
            f"{list(self.shape)} but mask has size {list(mask.shape)}"
        )
    return _make(mask._idx, _gather(self, mask), mask._shape, mask._coalesced)


def _merge(a: SparseTensor, b: SparseTensor, bvals: Tensor, dtype) -> SparseTensor:
    """PyTorch's merge of two index lists walked in order (equal columns are summed)."""
    la = _linear(_host(a._idx), a._shape[: a.sparse_dim()])
    lb = _linear(_host(b._idx), b._shape[: b.sparse_dim()])
    pos_a, pos_b, cols = np.empty(len(la), np.int64), np.empty(len(lb), np.int64), []
    i = j = 0
    while i < len(la) or j < len(lb):
        if i >= len(la) or j >= len(lb):
            cmp = 1 if i >= len(la) else -1
        else:
            cmp = int(la[i] > lb[j]) - int(la[i] < lb[j])
        if cmp <= 0:  # the next column of a comes first (or both are equal)
            pos_a[i] = len(cols)
            cols.append(("a", i))
            i += 1
        if cmp >= 0:
            pos_b[j] = len(cols) - (cmp == 0)
            if cmp > 0:
                cols.append(("b", j))
            j += 1
    ia, ib = _host(a._idx), _host(b._idx)
    idx = np.stack([ia[:, k] if src == "a" else ib[:, k] for src, k in cols], 1)
    values = _scatter_rows(a._vals.to(dtype), _long(pos_a), len(cols))
    values = values.index_add(0, _long(pos_b), bvals)
    return _make(_long(idx), values, a._shape, a._coalesced and b._coalesced)


def add(input, other, *, alpha=1, out=None):
    """``torch.add`` with a sparse operand: sparse + sparse is sparse, dense + sparse dense."""
    if out is not None:
        raise RuntimeError("add(): out= is not supported with sparse COO operands in jtorch")
    if not isinstance(input, SparseTensor):
        if not isinstance(input, Tensor):
            raise TypeError("add(): a sparse operand needs a tensor on the left")
        return jtorch.add(input, other.to_dense(), alpha=alpha)
    if not isinstance(other, SparseTensor):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if input._shape != other._shape:
        raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but "
                           f"{list(input.shape)} != {list(other.shape)}")
    if input.sparse_dim() != other.sparse_dim():
        raise RuntimeError("add: expected 'self' and 'other' to have same sparse dimensions")
    dtype = D.promote_types(input.dtype, other.dtype)
    bvals = other._vals.to(dtype)
    if alpha != 1:
        bvals = bvals * alpha
    if not other._nnz():
        return _make(input._idx, input._vals.to(dtype), input._shape, input._coalesced)
    if not input._nnz():
        return _make(other._idx, bvals, other._shape, other._coalesced)
    return _merge(input, other, bvals, dtype)


def sub(input, other, *, alpha=1, out=None):
    return add(input, other, alpha=-alpha, out=out)


def mul(input, other, *, out=None):
    """Sparse times a scalar, a 0-d tensor or a dense tensor of the same shape: sparse."""
    if out is not None:
        raise RuntimeError("mul(): out= is not supported with sparse COO operands in jtorch")
    if not isinstance(input, SparseTensor):
        input, other = other, input
    if isinstance(other, SparseTensor):
        raise NotImplementedError("jtorch: mul of two sparse COO tensors is not supported; "
                                  "multiply by a scalar or a dense tensor")
    if isinstance(other, Tensor) and other.dim():
        if other._shape != input._shape:
            raise RuntimeError(f"mul: expected sizes of 'self' and 'other' to match, but "
                               f"{list(input.shape)} != {list(other.shape)}")
        return _with_values(input, input._vals * _gather(other, input))
    return _with_values(input, input._vals * other)


def div(input, other, *, rounding_mode=None, out=None):
    if out is not None or not isinstance(input, SparseTensor) or isinstance(other, Tensor) and (
            other.dim() or isinstance(other, SparseTensor)):
        raise RuntimeError("div(): a sparse COO tensor can only be divided by a scalar")
    return _with_values(input, jtorch.div(input._vals, other, rounding_mode=rounding_mode))


def _check_mm(s: SparseTensor, dense: Tensor) -> None:
    if dense.dim() < 2:
        _strides.wrap_dim(1, dense.dim())  # PyTorch reads size(1) first: IndexError
    if s.sparse_dim() != 2 or s.dense_dim() or dense.dim() != 2:
        got = dense.dim() if s.sparse_dim() == 2 and not s.dense_dim() else s.dim()
        raise RuntimeError(f"addmm: matrices expected, got {got}D tensor")
    if s._shape[1] != dense._shape[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s._shape[1]}, "
                           f"got {dense._shape[0]}")
    if s.dtype is not dense.dtype:
        raise RuntimeError(f"expected scalar type {D.legacy_name(s.dtype)} but found "
                           f"{D.legacy_name(dense.dtype)}")


def mm(input, mat2, *, out=None):
    """``torch.mm`` / ``torch.sparse.mm`` / ``torch.spmm`` with sparse operand(s).

    sparse @ dense and dense @ sparse are dense; sparse @ sparse is sparse (PyTorch's
    structural pattern: every (i, j) some stored (i, k), (k, j) pair reaches).
    """
    if out is not None:
        raise RuntimeError("mm(): out= is not supported with sparse COO operands in jtorch")
    if isinstance(input, SparseTensor) and isinstance(mat2, SparseTensor):
        return _sparse_sparse_mm(input, mat2)
    if not isinstance(input, SparseTensor):
        return mm(t(mat2), input.t()).t().contiguous()
    _check_mm(input, mat2)
    rows, cols = input._idx[0], input._idx[1]
    contrib = input._vals.unsqueeze(1) * mat2.index_select(0, cols)
    return _scatter_rows(contrib, rows, input._shape[0])


def matmul(input, other, *, out=None):
    """``torch.matmul`` / ``@`` with a sparse operand: ``mm``, with a dense vector operand
    taken as a one-column (or one-row) matrix and that dim dropped from the result."""
    sparse_in, sparse_other = isinstance(input, SparseTensor), isinstance(other, SparseTensor)
    if sparse_in and not sparse_other and other.dim() == 1:
        return mm(input, other.unsqueeze(1), out=out).squeeze(1)
    if sparse_other and not sparse_in and input.dim() == 1:
        return mm(input.unsqueeze(0), other, out=out).squeeze(0)
    return mm(input, other, out=out)


def _sparse_sparse_mm(a: SparseTensor, b: SparseTensor) -> SparseTensor:
    _check_mm(a, b)
    ia, ib = _host(a._idx), _host(b._idx)
    pa = np.zeros(a._shape, bool)
    pb = np.zeros(b._shape, bool)
    pa[ia[0], ia[1]] = True
    pb[ib[0], ib[1]] = True
    pattern = (pa.astype(np.int64) @ pb.astype(np.int64)) > 0
    idx = _long(np.stack(np.nonzero(pattern)).reshape(2, -1))
    shape = (a._shape[0], b._shape[1])
    dense = mm(a, b.to_dense())
    holder = _make(idx, dense.new_zeros((idx._shape[1],)), shape, True)
    return _make(idx, _gather(dense, holder), shape, True)


def sparse_sum(input, dim=None, dtype=None):
    """``torch.sparse.sum``: all dims give a dense scalar; some sparse dims left, sparse."""
    if not isinstance(input, SparseTensor):
        return input.sum(dtype=dtype) if dim is None else input.sum(dim, dtype=dtype)
    values = input._vals if dtype is None else input._vals.to(dtype)
    if dim is None:
        return values.sum()
    n, sd = input.dim(), input.sparse_dim()
    dims = sorted({_strides.wrap_dim(d, n) for d in ((dim,) if isinstance(dim, int) else dim)})
    dense_dims = [d - sd + 1 for d in dims if d >= sd]
    if dense_dims:
        values = values.sum(dense_dims)
    keep = [d for d in range(sd) if d not in dims]
    if not keep:
        return values.sum(0)
    idx = input._idx.index_select(0, _long(keep))
    shape = tuple(s for d, s in enumerate(input._shape) if d not in dims)
    return _make(idx, values, shape, False).coalesce()


def transpose(input, dim0, dim1) -> SparseTensor:
    n, sd = input.dim(), input.sparse_dim()
    d0, d1 = _strides.wrap_dim(dim0, n), _strides.wrap_dim(dim1, n)
    shape = list(input._shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    if d0 == d1:
        return input
    if d0 < sd and d1 < sd:
        perm = list(range(sd))
        perm[d0], perm[d1] = d1, d0
        return _make(input._idx.index_select(0, _long(perm)), input._vals, shape, False)
    raise RuntimeError(f"sparse transpose: transposed dimensions must be sparse Got sparse_dim: "
                       f"{sd}, d0: {d0}, d1: {d1}")


def t(input) -> SparseTensor:
    if input.sparse_dim() > 2 or input.dense_dim():
        raise RuntimeError(
            f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but self is "
            f"{input.sparse_dim()} sparse and {input.dense_dim()} dense dimensions"
        )
    return input if input.dim() < 2 else transpose(input, 0, 1)


# ---------------------------------------------------------------- SparseTensor methods


def _sum_method(self, dim=None, keepdim=False, *, dtype=None):
    if keepdim:
        raise RuntimeError("sum(): keepdim=True is not supported for sparse COO tensors")
    return sparse_sum(self, dim, dtype=dtype)


def _neg(self) -> SparseTensor:
    return _with_values(self, self._vals.neg())


_METHODS = {
    "add": lambda self, other, *, alpha=1, out=None: add(self, other, alpha=alpha, out=out),
    "sub": lambda self, other, *, alpha=1, out=None: sub(self, other, alpha=alpha, out=out),
    "mul": lambda self, other, *, out=None: mul(self, other, out=out),
    "div": lambda self, other, *, rounding_mode=None, out=None: div(
        self, other, rounding_mode=rounding_mode, out=out),
    "neg": _neg, "__neg__": _neg,
    "__add__": lambda self, other: add(self, other),
    "__radd__": lambda self, other: add(other, self),
    "__sub__": lambda self, other: sub(self, other),
    "__rsub__": lambda self, other: sub(other, self),
    "__mul__": lambda self, other: mul(self, other),
    "__rmul__": lambda self, other: mul(self, other),
    "__truediv__": lambda self, other: div(self, other),
    "mm": lambda self, mat2: mm(self, mat2),
    "matmul": lambda self, other: matmul(self, other),
    "__matmul__": lambda self, other: matmul(self, other),
    "__rmatmul__": lambda self, other: matmul(other, self),
    "sum": _sum_method,
    "transpose": lambda self, dim0, dim1: transpose(self, dim0, dim1),
    "t": lambda self: t(self),
}
for _name, _fn in _METHODS.items():
    setattr(SparseTensor, _name, _fn)
