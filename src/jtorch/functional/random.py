"""Random sampling with explicit JAX keys (the eager layer owns generators and their state).

Differences from PyTorch: the streams are JAX's (threefry), so a seed gives different
numbers than torch's Mersenne Twister / Philox; reproducibility for a given seed holds.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import cast, dtype_of


def _float(dtype):
    dtype = dtype or D.get_default_dtype()
    if dtype._kind < 2:
        raise RuntimeError(f'"check_uniform_bounds" not implemented for \'{D.legacy_name(dtype)}\'')
    return dtype


def _sample_dtype(dtype):
    # Sample half-precision types in float32 so their distribution is not coarsened twice.
    return jnp.float32 if dtype.itemsize < 4 else dtype.np


def rand(key, size, *, dtype=None):
    dtype = _float(dtype)
    return jax.random.uniform(key, tuple(size), _sample_dtype(dtype)).astype(dtype.np)


def randn(key, size, *, dtype=None):
    dtype = _float(dtype)
    return jax.random.normal(key, tuple(size), _sample_dtype(dtype)).astype(dtype.np)


def randint(key, low, high, size, *, dtype=None):
    if high <= low:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    dtype = dtype or D.int64
    return jax.random.randint(key, tuple(size), low, high, jnp.int64).astype(dtype.np)


def uniform(key, input, a=0.0, b=1.0):
    """The values ``input.uniform_(a, b)`` writes."""
    d = dtype_of(input)
    u = jax.random.uniform(key, input.shape, _sample_dtype(d))
    return cast(a + (b - a) * u, d)


def normal(key, input, mean=0.0, std=1.0):
    """The values ``input.normal_(mean, std)`` writes."""
    d = dtype_of(input)
    if isinstance(std, (int, float)) and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    z = jax.random.normal(key, input.shape, _sample_dtype(d))
    return cast(mean + std * z, d)
