"""nn.DataParallel and nn.parallel.data_parallel on one device: the module runs as is.

Differences from PyTorch: no scatter/replicate/gather over several GPUs; every call runs
``module`` once on the full batch (what PyTorch does without CUDA). Multi-device work
belongs to ``jtorch.distributed`` / JAX sharding.
"""

from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module`` (as ``self.module``, so state_dict keys gain a ``module.`` prefix)."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module
        self.device_ids = [] if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0,
                  module_kwargs=None):
    """Evaluate ``module(*inputs, **module_kwargs)``; as PyTorch, only with a GPU."""
    import jax

    if not any(d.platform == "gpu" for d in jax.devices()):
        raise RuntimeError("device type could not be determined")
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
