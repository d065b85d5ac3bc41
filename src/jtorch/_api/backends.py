"""Process-wide numerics settings in the torch namespace: float32 matmul precision and
deterministic algorithms (state in ``jtorch.backends._flags``)."""

from __future__ import annotations

from ..backends import _flags

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision",
           "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode"]


def set_float32_matmul_precision(precision: str) -> None:
    """"highest" (the default: full float32), "high" (TF32) or "medium" (bfloat16) passes
    for float32 matrix products; anything else warns and changes nothing."""
    _flags.set_float32_matmul_precision(precision)


def get_float32_matmul_precision() -> str:
    return _flags.get_float32_matmul_precision()


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic kernels: XLA's CPU kernels are; on a GPU this sets XLA's
    deterministic-ops flag (see ``_flags.require_determinism``).

    Differences from PyTorch: no op raises (or warns, ``warn_only``) for lacking a
    deterministic implementation, since under that flag every XLA kernel has one."""
    if not isinstance(mode, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    if mode:
        _flags.require_determinism("torch.use_deterministic_algorithms(True)")
    _flags._state.update(deterministic=mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _flags._state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _flags._state["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode) -> None:
    """0/"default": off; 1/"warn": on, warn only; 2/"error": on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not are_deterministic_algorithms_enabled():
        return 0
    return 1 if is_deterministic_algorithms_warn_only_enabled() else 2
