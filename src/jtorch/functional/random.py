"""Random sampling with explicit JAX keys (the eager layer owns generators and their state).

Differences from PyTorch: the streams are JAX's (threefry), so a seed gives different
numbers than torch's Mersenne Twister / Philox; reproducibility for a given seed holds.
"""

from __future__ import annotations

import operator

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from ._util import cast, dtype_of, is_scalar
from .creation import _size

_BOUNDS_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
                 "int16": "short", "int32": "int", "int64": "long"}


def _sample_dtype(dtype):
    # Sample half-precision types in float32 so their distribution is not coarsened twice.
    return jnp.float32 if dtype.itemsize < 4 else dtype.np


def _not_implemented(kernel: str, dtype: D.dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{D.legacy_name(dtype)}\'')


def _uniform01(key, shape, dtype: D.dtype):
    """U[0, 1) in ``dtype``; a complex dtype gets independent real and imaginary parts."""
    if dtype._kind == 3:
        parts = jax.random.uniform(key, (*shape, 2), dtype.to_real().np)
        return jax.lax.complex(parts[..., 0], parts[..., 1])
    return jax.random.uniform(key, shape, _sample_dtype(dtype)).astype(dtype.np)


def _normal01(key, shape, dtype: D.dtype):
    """N(0, 1) in ``dtype``; complex samples have variance 1/2 per part, as torch's."""
    if dtype._kind == 3:
        parts = jax.random.normal(key, (*shape, 2), dtype.to_real().np) * np.sqrt(0.5)
        return jax.lax.complex(parts[..., 0], parts[..., 1])
    return jax.random.normal(key, shape, _sample_dtype(dtype)).astype(dtype.np)


def rand(key, size, *, dtype=None):
    dtype = dtype or D.get_default_dtype()
    if dtype._kind < 2:
        raise _not_implemented("check_uniform_bounds", dtype)
    return _uniform01(key, _size(size), dtype)


def randn(key, size, *, dtype=None):
    dtype = dtype or D.get_default_dtype()
    if dtype._kind < 2:
        raise _not_implemented("normal_kernel_cpu", dtype)
    return _normal01(key, _size(size), dtype)


def check_randint(low, high, dtype: D.dtype) -> None:
    """torch's errors for ``randint``: non-int bounds, an empty range, bounds the dtype lacks."""
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not hasattr(type(v), "__index__"):
            raise TypeError(f"randint(): argument '{name}' must be int, not {type(v).__name__}")
    low, high = operator.index(low), operator.index(high)
    if high <= low:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if dtype._kind == 3:
        raise RuntimeError(
            "check_random_bounds handles only integral, floating-point and boolean types"
        )
    if dtype._kind == 2:
        digits = int(jnp.finfo(dtype.np).nmant) + 1
        lo, hi = -(2**digits), 2**digits
    else:
        info = np.iinfo(dtype.np) if dtype._kind == 1 else np.iinfo(np.uint8)
        lo, hi = (0, 1) if dtype._kind == 0 else (int(info.min), int(info.max))
    name = _BOUNDS_NAMES.get(dtype.name, D.legacy_name(dtype))
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")


def randint(key, low, high, size, *, dtype=None):
    """Integers uniform on ``[low, high)``, in ``dtype`` (int64 by default)."""
    dtype = dtype or D.int64
    if is_scalar(low) and is_scalar(high):  # traced bounds were checked by the caller
        check_randint(low, high, dtype)
    return jax.random.randint(key, _size(size), low, high, jnp.int64).astype(dtype.np)


def check_uniform(dtype: D.dtype, a, b) -> None:
    if dtype._kind < 2:
        raise _not_implemented("check_uniform_bounds", dtype)
    if is_scalar(a) and is_scalar(b) and a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}"
        )


def check_normal(dtype: D.dtype, std) -> None:
    if dtype._kind < 2:
        raise _not_implemented("normal_kernel_cpu", dtype)
    if is_scalar(std) and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")


def uniform(key, input, a=0.0, b=1.0):
    """The values ``input.uniform_(a, b)`` writes (complex: each part on ``[a, b)``)."""
    d = dtype_of(input)
    check_uniform(d, a, b)
    if d._kind == 3:
        real = d.to_real()
        u = _uniform01(key, input.shape, d)
        return jax.lax.complex(cast(a + (b - a) * u.real, real), cast(a + (b - a) * u.imag, real))
    u = jax.random.uniform(key, input.shape, _sample_dtype(d))
    return cast(a + (b - a) * u, d)


def normal(key, input, mean=0.0, std=1.0):
    """The values ``input.normal_(mean, std)`` writes (complex: ``std/sqrt(2)`` per part)."""
    d = dtype_of(input)
    check_normal(d, std)
    if d._kind == 3:
        z = _normal01(key, input.shape, d)
        real = d.to_real()
        return jax.lax.complex(cast(mean + std * z.real, real), cast(mean + std * z.imag, real))
    z = jax.random.normal(key, input.shape, _sample_dtype(d))
    return cast(mean + std * z, d)
