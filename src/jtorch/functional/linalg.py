"""Matrix products. torch does not promote here: mixed dtypes raise."""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from .. import _dtypes as D
from ._util import dtype_of

_C_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
    "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def matmul(input, other):
    """torch.matmul: numpy's dimensionality rules, no promotion, full float32 precision."""
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
                "inconsistent tensor size, expected tensor [%d] and src [%d] to have the same "
                "number of elements, but got %d and %d elements respectively" % (k1, k2, k1, k2)
            )
        rows = input.shape[-2] if input.ndim > 1 else 1
        cols = other.shape[-1] if other.ndim > 1 else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k1} and {k2}x{cols})"
        )
    if a is D.bool:
        raise RuntimeError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    return jnp.matmul(input, other, precision=lax.Precision.HIGHEST)
