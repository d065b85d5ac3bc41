"""torch.nn.attention: choose the scaled-dot-product-attention kernels (``sdpa_kernel``).

jtorch has one attention implementation (XLA's); the choice matters as in PyTorch for which
calls may run (see ``jtorch.backends._sdp``). Flash-attention implementations from outside
(FA3/FA4) plug CUDA kernels into PyTorch and do not exist here.
"""

from __future__ import annotations

import contextlib

from ..backends._sdp import (
    SDPAParams,
    SDPBackend,
    can_use_efficient_attention,
    can_use_flash_attention,
    current_backends,
    sdpa_kernel_set,
)

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS",
           "register_flash_attention_impl", "activate_flash_attention_impl",
           "list_flash_attention_impls", "current_flash_attention_impl",
           "restore_flash_attention_impl", "SDPAParams", "can_use_efficient_attention",
           "can_use_flash_attention"]

WARN_FOR_UNFUSED_KERNELS = False


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Within the block, only ``backends`` (an SDPBackend or a list) may run attention."""
    if not isinstance(backends, list | SDPBackend):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of "
                             f"SDPBackend instances, got {type(backends).__name__}")
    backends = list(dict.fromkeys([backends] if isinstance(backends, SDPBackend)
                                  else backends))
    previous = current_backends(with_priority=set_priority)
    try:
        sdpa_kernel_set(backends, set_priority)
        yield {}
    finally:
        sdpa_kernel_set(previous, set_priority)


def list_flash_attention_impls() -> list[str]:
    """The registered external flash-attention implementations: none in jtorch."""
    return []


def current_flash_attention_impl():
    return None


def _no_external_kernels(name: str):
    def unsupported(*args, **kwargs):
        raise RuntimeError(f"torch.nn.attention.{name}: external flash-attention kernels "
                           "(FA3/FA4) are CUDA code for PyTorch and are not supported in "
                           "jtorch, which computes attention with XLA")

    unsupported.__name__ = name
    return unsupported


register_flash_attention_impl = _no_external_kernels("register_flash_attention_impl")
activate_flash_attention_impl = _no_external_kernels("activate_flash_attention_impl")
restore_flash_attention_impl = _no_external_kernels("restore_flash_attention_impl")
