"""Sparse COO tensors: int64 ``indices`` (sparse_dim, nnz) and ``values`` (nnz, *dense_dims).

This file holds the tensor class, construction and coalescing; ``_ops.py`` the operations.

A ``SparseTensor`` is a Tensor subclass holding those two dense tensors. Every operation
is a composition of registry ops on them (gathers, ``index_add`` scatters, pointwise
ops), so autograd reaches the values and dense operands with no sparse-specific
backward. Index bookkeeping whose result decides an output's size (coalescing, merging
two patterns, finding nonzeros) runs on the host with NumPy, as PyTorch's CPU kernels do.
Dense ops never see a sparse tensor: reading its dense value raises, as PyTorch's
"Could not run ... with arguments from the 'SparseCPU' backend" does.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

import jtorch

from .. import _dtypes as D
from .. import _strides
from .._memory_format import sparse_coo
from ..eager.printing import _OPTS, _body, _printable
from ..eager.storage import VersionCounter
from ..eager.tensor import Tensor, wrap
from ._invariants import check_indices, wanted

_UNSUPPORTED = (
    "jtorch: this operation does not support sparse COO tensors (layout=torch.sparse_coo); "
    "convert with .to_dense() first"
)


class SparseTensor(Tensor):
    """A tensor with ``layout == torch.sparse_coo``; made by ``torch.sparse_coo_tensor``.

    Differences from PyTorch: ``type(t)`` is this subclass of ``torch.Tensor``; a tensor
    built from values that require grad reports the values' ``grad_fn`` (a view) instead of
    ``SparseCooTensorWithDimsAndTensorsBackward0``; the gradient of a sparse leaf is always
    sparse (PyTorch gives ``torch.mm`` a dense one).
    """

    _coalesced = False
    _own_leaf = False  # made with requires_grad=True: its values tensor is the autograd leaf

    @property
    def _value(self):
        raise NotImplementedError(_UNSUPPORTED)

    @property
    def _device(self):  # where the values live (the dense tensor's device is derived)
        return self._vals._device

    @_device.setter
    def _device(self, value) -> None:
        pass

    @property
    def device(self):
        return self._vals.device

    # ------------------------------------------------------------ metadata

    @property
    def layout(self):
        return sparse_coo

    @property
    def is_sparse(self) -> bool:
        return True

    def sparse_dim(self) -> int:
        return self._idx._shape[0]

    def dense_dim(self) -> int:
        return self._vals.dim() - 1

    def _nnz(self) -> int:
        return self._idx._shape[1]

    def is_coalesced(self) -> bool:
        return self._coalesced

    def is_contiguous(self, memory_format=None) -> bool:
        return False

    def _indices(self) -> Tensor:
        return self._idx

    def _values(self) -> Tensor:
        return self._vals

    def indices(self) -> Tensor:
        if not self._coalesced:
            raise RuntimeError(
                "Cannot get indices on an uncoalesced tensor, please call .coalesce() first"
            )
        return self._idx

    def values(self) -> Tensor:
        if not self._coalesced:
            raise RuntimeError(
                "Cannot get values on an uncoalesced tensor, please call .coalesce() first"
            )
        return self._vals

    # ------------------------------------------------------------ autograd identity

    @property
    def requires_grad(self) -> bool:
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> SparseTensor:
        if self._vals.grad_fn is not None and not self._own_leaf:
            self._vals.requires_grad_(requires_grad)  # raises PyTorch's non-leaf error
            return self
        if not self._own_leaf:
            self._vals = self._vals.detach()  # the caller's values tensor keeps its flag
        self._vals.requires_grad_(requires_grad)
        self._own_leaf = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        return None if self._own_leaf else self._vals.grad_fn

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad(self):
        if self._grad is not None or not self._own_leaf or self._vals._grad is None:
            return self._grad
        return _grad_on_pattern(self, self._vals._grad)

    @grad.setter
    def grad(self, value) -> None:
        if value is None and self._own_leaf:
            self._vals._grad = None
        self._grad = value

    def detach(self) -> SparseTensor:
        return _make(self._idx, self._vals.detach(), self._shape, self._coalesced)

    @property
    def data(self) -> SparseTensor:
        return self.detach()

    def clone(self, *, memory_format=None) -> SparseTensor:
        return _make(self._idx.clone(), self._vals.clone(), self._shape, self._coalesced)

    def __deepcopy__(self, memo):
        out = _make(self._idx.clone(), self._vals.detach().clone(), self._shape,
                    self._coalesced)
        if self._own_leaf:
            out.requires_grad_()
        memo[id(self)] = out
        return out

    # ------------------------------------------------------------ conversions

    def to(self, *args, **kwargs) -> SparseTensor:
        from ..eager.methods import _parse_to

        dev, dtype, copy = _parse_to(args, kwargs)
        if dev is not None and dev.type != "cpu":
            raise AssertionError("Torch not compiled with CUDA enabled")
        if (dtype is None or dtype is self.dtype) and not copy:
            return self
        return _make(self._idx, self._vals.to(dtype or self.dtype, copy=copy), self._shape,
                     self._coalesced)

    def coalesce(self) -> SparseTensor:
        """Sort the indices and sum the values of duplicates (PyTorch's row-major order)."""
        if self._coalesced:
            return self
        idx = _host(self._idx)
        uniq, first, inverse = np.unique(_linear(idx, self._shape[: self.sparse_dim()]),
                                         return_index=True, return_inverse=True)
        values = _scatter_rows(self._vals, _long(inverse.reshape(-1)), len(uniq))
        return _make(_long(idx[:, first]), values, self._shape, True)

    def to_dense(self, dtype=None, *, masked_grad=None) -> Tensor:
        sd = self.sparse_dim()
        lin = _long(_linear(_host(self._idx), self._shape[:sd]))
        flat = _scatter_rows(self._vals, lin, math.prod(self._shape[:sd]))
        out = flat.reshape(self._shape)
        return out if dtype is None else out.to(dtype)
    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        _check_layout(layout)
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError(
                "to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                "!=self.sparse_dim() is not supported"
            )
        return self

    # ------------------------------------------------------------ printing

    def __repr__(self, *, tensor_contents=None) -> str:
        indent = len("tensor(")
        suffixes = [] if self._device.type == "cpu" else [f"device='{self._device}'"]
        suffixes += [f"size={tuple(self._shape)}", f"nnz={self._nnz()}"]
        if self.dtype not in (D.get_default_dtype(), D.int64, D.bool, D.default_complex()):
            suffixes.append(f"dtype={self.dtype!r}")
        suffixes.append("layout=torch.sparse_coo")
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        ip, vp = "indices=tensor(", "values=tensor("
        body = (f"{ip}{_inner(self._idx, indent + len(ip))}),\n"
                f"{' ' * indent}{vp}{_inner(self._vals, indent + len(vp))})")
        return _join_suffixes("tensor(" + body, suffixes, indent)

    __str__ = __repr__


# Unary ops with f(0) == 0 act on the values of the coalesced tensor (duplicates summed
# first, since f(a) + f(b) != f(a + b)); the result is coalesced, as in PyTorch.
ZERO_PRESERVING = (
    "abs", "asin", "asinh", "atan", "atanh", "ceil", "deg2rad", "erf", "erfinv", "expm1",
    "floor", "frac", "isinf", "isnan", "isneginf", "isposinf", "log1p", "nan_to_num",
    "rad2deg", "relu", "round", "sgn", "sign", "signbit", "sin", "sinh", "sqrt", "square",
    "tan", "tanh", "trunc",
)


def _unary(name):
    def method(self, *args, **kwargs):
        c = self.coalesce()
        return _with_values(c, getattr(c._vals, name)(*args, **kwargs))

    method.__name__ = name
    return method


for _name in ZERO_PRESERVING:
    setattr(SparseTensor, _name, _unary(_name))


def _pow(self, exponent):
    if isinstance(exponent, Tensor) or not exponent > 0:
        raise RuntimeError("pow: a sparse COO tensor can only be raised to a positive scalar")
    c = self.coalesce()
    return _with_values(c, c._vals.pow(exponent))


SparseTensor.pow = SparseTensor.__pow__ = _pow
SparseTensor.__abs__ = SparseTensor.abs

for _name, _dt in (("half", D.float16), ("float", D.float32), ("double", D.float64),
                   ("bfloat16", D.bfloat16), ("long", D.int64), ("int", D.int32),
                   ("short", D.int16), ("char", D.int8), ("byte", D.uint8), ("bool", D.bool)):
    setattr(SparseTensor, _name,
            (lambda dt: lambda self, memory_format=None: self.to(dt))(_dt))


# ---------------------------------------------------------------- construction helpers


def _make(indices, values, size, coalesced=False) -> SparseTensor:
    t = object.__new__(SparseTensor)
    t._idx, t._vals = indices, values
    t._shape = tuple(size)
    t.dtype = values.dtype
    t._device = values._device
    t._vc = VersionCounter()
    t._coalesced = coalesced
    return t


def _with_values(s: SparseTensor, values) -> SparseTensor:
    return _make(s._idx, values, s._shape, s._coalesced)


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach()._value)


def _long(arr) -> Tensor:
    return wrap(jnp.asarray(np.asarray(arr, dtype=np.int64)))


def _linear(idx: np.ndarray, sizes) -> np.ndarray:
    """Row-major linear positions of COO index columns within ``sizes``."""
    strides = np.asarray(_strides.contiguous_strides(tuple(sizes)), dtype=np.int64)
    return (idx.astype(np.int64) * strides[:, None]).sum(0) if len(sizes) else np.zeros(
        idx.shape[1], np.int64)


def _scatter_rows(values: Tensor, rows: Tensor, n: int) -> Tensor:
    """An (n, *dense) tensor whose row r is the sum of ``values[i]`` with ``rows[i] == r``."""
    out = jtorch.zeros((n, *values._shape[1:]), dtype=values.dtype)
    return out.index_add(0, rows, values)


def _gather(dense: Tensor, s: SparseTensor) -> Tensor:
    """The entries of ``dense`` at the index columns of ``s``: shape (nnz, *dense_dims)."""
    sd = s.sparse_dim()
    rows = dense.reshape((math.prod(dense._shape[:sd]), *dense._shape[sd:]))
    return rows.index_select(0, _long(_linear(_host(s._idx), dense._shape[:sd])))


def _grad_on_pattern(s: SparseTensor, g: Tensor) -> SparseTensor:
    """A leaf's gradient on its coalesced pattern (duplicates share one gradient entry).

    PyTorch flags it uncoalesced although its indices are sorted and unique.
    """
    if s._coalesced:
        return _make(s._idx, g, s._shape)
    idx = _host(s._idx)
    _, first = np.unique(_linear(idx, s._shape[: s.sparse_dim()]), return_index=True)
    return _make(_long(idx[:, first]), g.index_select(0, _long(first)), s._shape)


def _check_layout(layout) -> None:
    if layout is not None and layout is not sparse_coo:
        raise RuntimeError(f"to_sparse: jtorch supports only layout=torch.sparse_coo, not "
                           f"{layout}")


def _inner(t: Tensor, indent: int) -> str:
    arr = _printable(np.asarray(t.detach()._value))
    if arr.size == 0:
        return f"[], size={tuple(arr.shape)}"
    return _body(arr, indent)


def _join_suffixes(text: str, suffixes, indent: int) -> str:
    """torch's ``_add_suffixes`` with ``force_newline`` (set for sparse tensors)."""
    parts, last, force = [text], len(text) - text.rfind("\n") + 1, True
    for suffix in suffixes:
        if force or last + len(suffix) + 2 > _OPTS["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            last, force = indent + len(suffix), False
        else:
            parts.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(parts) + ")"


# ---------------------------------------------------------------- public functions


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None,
                      is_coalesced=None) -> SparseTensor:
    """A sparse COO tensor from ``indices`` (sparse_dim, nnz) and ``values`` (nnz, ...).

    With ``check_invariants`` (or inside ``torch.sparse.check_sparse_tensor_invariants``)
    indices out of bounds raise, as PyTorch; unchecked, they make a tensor whose later
    use is undefined (PyTorch may crash; jtorch clips or drops them in JAX's kernels).
    """
    if not isinstance(indices, Tensor):
        indices = jtorch.tensor(indices)
    if indices.dtype is not D.int64:
        indices = indices.to(D.int64)
    if not isinstance(values, Tensor):
        values = jtorch.tensor(values, dtype=dtype)
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    if indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    sd, nnz = indices._shape
    if not values.dim() or values._shape[0] != nnz:
        got = values._shape[0] if values.dim() else 0
        raise RuntimeError("indices and values must have same nnz, but got nnz from indices: "
                           f"{nnz}, nnz from values: {got}")
    dense = tuple(values._shape[1:])
    if size is None:
        size = tuple(int(m) + 1 for m in _host(indices).max(1)) if nnz else (0,) * sd
        size += dense
    size = tuple(int(s) for s in size)
    if len(size) != sd + len(dense):
        raise RuntimeError(
            f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
            f"sparse_dim = {sd}, dense_dim = {len(dense)}"
        )
    if size[sd:] != dense:
        raise RuntimeError(f"values has incorrect size, expected {[nnz, *size[sd:]]}, got "
                           f"{list(values.shape)}")
    if wanted(check_invariants) and nnz:
        check_indices(_host(indices), size)
    if requires_grad:
        values = values.detach()
    elif values.requires_grad:
        values = values.view(values._shape)  # a non-leaf sharing the caller's storage
    out = _make(indices.detach(), values, size, nnz < 2 if is_coalesced is None else is_coalesced)
    if requires_grad:
        out.requires_grad_()
    return out
