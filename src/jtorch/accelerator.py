"""torch.accelerator: device-agnostic access to the current accelerator (CUDA here, when
JAX has a GPU); without one, calls that need a device raise PyTorch's RuntimeError."""

from __future__ import annotations

from . import _device as _dev
from . import cuda as _cuda

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index",
           "current_device_idx", "set_device_index", "set_device_idx", "synchronize",
           "current_stream", "set_stream", "device_index", "empty_cache", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_peak_memory_stats", "get_memory_info"]

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    return _dev.gpu_available()


def current_accelerator(check_available: bool = False):
    return _dev.device("cuda") if _dev.gpu_available() else None


def device_count() -> int:
    return _cuda.device_count()


def _require() -> None:
    if not _dev.gpu_available():
        raise RuntimeError(_NONE)


def current_device_index() -> int:
    _require()
    return _cuda.current_device()


current_device_idx = current_device_index


def set_device_index(device) -> None:
    _require()
    _cuda.set_device(device)


set_device_idx = set_device_index


def synchronize(device=None) -> None:
    _require()
    _cuda.synchronize(device)


def current_stream(device=None):
    _require()
    return _cuda.current_stream(device)


def set_stream(stream) -> None:
    _require()
    _cuda.set_stream(stream)


class device_index:  # noqa: N801 - PyTorch's name
    """``with torch.accelerator.device_index(i):`` (None: no change)."""

    def __init__(self, device, /):
        self._ctx = _cuda.device(device)

    def __enter__(self):
        if self._ctx.idx >= 0:
            _require()
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


def _memory(fn):
    def call(device=None, /):
        _require()
        return fn(device)

    call.__name__ = fn.__name__
    return call


empty_cache = _memory(lambda device=None: _cuda.empty_cache())
memory_allocated = _memory(_cuda.memory_allocated)
max_memory_allocated = _memory(_cuda.max_memory_allocated)
memory_reserved = _memory(_cuda.memory_reserved)
max_memory_reserved = _memory(_cuda.max_memory_reserved)
memory_stats = _memory(_cuda.memory_stats)
reset_peak_memory_stats = _memory(_cuda.reset_peak_memory_stats)
get_memory_info = _memory(_cuda.mem_get_info)
