"""In-place geometry: ``t_``, ``transpose_``/``swapaxes_``/``swapdims_``, ``squeeze_``,
``unsqueeze_``, ``as_strided_``, ``resize_``/``resize_as_`` (and the deprecated
out-of-place ``resize``/``resize_as``), ``fill_diagonal_``.

The geometry ops make the view, then the tensor itself takes its sizes, strides and
history (``views.become_view``): it keeps its identity, storage and base, and its version
moves on once, as in PyTorch.
"""

from __future__ import annotations

import functools
import math
import operator
import warnings

import jax.numpy as jnp

from .. import _memory_format as MF
from .. import _strides
from ..eager import views
from ..eager.bind import bound
from ..eager.storage import Storage
from ..eager.tensor import Tensor
from ..functional import shape as S

__all__ = ["as_strided_", "resize_as_"]


def _geometry(view, renumber: int = 1):
    """``x.op_(...)``: ``x`` becomes ``view(x, ...)``. PyTorch numbers the in-place
    overloads' backward after the out-of-place ones (TBackward0 -> TBackward1)."""

    def method(self, *args, **kwargs):
        views.check_inplace(self)
        out = view(self, *args, **kwargs)
        node = out._grad_fn
        if node is not None:
            base, n = node._name.rsplit("Backward", 1)
            node._name = f"{base}Backward{int(n) + renumber}"
        return views.become_view(self, out)

    return method


def _t_(self) -> Tensor:
    if self.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.dim()}D")
    return self.t()


def as_strided_(input, size, stride, storage_offset=None) -> Tensor:
    return input.as_strided_(size, stride, storage_offset)


# ------------------------------------------------------------------ resize


def _check_resizable(self) -> None:
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")


def _size_arg(sizes) -> tuple:
    if len(sizes) == 1 and isinstance(sizes[0], list | tuple):
        sizes = sizes[0]
    sizes = tuple(int(s) for s in sizes)
    if any(s < 0 for s in sizes):
        raise RuntimeError("numel: integer multiplication overflow")
    return sizes


def _resize_(self, *sizes, memory_format=None) -> Tensor:
    """Give ``self`` the sizes with contiguous (or ``memory_format``) strides over its
    storage from its offset, growing the storage when it is too small.

    Differences from PyTorch: a storage that must grow is replaced by a new one for this
    tensor only (the added elements are zeros); views and aliases made before no longer
    share memory with it.
    """
    _check_resizable(self)
    size = _size_arg(sizes)
    fmt = memory_format if memory_format not in (None, MF.preserve_format) else None
    stride = MF.strides_for(size, fmt) if fmt is not None else _strides.contiguous_strides(size)
    if size == self._shape and (fmt is None or stride == self.stride()):
        return self
    needed = self._offset + (1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
                             if math.prod(size) else 0)
    if needed <= self._storage.value.size:
        return views.become_view(self, views.as_strided(self, size, stride, self._offset))
    _grow(self, needed, size, stride)
    return self


def _grow(self, needed: int, size, stride) -> None:
    n = self._storage.value.size
    memory = views.as_strided(self, (n,), (1,), 0)._value  # the storage in memory order
    flat = jnp.concatenate([memory, jnp.zeros(needed - n, memory.dtype)])
    kw = (("size", size), ("stride", stride), ("storage_offset", self._offset))
    self._storage, self._chain = Storage(flat), ((S.as_strided, kw),)
    self._shape, self._stride, self._cache_src = size, stride, None
    self._vc.version += 1


def _resize_as_(self, the_template, memory_format=None) -> Tensor:
    return _resize_(self, the_template._shape, memory_format=memory_format)


def resize_as_(input, the_template, memory_format=None) -> Tensor:
    return _resize_as_(input, the_template, memory_format)


def _resize(self, *sizes) -> Tensor:
    """Deprecated out-of-place resize: a reshape that must keep the number of elements."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _reshape_same_numel(self, sizes)  # unpacked by the caller only, as in PyTorch


def _resize_as(self, tensor) -> Tensor:
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _reshape_same_numel(self, tensor._shape)


def _reshape_same_numel(self, size) -> Tensor:
    numel = functools.reduce(operator.mul, size, 1)
    if numel != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, size))} ({numel} elements in "
            f"total), but the given tensor has a size of {'x'.join(map(str, self._shape))} "
            f"({self.numel()} elements). autograd's resize can only change the shape of a "
            "given tensor, while preserving the number of elements. ")
    return self.contiguous().view(size)


# ------------------------------------------------------------------ fill_diagonal_


def _fill_diagonal_(self, fill_value, wrap=False) -> Tensor:
    views.check_inplace(self)
    result = bound("_fill_diagonal")(self, fill_value, wrap)
    return views.commit(self, result, internal_overlap=False)


def _attach() -> None:
    Tensor.t_ = _geometry(_t_)
    Tensor.transpose_ = Tensor.swapaxes_ = Tensor.swapdims_ = _geometry(
        lambda self, dim0, dim1: self.transpose(dim0, dim1))
    Tensor.squeeze_ = _geometry(lambda self, dim=None: self.squeeze(dim), renumber=3)
    Tensor.unsqueeze_ = _geometry(lambda self, dim: self.unsqueeze(dim))
    Tensor.as_strided_ = _geometry(
        lambda self, size, stride, storage_offset=None: views.as_strided(
            self, size, stride, storage_offset))
    Tensor.resize_, Tensor.resize_as_ = _resize_, _resize_as_
    Tensor.resize, Tensor.resize_as = _resize, _resize_as
    Tensor.fill_diagonal_ = _fill_diagonal_


_attach()
