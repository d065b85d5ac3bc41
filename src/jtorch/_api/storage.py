"""Storages as PyTorch programs see them: ``Tensor.untyped_storage()`` (bytes),
``Tensor.storage()`` (deprecated, typed), ``Tensor.storage_type()``, ``torch.is_storage``
and ``Tensor.set_`` (a tensor taking another's storage and geometry).

A storage object reads its tensor's storage through that tensor: sizes, addresses and the
bytes in memory order. Differences from PyTorch: storages are read-only (``fill_``,
``copy_``, ``resize_`` on a storage are not provided: write through a tensor), and a slice
of a storage is a copy.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _dtypes as D
from .._device import device_of
from ..eager import views
from ..eager.tensor import Tensor

__all__ = ["TypedStorage", "UntypedStorage", "is_storage"]


def _memory(t: Tensor) -> np.ndarray:
    """The whole storage of ``t`` as a flat array of its element type, in memory order."""
    value = t._storage.value
    layout = views._LAYOUT.get(t._storage)
    if layout is not None and value.ndim > 1:
        order = sorted(range(value.ndim), key=lambda d: -layout[d])
        return np.asarray(value).transpose(order).reshape(-1)
    return np.asarray(value).reshape(-1)


class _Placed:
    """Where a storage's data lives."""

    _tensor: Tensor

    @property
    def device(self):
        return device_of(self._tensor._storage.value)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"


class UntypedStorage(_Placed):
    """The bytes behind a tensor (``UntypedStorage(n)`` makes ``n`` zero bytes)."""

    def __init__(self, size=0, *, device=None) -> None:
        import jtorch

        self._tensor = size if isinstance(size, Tensor) else jtorch.zeros(
            int(size), dtype=jtorch.uint8, device=device)

    def _bytes(self) -> np.ndarray:
        return _memory(self._tensor).view(np.uint8)

    def nbytes(self) -> int:
        value = self._tensor._storage.value
        return value.size * value.dtype.itemsize

    size = nbytes
    __len__ = nbytes

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return self._tensor._storage.ptr if self.nbytes() else 0

    is_sparse = is_sparse_csr = False

    def __getitem__(self, index):
        data = self._bytes()[index]
        return int(data) if np.ndim(data) == 0 else _from_bytes(data)

    def tolist(self) -> list:
        return self._bytes().tolist()

    def untyped(self) -> UntypedStorage:
        return self

    def cpu(self) -> UntypedStorage:
        return self if self.device.type == "cpu" else UntypedStorage(self._tensor.cpu())

    def type(self, dtype=None, non_blocking=False) -> str:
        return "torch.storage.UntypedStorage"

    def __repr__(self) -> str:
        body = "\n".join(f" {b}" for b in self.tolist())
        sep = "\n" if body else ""
        return f"{body}{sep}[torch.storage.UntypedStorage(device={self.device}) of size " \
               f"{self.nbytes()}]"


def _from_bytes(data: np.ndarray) -> UntypedStorage:
    import jtorch

    return UntypedStorage(jtorch.tensor(np.ascontiguousarray(data), dtype=jtorch.uint8))


class TypedStorage(_Placed):
    """A tensor's storage seen as elements of its dtype (deprecated in PyTorch)."""

    def __init__(self, tensor: Tensor) -> None:
        self._tensor = tensor
        self.dtype = D.from_numpy_dtype(tensor._storage.value.dtype)

    def _untyped_storage(self) -> UntypedStorage:
        return UntypedStorage(self._tensor)

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage()

    def size(self) -> int:
        return int(self._tensor._storage.value.size)

    __len__ = size

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self.size() * self.dtype.itemsize

    def data_ptr(self) -> int:
        return self.untyped().data_ptr()

    def __getitem__(self, index):
        data = _memory(self._tensor)[index]
        return data.item() if np.ndim(data) == 0 else data.tolist()

    def tolist(self) -> list:
        return _memory(self._tensor).tolist()

    def type(self, dtype=None, non_blocking=False) -> str:
        return f"torch.{_LEGACY[self.dtype].__name__}"

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist())
        sep = "\n" if body else ""
        return f"{body}{sep}[torch.storage.TypedStorage(dtype={self.dtype}, " \
               f"device={self.device}) of size {self.size()}]"


class _LegacyStorageMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, TypedStorage) and obj.dtype is cls._dtype


_LEGACY = {d: _LegacyStorageMeta(f"{D.legacy_name(d)}Storage", (TypedStorage,),
                                 {"_dtype": d, "__module__": "jtorch"}) for d in D.ALL}


def is_storage(obj) -> bool:
    return isinstance(obj, UntypedStorage | TypedStorage)


# ------------------------------------------------------------------ Tensor methods


def _untyped_storage(self) -> UntypedStorage:
    return UntypedStorage(self)


def _storage(self) -> TypedStorage:
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                  "UntypedStorage will be the only storage class. This should only matter to "
                  "you if you are using storages directly.  To access UntypedStorage directly, "
                  "use tensor.untyped_storage() instead of tensor.storage()", UserWarning,
                  stacklevel=2)
    return TypedStorage(self)


def _storage_type(self):
    return _LEGACY[self.dtype]


def _set_(self, source=None, storage_offset=0, size=None, stride=None) -> Tensor:
    """``self`` takes ``source``'s storage and geometry (a tensor), or a window of a
    storage; with no source, an empty storage of its own. Not a view: its own version."""
    import jtorch

    views.check_inplace(self)
    if source is None:
        out = jtorch.zeros(0, dtype=self.dtype, device=self.device)
    elif isinstance(source, Tensor):
        _same_dtype(self, source.dtype)
        out = source
    elif is_storage(source):
        owner = source._tensor
        _same_dtype(self, D.from_numpy_dtype(owner._storage.value.dtype))
        n = owner._storage.value.size
        size = (n - storage_offset,) if size is None else tuple(size)
        stride = _contiguous(size) if stride is None else tuple(stride)
        out = views.as_strided(owner, size, stride, storage_offset)
    else:
        raise TypeError(f"set_(): argument 'source' must be Tensor or Storage, not "
                        f"{type(source).__name__}")
    self._storage, self._chain = out._storage, out._chain
    self._shape, self._stride, self._offset = out._shape, out._stride, out._offset
    self._cache, self._cache_src, self._base = out._cache, out._cache_src, None
    self._vc.version += 1
    return self


def _same_dtype(self, dtype) -> None:
    if dtype is not self.dtype:
        from ..eager.bind import _C_TYPE

        raise RuntimeError(f"Could not set tensor of type {_C_TYPE[dtype.name]} to a tensor of "
                           f"type {_C_TYPE[self.dtype.name]}")


def _contiguous(size) -> tuple:
    from .. import _strides

    return _strides.contiguous_strides(size)


Tensor.untyped_storage = _untyped_storage
Tensor.storage = _storage
Tensor.storage_type = _storage_type
Tensor.set_ = _set_
globals().update({cls.__name__: cls for cls in _LEGACY.values()})
__all__ += [cls.__name__ for cls in _LEGACY.values()]
