"""Process-wide numerics flags: float32 matmul precision and deterministic algorithms.

torch's float32 matmul precision maps onto JAX's ``jax_default_matmul_precision``, which
JAX includes in its compilation cache key: a kernel is traced once per setting and the
setting is read when the kernel runs, never re-traced per call. "highest" leaves it unset,
and the functional layer then asks for full float32 precision itself.
"""

from __future__ import annotations

import os
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
    from ..eager import lazy

    lazy.flush()  # recorded products run with the precision they were asked under
    _state["precision"] = precision
    jax.config.update("jax_default_matmul_precision", _JAX_PRECISION[precision])


def has_gpu() -> bool:
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False


_DETERMINISTIC_XLA = "--xla_gpu_deterministic_ops=true"


def require_determinism(what: str) -> None:
    """Make XLA's GPU kernels deterministic (scatter-add, some reductions are not by
    default). XLA reads the flag when its backends start: before that, set it; after,
    warn when a GPU runs without it. XLA's CPU kernels are deterministic already."""
    from jax._src import xla_bridge

    flags = os.environ.get("XLA_FLAGS", "")
    if _DETERMINISTIC_XLA in flags:
        return
    if not xla_bridge.backends_are_initialized():
        os.environ["XLA_FLAGS"] = f"{flags} {_DETERMINISTIC_XLA}".strip()
    elif has_gpu():
        warnings.warn(f"{what}: JAX's GPU backend has already started without "
                      f"XLA_FLAGS={_DETERMINISTIC_XLA}, so some GPU kernels stay "
                      "nondeterministic; set it before the first tensor is made",
                      UserWarning, stacklevel=3)
