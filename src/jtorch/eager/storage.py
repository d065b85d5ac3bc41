"""Storage: the mutable cell behind every tensor, and the version counter aliases share."""

from __future__ import annotations

import itertools

_next_ptr = itertools.count(1)
_ALIGN = 1 << 20  # fake addresses: distinct storages never overlap, like an allocator arena


class Storage:
    """Holds one ``jax.Array`` (the base value). Views read and scatter through it."""

    __slots__ = ("value", "_ptr", "__weakref__")

    def __init__(self, value):
        self.value = value  # ``_ptr`` is set when first asked for: most storages never are

    @property
    def ptr(self) -> int:
        try:
            return self._ptr
        except AttributeError:
            self._ptr = ptr = next(_next_ptr) * _ALIGN * 64
            return ptr

    def nbytes(self) -> int:
        return self.value.size * self.value.dtype.itemsize

    def size(self) -> int:
        return self.value.size


class VersionCounter:
    """Counts in-place writes; shared by a tensor and all its aliases (``x._version``)."""

    __slots__ = ("version",)

    def __init__(self):
        self.version = 0


_SLOT = Storage.__dict__["value"]  # the slot itself, read and written without a flush
# Bound once: each read of ``_SLOT.__set__`` (or ``__get__``) makes a method-wrapper.
_SLOT_GET, _SLOT_SET = _SLOT.__get__, _SLOT.__set__


class LazyStorage(Storage):
    """A Storage whose value an eager op recorded but has not run yet (``lazy.Pending``).

    Reading ``value`` runs the recorded ops (``lazy.flush``) and turns the storage back
    into a plain ``Storage``; writing it does the latter. Lazy-aware fast paths read the
    ``Pending`` through ``pending`` and record further ops on it instead."""

    __slots__ = ()

    pending = _SLOT

    @property
    def value(self):
        p = _SLOT_GET(self, Storage)
        a = p.array
        if a is None:
            from .lazy import array

            a = array(p)
        _SLOT_SET(self, a)
        self.__class__ = Storage
        return a

    @value.setter
    def value(self, new) -> None:
        _SLOT_SET(self, new)
        self.__class__ = Storage
