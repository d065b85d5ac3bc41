"""nn.DataParallel: split the batch over several JAX devices in one SPMD program.

``DataParallel(module, device_ids)`` runs ``module`` on the batch split along ``dim``
over the devices ``device_ids`` names (ints index the CUDA devices; default: all of
them), with the parameters replicated and their gradients summed back into the original
parameters (see ``_spmd.py``). On a machine without a GPU the devices are JAX's CPU
devices (several with ``XLA_FLAGS=--xla_force_host_platform_device_count=N``; with one,
the module just runs, as PyTorch's CPU build does).

BatchNorm in training normalizes each device's chunk with that chunk's statistics, and
its running statistics follow the first device's chunk, as PyTorch's.

Differences from PyTorch: there is one replica, compiled for all the devices, not one
copy per device run in threads. A batch whose size the devices do not divide runs on the
largest number of them that do.
"""

from __future__ import annotations

from ... import _device as _dev
from ..modules.module import Module
from . import _spmd

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module`` (as ``self.module``, so state_dict keys gain a ``module.`` prefix)."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module
        self.dim = dim
        gpus = _dev.accelerators()
        if not gpus and len(_spmd.candidate_devices()) < 2:
            self.device_ids, self.output_device = [], None
            return
        devices = _spmd.jax_devices_for(device_ids)
        self.device_ids = (list(range(len(devices))) if device_ids is None
                           else [d if isinstance(d, int) else _dev.device(d).index or 0
                                 for d in device_ids])
        self.output_device = output_device if output_device is not None else self.device_ids[0]
        if gpus:
            self._check_placement(module, devices[0])

    def _check_placement(self, module, src) -> None:
        for t in list(module.parameters()) + list(module.buffers()):
            if src not in t._value.devices():
                raise RuntimeError(
                    f"module must have its parameters and buffers on device "
                    f"{_dev.device('cuda', self.device_ids[0])} (device_ids[0]) but found one "
                    f"of them on device: {t.device}")

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        devices = _spmd.jax_devices_for(self.device_ids)
        mesh = _spmd.mesh_for(devices, inputs, kwargs, self.dim)
        if mesh is None:
            return self.module(*inputs, **kwargs)
        out = _spmd.jax_devices_for([self.output_device])[0]
        return _spmd.run(self.module, mesh, inputs, kwargs, out, self.dim,
                         per_device_stats=True)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0,
                  module_kwargs=None):
    """The functional form of DataParallel; as PyTorch, only with a GPU."""
    if not _dev.gpu_available():
        raise RuntimeError("device type could not be determined")
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return DataParallel(module, device_ids, output_device, dim)(*inputs, **(module_kwargs or {}))
