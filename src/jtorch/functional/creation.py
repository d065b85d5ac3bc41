"""Factories: arrays from static sizes, with torch's dtype inference."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from ._util import cast, dtype_of, is_scalar


def _size(size) -> tuple[int, ...]:
    size = tuple(int(s) for s in size)
    if any(s < 0 for s in size):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(size)}: {list(size)}"
        )
    return size


def zeros(size, *, dtype=None):
    return jnp.zeros(_size(size), (dtype or D.get_default_dtype()).np)


def ones(size, *, dtype=None):
    return jnp.ones(_size(size), (dtype or D.get_default_dtype()).np)


def empty(size, *, dtype=None):
    """Uninitialised memory in torch; zeros here (reading it is undefined either way)."""
    return zeros(size, dtype=dtype)


def full(size, fill_value, *, dtype=None):
    if dtype is None:
        dtype = D._scalar_dtype(fill_value) if is_scalar(fill_value) else dtype_of(fill_value)
    return jnp.full(_size(size), cast(fill_value, dtype))


def arange(start, end=None, step=1, *, dtype=None):
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, end, step))
        dtype = D.get_default_dtype() if is_float else D.int64
    n = max(0, math.ceil((end - start) / step))
    if dtype._kind < 2 and all(isinstance(v, int) for v in (start, end, step)):
        return jnp.asarray(np.arange(start, start + n * step, step)[:n], dtype.np)
    return cast(start + np.arange(n, dtype=np.float64) * step, dtype)


def linspace(start, end, steps, *, dtype=None):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = dtype or D.get_default_dtype()
    if steps == 1:
        return cast(np.array([start], np.float64), dtype)
    i = np.arange(steps, dtype=np.float64)
    step = (end - start) / max(steps - 1, 1)
    # torch fills the two halves from opposite ends, so both endpoints are exact.
    vals = np.where(i < steps // 2, start + i * step, end - (steps - 1 - i) * step)
    return cast(vals, dtype)


def eye(n, m=None, *, dtype=None):
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"n must be greater or equal to 0, got {n if n < 0 else m}")
    return jnp.eye(n, n if m is None else m, dtype=(dtype or D.get_default_dtype()).np)
