"""Data-dependent argument checks on the host, each made once per array value.

PyTorch raises for bad data (a class target outside ``[0, C)``, an embedding row past the
table) when the op runs; XLA would clamp the index silently, so jtorch reads such data on
the host before the kernel. That read waits for the array and copies it, every call. A
check that passed is remembered for the array it read (by identity; jax arrays are
immutable, and an in-place op gives a tensor a new array), so a target or index tensor
used again, as in full-batch training or a loss computed twice, is not read again.
"""

from __future__ import annotations

import weakref

import numpy as np

__all__ = ["host", "passed", "remember"]

_PASSED: dict[int, tuple] = {}  # id(array) -> (weakref to it, {check keys that passed})


def _entry(value):
    entry = _PASSED.get(id(value))
    if entry is not None and entry[0]() is value:
        return entry
    return None


def passed(value, key) -> bool:
    """Whether the check ``key`` already passed for this very array."""
    entry = _entry(value)
    return entry is not None and key in entry[1]


def remember(value, key) -> None:
    """Record that the check ``key`` passed for ``value`` (forgotten when it is freed)."""
    entry = _entry(value)
    if entry is None:
        k = id(value)
        try:
            ref = weakref.ref(value, lambda _: _PASSED.pop(k, None))
        except TypeError:  # not weak-referenceable (a NumPy array): nothing to remember
            return
        entry = _PASSED[k] = (ref, set())
    entry[1].add(key)


def host(value) -> np.ndarray:
    """The array's values on the host (waits for it)."""
    return np.asarray(value)
