"""torch.utils.hooks: RemovableHandle and the hook helpers modules use."""

from __future__ import annotations

import warnings

from ..nn.modules._hooks import BackwardHook, RemovableHandle

__all__ = ["RemovableHandle", "BackwardHook", "unserializable_hook", "warn_if_has_hooks"]


def unserializable_hook(f):
    """Mark ``f`` as a hook that is not pickled with its tensor (no warning for it)."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor) -> None:
    hooks = getattr(tensor, "_leaf_hooks", None) or {}
    for hook in hooks.values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook} on tensor will not be serialized.  If this is "
                          "expected, you can decorate the function with "
                          "@torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)
