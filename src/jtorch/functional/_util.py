"""Helpers shared by the functional op families: torch dtypes of JAX values, promotion."""

from __future__ import annotations

import numbers

import jax.numpy as jnp

from .. import _dtypes as D

_PY_KIND = {D.bool: False, D.int64: 0, D.float64: 0.0, D.complex128: 0j}


def dtype_of(x) -> D.dtype:
    """The torch dtype of a JAX value or Python scalar (scalars take torch's wrapped type)."""
    if isinstance(x, numbers.Number) and not hasattr(x, "dtype"):
        return D._scalar_dtype(x)
    return D.from_numpy_dtype(x.dtype)


def operand(x):
    """Describe a value for torch promotion: (dtype, ndim) for arrays, a Python scalar otherwise.

    Weakly typed JAX values (what a Python scalar becomes under ``jax.jit``) count as
    torch's wrapped numbers, so promotion gives the same answer traced or not.
    """
    if x is None:
        return None
    if isinstance(x, numbers.Number) and not hasattr(x, "dtype"):
        return x
    d = D.from_numpy_dtype(x.dtype)
    if getattr(x, "weak_type", False):
        return _PY_KIND.get(d, 0.0) if d._kind != 1 else 0
    return (d, x.ndim)


def result_type(*xs) -> D.dtype:
    """torch.result_type over JAX values and Python scalars."""
    return D.result_type_of([operand(x) for x in xs])


def cast(x, d: D.dtype):
    """Cast a JAX value or Python scalar to torch dtype ``d`` (a strongly typed array)."""
    return jnp.asarray(x, dtype=d.np)


def is_scalar(x) -> bool:
    return isinstance(x, numbers.Number) and not hasattr(x, "dtype")


def norm_dim(dim: int, ndim: int) -> int:
    """Wrap a possibly negative dim; IndexError as torch raises for out-of-range dims."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def norm_dims(dim, ndim: int) -> tuple[int, ...]:
    """Normalize ``dim`` (None, int or sequence) to a sorted tuple; None means all dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    out = tuple(norm_dim(d, ndim) for d in dim)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out} appears multiple times in the list of dims")
    return tuple(sorted(out))
