"""Process-wide numerics flags: float32 matmul precision and deterministic algorithms.

torch's float32 matmul precision maps onto JAX's ``jax_default_matmul_precision``, which
JAX includes in its compilation cache key: a kernel is traced once per setting and the
setting is read when the kernel runs, never re-traced per call. "highest" leaves it unset,
and the functional layer then asks for full float32 precision itself.
"""

from __future__ import annotations

import warnings

import jax

_JAX_PRECISION = {"highest": None, "high": "tensorfloat32", "medium": "bfloat16"}
_state = {"precision": "highest", "deterministic": False, "warn_only": False}


def get_float32_matmul_precision() -> str:
    return _state["precision"]


def set_float32_matmul_precision(precision: str) -> None:
    if precision not in _JAX_PRECISION:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=3)
        return
    _state["precision"] = precision
    jax.config.update("jax_default_matmul_precision", _JAX_PRECISION[precision])


def has_gpu() -> bool:
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False
