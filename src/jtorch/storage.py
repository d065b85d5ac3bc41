"""torch.storage: UntypedStorage (bytes) and TypedStorage (elements of a dtype).

Each is backed by a 1-d jtorch tensor (uint8 for untyped storage), so copies, fills,
``share_memory_`` and pickling work as on tensors.

Differences from PyTorch: ``Tensor.untyped_storage()``/``Tensor.storage()`` are not bound
here (a jtorch tensor's storage holds a JAX array of the tensor's own shape and dtype, not a
byte buffer); these classes stand alone.
"""

from __future__ import annotations

from . import _dtypes as D

__all__ = ["TypedStorage", "UntypedStorage"]


class _StorageBase:
    _dtype = D.uint8

    def __init__(self, *args, device=None, _data=None):
        import jtorch

        if _data is not None:
            self._data = _data
        elif len(args) == 1 and isinstance(args[0], int):
            self._data = jtorch.zeros(args[0], dtype=self._dtype, device=device)
        elif len(args) == 1:
            self._data = jtorch.tensor(list(args[0]), dtype=self._dtype, device=device)
        elif not args:
            self._data = jtorch.zeros(0, dtype=self._dtype, device=device)
        else:
            raise TypeError(f"{type(self).__name__}(): too many positional arguments")

    def size(self) -> int:
        return self._data.numel()

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self._data.element_size()

    def nbytes(self) -> int:
        return self._data.nbytes

    def data_ptr(self) -> int:
        return self._data.data_ptr()

    @property
    def device(self):
        return self._data.device

    def tolist(self) -> list:
        return self._data.tolist()

    def __getitem__(self, i):
        out = self._data[i]
        return out.item() if out.dim() == 0 else type(self)(_data=out.clone())

    def __setitem__(self, i, value) -> None:
        self._data[i] = value

    def fill_(self, value):
        self._data.fill_(value)
        return self

    def copy_(self, source, non_blocking=None):
        self._data.copy_(source._data)
        return self

    def clone(self):
        return type(self)(_data=self._data.clone())

    def share_memory_(self):
        self._data.share_memory_()
        return self

    def is_shared(self) -> bool:
        return self._data.is_shared()

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[{self._type_name()} of size {self.size()}]"


class UntypedStorage(_StorageBase):
    """A buffer of ``size`` bytes."""

    def _type_name(self) -> str:
        return f"torch.storage.UntypedStorage(device={self.device})"


class TypedStorage(_StorageBase):
    """A buffer of elements of one dtype (``dtype=``, default float32)."""

    def __init__(self, *args, dtype=None, device=None, _data=None):
        self._dtype = dtype or (_data.dtype if _data is not None else D.get_default_dtype())
        super().__init__(*args, device=device, _data=_data)

    @property
    def dtype(self):
        return self._dtype

    def _untyped(self) -> UntypedStorage:
        return UntypedStorage(_data=self._data.view(D.uint8) if self._data.numel() else
                              self._data.to(D.uint8))

    def untyped(self) -> UntypedStorage:
        return self._untyped()

    def _type_name(self) -> str:
        return f"torch.storage.TypedStorage(dtype={self.dtype}, device={self.device})"
