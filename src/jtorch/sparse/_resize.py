"""Resizing sparse COO tensors in place: ``sparse_resize_``, ``sparse_resize_and_clear_``
and ``resize_as_sparse_`` (PyTorch's rules: a non-empty tensor keeps its numbers of sparse
and dense dims and may only grow; an empty or cleared one takes any geometry)."""

from __future__ import annotations

from ..eager.tensor import Tensor
from ._coo import SparseTensor

_ADVICE = (
    " on a non-empty sparse tensor is not supported.\nYou could try the following options:\n"
    "1. If you need an empty sparse tensor of this size, call `x = "
    "torch.sparse_coo_tensor(size)`.\n2. If you need to resize this tensor, you have the "
    "following options:\n    1. For both sparse and dense dimensions, keep the number of them "
    "constant and the size of them non-shrinking, and then try the same call again.\n    2. Or, "
    "create a new sparse tensor with the correct indices and values from this sparse tensor."
)


def _dense_only(name: str):
    def method(self, *args, **kwargs):
        raise NotImplementedError(f"Could not run 'aten::{name}' with arguments from the 'CPU' "
                                  "backend. This could be because the operator doesn't exist "
                                  "for this backend, or was omitted during the selective/custom "
                                  "build process (if using custom build).")

    method.__name__ = name
    return method


def _check_dims(size, sparse_dim, dense_dim) -> None:
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = "
                           f"{len(size)}, sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")


def _clear(self: SparseTensor, size, sparse_dim: int) -> SparseTensor:
    self._idx = self._idx.new_zeros((sparse_dim, 0))
    self._vals = self._vals.new_zeros((0, *size[sparse_dim:]))
    self._shape, self._coalesced = tuple(size), True
    self._vc.version += 1
    return self


def sparse_resize_(self, size, sparse_dim, dense_dim) -> SparseTensor:
    size = tuple(int(s) for s in size)
    _check_dims(size, sparse_dim, dense_dim)
    if not self._nnz():
        return _clear(self, size, sparse_dim)
    for what, old, new in (("sparse", self.sparse_dim(), sparse_dim),
                           ("dense", self.dense_dim(), dense_dim)):
        if old != new:
            raise RuntimeError(f"changing the number of {what} dimensions (from {old} to {new})"
                               + _ADVICE)
    n = self.sparse_dim()
    for what, old, new in (("sparse", self._shape[:n], size[:n]),
                           ("dense", self._shape[n:], size[n:])):
        if any(b < a for a, b in zip(old, new, strict=True)):
            raise RuntimeError(f"shrinking the size of {what} dimensions (from {list(old)} to "
                               f"{list(new)})" + _ADVICE)
    if size[n:] != self._shape[n:]:  # grown dense dims: the new entries are zeros
        grown = self._vals.new_zeros((self._vals.shape[0], *size[n:]))
        grown[(slice(None), *(slice(0, k) for k in self._shape[n:]))] = self._vals
        self._vals = grown
    self._shape = size
    self._vc.version += 1
    return self


def sparse_resize_and_clear_(self, size, sparse_dim, dense_dim) -> SparseTensor:
    size = tuple(int(s) for s in size)
    _check_dims(size, sparse_dim, dense_dim)
    return _clear(self, size, sparse_dim)


def resize_as_sparse_(self, the_template) -> SparseTensor:
    if not isinstance(self, SparseTensor):
        raise RuntimeError("resize_as_sparse_: expected a sparse tensor to resize, got a "
                           f"{self.layout} one")
    sparse = isinstance(the_template, SparseTensor)
    return sparse_resize_(self, the_template.shape, the_template.sparse_dim() if sparse else 0,
                          the_template.dense_dim() if sparse else the_template.dim())


def attach(namespace: dict) -> None:
    for name in ("sparse_resize_", "sparse_resize_and_clear_"):
        setattr(Tensor, name, _dense_only(name))
        setattr(SparseTensor, name, globals()[name])
    Tensor.resize_as_sparse_ = SparseTensor.resize_as_sparse_ = resize_as_sparse_
    namespace["resize_as_sparse_"] = resize_as_sparse_
