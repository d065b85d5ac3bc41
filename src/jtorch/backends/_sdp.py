"""Which scaled-dot-product-attention kernels may run (``torch.backends.cuda.*_sdp*`` and
``torch.nn.attention.sdpa_kernel``).

jtorch computes attention with one XLA program whichever kernel is chosen; the flags decide,
as in PyTorch, whether a call may run at all: on the CPU only the math and flash kernels
exist, and the flash one only for the inputs it accepts.
"""

from __future__ import annotations

import enum

__all__ = ["SDPAParams", "SDPBackend", "can_use_cudnn_attention", "can_use_efficient_attention",
           "can_use_flash_attention", "cudnn_sdp_enabled", "enable_cudnn_sdp",
           "enable_flash_sdp", "enable_math_sdp", "enable_mem_efficient_sdp",
           "flash_sdp_enabled", "math_sdp_enabled", "mem_efficient_sdp_enabled",
           "is_flash_attention_available", "allow_fp16_bf16_reduction_math_sdp",
           "fp16_bf16_reduction_math_sdp_allowed"]


class SDPBackend(enum.IntEnum):
    """The attention kernels PyTorch can dispatch to."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    __str__ = enum.Enum.__str__  # "SDPBackend.MATH", as PyTorch prints it


# flag name -> backend, in PyTorch's order
NAMES = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
         "mem_efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH,
         "overrideable": SDPBackend.OVERRIDEABLE}
ENABLED = dict.fromkeys(NAMES, True)
PRIORITY = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH,
            SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE]
_REDUCTION = {"allowed": False}


def _flag(name):
    def enabled() -> bool:
        return ENABLED[name]

    def enable(enabled: bool) -> None:
        ENABLED[name] = bool(enabled)

    enabled.__name__, enable.__name__ = f"{name}_sdp_enabled", f"enable_{name}_sdp"
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _flag("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _flag("mem_efficient")
math_sdp_enabled, enable_math_sdp = _flag("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _flag("cudnn")


def allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    """Differences from PyTorch: recorded only; XLA picks the math kernel's accumulation."""
    _REDUCTION["allowed"] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed() -> bool:
    return _REDUCTION["allowed"]


def is_flash_attention_available() -> bool:
    """Whether a CUDA flash-attention kernel exists: never in jtorch (XLA computes it)."""
    return False


class SDPAParams:
    """The arguments of one attention call, for the ``can_use_*`` queries."""

    def __init__(self, query, key, value, attn_mask, dropout, is_causal, enable_gqa) -> None:
        self.query, self.key, self.value, self.attn_mask = query, key, value, attn_mask
        self.dropout, self.is_causal, self.enable_gqa = dropout, is_causal, enable_gqa


def _fused(kind: str):
    def can_use(params: SDPAParams, debug: bool = False) -> bool:
        if debug:
            import warnings

            warnings.warn(f"{kind} attention requires a CUDA device with PyTorch's fused "
                          "kernels; jtorch computes attention with XLA.", stacklevel=2)
        return False

    can_use.__name__ = f"can_use_{kind}_attention"
    return can_use


can_use_flash_attention = _fused("flash")
can_use_efficient_attention = _fused("efficient")
can_use_cudnn_attention = _fused("cudnn")


def check_kernel(device_type: str, flash_usable: bool) -> bool:
    """Raise PyTorch's error when no enabled kernel can run; else whether flash runs."""
    usable = [n for n, on in ENABLED.items() if on and (device_type != "cpu"
                                                          or n in ("math", "flash"))]
    if not usable:
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. "
                           "This is likely due to turning off both the math kernel and the "
                           "fused kernels.")
    flash = ENABLED["flash"] and flash_usable
    if device_type == "cpu" and not flash and not ENABLED["math"]:
        raise RuntimeError("No available kernel.  Aborting execution.")
    return flash


def sdpa_kernel_set(backends, set_priority: bool = False) -> None:
    """Enable exactly ``backends`` (``nn.attention.sdpa_kernel``'s step)."""
    for name, backend in NAMES.items():
        ENABLED[name] = backend in backends
    if set_priority:
        PRIORITY[:] = [*backends, *(b for b in PRIORITY if b not in backends)]


def current_backends(with_priority: bool = False) -> list:
    out = [b for n, b in NAMES.items() if ENABLED[n]]
    return sorted(out, key=PRIORITY.index) if with_priority else out


def sdp_kernel(enable_flash: bool = True, enable_math: bool = True,
               enable_mem_efficient: bool = True, enable_cudnn: bool = True):
    """Deprecated: ``torch.nn.attention.sdpa_kernel`` with the enabled backends."""
    import warnings

    from ..nn.attention import sdpa_kernel

    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this "
                  "context manager will be removed. Please see `torch.nn.attention."
                  "sdpa_kernel()` for the new context manager, with updated signature.",
                  FutureWarning, stacklevel=2)
    chosen = [b for b, on in ((SDPBackend.CUDNN_ATTENTION, enable_cudnn),
                              (SDPBackend.FLASH_ATTENTION, enable_flash),
                              (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                              (SDPBackend.MATH, enable_math)) if on]
    return sdpa_kernel(chosen)


__all__ += ["sdp_kernel"]
