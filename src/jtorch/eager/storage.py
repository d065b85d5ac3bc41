"""Storage: the mutable cell behind every tensor, and the version counter aliases share."""

from __future__ import annotations

import itertools

_next_ptr = itertools.count(1)
_ALIGN = 1 << 20  # fake addresses: distinct storages never overlap, like an allocator arena


class Storage:
    """Holds one ``jax.Array`` (the base value). Views read and scatter through it."""

    __slots__ = ("value", "_ptr", "__weakref__")

    def __init__(self, value):
        self.value = value
        self._ptr = 0

    @property
    def ptr(self) -> int:
        if not self._ptr:
            self._ptr = next(_next_ptr) * _ALIGN * 64
        return self._ptr

    def nbytes(self) -> int:
        return self.value.size * self.value.dtype.itemsize

    def size(self) -> int:
        return self.value.size


class VersionCounter:
    """Counts in-place writes; shared by a tensor and all its aliases (``x._version``)."""

    __slots__ = ("version",)

    def __init__(self):
        self.version = 0
