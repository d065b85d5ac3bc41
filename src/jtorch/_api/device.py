"""The default device, and Tensor methods about placement: ``cuda``,
``pin_memory``, ``is_pinned``, ``get_device``, ``record_stream``.

``to`` and ``cpu`` are in ``eager/methods.py``; the moves are ``eager/transfer.py``.
"""

from __future__ import annotations

from .. import _device as _dev
from .._device import device as Device
from .._device import get_default_device, set_default_device
from ..eager import methods as _methods
from ..eager.tensor import Tensor

__all__ = ["set_default_device", "get_default_device"]


def _cuda(self, device=None, non_blocking=False, memory_format=None) -> Tensor:
    dev = Device("cuda" if device is None else device)
    if dev.type != "cuda":
        raise RuntimeError("Invalid device, must be cuda device")
    return self.to(dev, non_blocking=non_blocking, memory_format=memory_format)


def _pin_memory(self, device=None) -> Tensor:
    """Differences from PyTorch: JAX manages host buffers itself; with an accelerator the
    tensor is returned as is (pinning is an allocator detail JAX hides)."""
    if not _dev.gpu_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if self._device.type != "cpu":
        raise RuntimeError(f"cannot pin '{_methods.type_(self)}' only dense CPU tensors can be "
                           "pinned")
    return self


def _is_pinned(self, device=None) -> bool:
    return False


def _record_stream(self, stream) -> None:
    """Nothing to do: a device has one stream of work in JAX (see ``cuda/streams.py``)."""


def _get_device(self) -> int:
    d = self._device
    return -1 if d.type == "cpu" else d.index


Tensor.cuda = _cuda
Tensor.pin_memory = _pin_memory
Tensor.is_pinned = _is_pinned
Tensor.get_device = _get_device
Tensor.record_stream = _record_stream
