"""``skip_init``: build a module without running its parameter initialization."""

from __future__ import annotations

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialized parameters and buffers.

    Differences from PyTorch: there are no meta tensors, so the module is built (and
    initialized) on the CPU, then ``to_empty`` replaces every tensor with a fresh one on
    the requested device; the "uninitialized" values are zeros.
    """
    from ..modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "cpu"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
