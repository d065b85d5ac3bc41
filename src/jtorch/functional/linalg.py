"""Matrix products. torch does not promote here: mixed dtypes raise."""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from .. import _dtypes as D
from ._util import broadcast_shapes, dtype_of, not_implemented, require_tensor

_C_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
    "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def matmul(input, other):
    """torch.matmul: numpy's dimensionality rules, no promotion, full float32 precision."""
    require_tensor("matmul", "input", 1, input)
    require_tensor("matmul", "other", 2, other)
    a, b = dtype_of(input), dtype_of(other)
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(
            "both arguments to matmul need to be at least 1D, but they are "
            f"{input.ndim}D and {other.ndim}D"
        )
    if a is not b:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_C_NAMES[a.name]} != "
            f"{_C_NAMES[b.name]}"
        )
    k1 = input.shape[-1]
    k2 = other.shape[-2] if other.ndim > 1 else other.shape[0]
    if k1 != k2:
        if input.ndim == 1 and other.ndim == 1:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{k1}] and src [{k2}] to have the "
                f"same number of elements, but got {k1} and {k2} elements respectively"
            )
        rows = input.shape[-2] if input.ndim > 1 else 1
        cols = other.shape[-1] if other.ndim > 1 else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k1} and {k2}x{cols})"
        )
    if input.ndim > 2 or other.ndim > 2:
        broadcast_shapes(input.shape[:-2], other.shape[:-2])
    if a is D.bool:
        raise not_implemented("addmm_impl_cpu_", a)
    return jnp.matmul(input, other, precision=lax.Precision.HIGHEST)


def mm(input, mat2):
    """torch.mm: the product of two matrices (no broadcasting, no promotion)."""
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(input, mat2)
