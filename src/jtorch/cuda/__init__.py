"""torch.cuda on JAX's GPU backend: devices, the current device, synchronization, seeds.

``cuda:N`` is the N-th local JAX GPU. Without one, every call behaves as PyTorch's CPU
build: ``is_available()`` is False, ``device_count()`` 0, and calls that need a device
raise ``AssertionError: Torch not compiled with CUDA enabled``.

Each GPU has its own default generator (``manual_seed``/``seed`` seed the current one,
``*_all`` every one, ``torch.manual_seed`` all of them and the CPU's); without CUDA the
seeding calls do nothing, as PyTorch defers them until CUDA starts.

Differences from PyTorch: without CUDA, ``set_device``/``reset_peak_memory_stats``/
``memory_summary`` raise AssertionError (PyTorch's CPU build fails there with an
AttributeError or KeyError of its internals).
"""

from __future__ import annotations

import dataclasses

from .. import _device as _dev
from .._device import device as _Device
from . import amp
from .memory import (
    empty_cache,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    memory_stats,
    memory_summary,
    reset_max_memory_allocated,
    reset_peak_memory_stats,
)
from .streams import (
    Event,
    Stream,
    StreamContext,
    current_stream,
    default_stream,
    set_stream,
    stream,
)

__all__ = [
    "is_available", "device_count", "current_device", "set_device", "device", "device_of",
    "get_device_name", "get_device_properties", "get_device_capability", "synchronize",
    "is_initialized", "init", "is_bf16_supported", "get_arch_list", "manual_seed",
    "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state", "set_rng_state",
    "get_rng_state_all", "set_rng_state_all", "Event", "Stream", "StreamContext", "stream",
    "current_stream", "default_stream", "set_stream", "empty_cache", "memory_allocated",
    "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
    "memory_summary", "reset_peak_memory_stats", "reset_max_memory_allocated",
    "mem_get_info", "amp", "ipc_collect",
]


def is_available() -> bool:
    return _dev.gpu_available()


def device_count() -> int:
    return len(_dev.accelerators())


def is_initialized() -> bool:
    return _dev.PLACEMENT.active


def init() -> None:
    if not is_available():
        raise _dev.no_cuda()


def _index(device=None, optional: bool = True) -> int:
    """torch's ``_get_device_index``: None is the current device; checks the ordinal."""
    if not is_available():
        raise _dev.no_cuda()
    if device is None:
        return _dev.current_index()
    if isinstance(device, str):
        device = _Device(device)
    if isinstance(device, _Device):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        index = _dev.current_index() if device.index is None else device.index
    else:
        index = int(device)
    if not 0 <= index < device_count():
        raise AssertionError("Invalid device id")
    return index


def current_device() -> int:
    return _dev.current_index()


def set_device(device) -> None:
    index = _index(device)
    if index >= 0:
        _dev.set_current_index(index)


class device:  # noqa: N801 - PyTorch's name
    """``with torch.cuda.device(1):`` makes cuda:1 the current device (a negative index or
    None changes nothing)."""

    def __init__(self, device):
        self.idx = -1 if device is None else (
            device if isinstance(device, int) else _Device(device).index or 0)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:
            return self
        if not is_available():
            raise RuntimeError("PyTorch was compiled without CUDA support")
        self.prev_idx = _dev.current_index()
        set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.prev_idx >= 0:
            _dev.set_current_index(self.prev_idx)
        return False


class device_of(device):  # noqa: N801 - PyTorch's name
    """``with torch.cuda.device_of(t):`` makes t's device current (nothing for a CPU t)."""

    def __init__(self, obj):
        d = obj.device
        super().__init__(d.index if d.type == "cuda" else -1)


def _jax(device=None):
    return _dev.accelerators()[_index(device)]


@dataclasses.dataclass(frozen=True)
class _CudaDeviceProperties:
    """What ``get_device_properties`` returns, read from the JAX device.

    Differences from PyTorch: ``total_memory`` is the memory JAX's allocator may use
    (its ``bytes_limit``), which follows ``XLA_PYTHON_CLIENT_MEM_FRACTION``.
    """

    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int
    is_integrated: bool = False
    is_multi_gpu_board: bool = False

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // 2**20}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def _capability(d) -> tuple[int, int]:
    cc = getattr(d, "compute_capability", None)
    if not cc:
        return (0, 0)
    major, _, minor = str(cc).partition(".")
    return int(major), int(minor or 0)


def get_device_properties(device=None) -> _CudaDeviceProperties:
    d = _jax(device)
    stats = d.memory_stats() or {}
    major, minor = _capability(d)
    return _CudaDeviceProperties(
        name=d.device_kind, major=major, minor=minor,
        total_memory=int(stats.get("bytes_limit", 0)),
        multi_processor_count=int(getattr(d, "core_count", 0) or 0),
    )


def get_device_name(device=None) -> str:
    return _jax(device).device_kind


def get_device_capability(device=None) -> tuple[int, int]:
    return _capability(_jax(device))


def get_arch_list() -> list[str]:
    if not is_available():
        return []
    return sorted({f"sm_{a}{b}" for a, b in map(_capability, _dev.accelerators())})


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """bfloat16 kernels exist on every JAX GPU; PyTorch asks for compute capability 8.0+
    natively, which is what this answers when ``including_emulation`` is False."""
    if not is_available():
        return False
    return including_emulation or _capability(_jax())[0] >= 8


def synchronize(device=None) -> None:
    """Wait until every queued kernel on the device has finished (JAX dispatches
    asynchronously: this blocks on each live array held there)."""
    _sync(_jax(device))


def _sync(jax_device) -> None:
    import jax

    for a in jax.live_arrays():
        if jax_device in a.devices() and not a.is_deleted():
            a.block_until_ready()


def ipc_collect() -> None:
    if not is_available():
        raise _dev.no_cuda()


# ------------------------------------------------------------------ random numbers


def _generator(device=None):
    from .._device import device as _Device
    from ..eager.random import generator_for

    return generator_for(_Device("cuda", _index(device)))


def _lazy(fn):
    """PyTorch defers seeding calls until CUDA starts: without a GPU they do nothing."""
    if is_available():
        fn()


def manual_seed(seed) -> None:
    """Seed the current GPU's generator."""
    seed = int(seed)
    _lazy(lambda: _generator().manual_seed(seed))


def manual_seed_all(seed) -> None:
    seed = int(seed)
    _lazy(lambda: [_generator(i).manual_seed(seed) for i in range(device_count())])


def seed() -> None:
    """Seed the current GPU's generator from the OS's entropy."""
    _lazy(lambda: _generator().seed())


def seed_all() -> None:
    """Seed every GPU's generator with one seed from the OS's entropy."""
    def run():
        s = _generator(0).seed()
        for i in range(1, device_count()):
            _generator(i).manual_seed(s)

    _lazy(run)


def initial_seed() -> int:
    return _generator().initial_seed()


def get_rng_state(device="cuda"):
    return _generator(device).get_state()


def set_rng_state(new_state, device="cuda") -> None:
    _generator(device).set_state(new_state)


def get_rng_state_all() -> list:
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states) -> None:
    for i, s in enumerate(new_states):
        set_rng_state(s, i)
