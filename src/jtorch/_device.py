"""torch.device: a (type, index) pair, and its mapping onto JAX devices.

'cuda:N' means the N-th local device of JAX's GPU backend, 'cpu' JAX's first CPU device.
A tensor's device is read off its JAX array, so it is where the data really is. Where
JAX has no GPU, asking for a CUDA tensor raises what PyTorch's CPU build raises, so
scripts fail (or branch on ``torch.cuda.is_available()``) exactly as they would there.

Differences from PyTorch: importing jtorch makes the CPU JAX's default device
(``jax_default_device``), so arrays made without a device, by jtorch or by JAX code in
the same process, start on the CPU as torch tensors do.
"""

from __future__ import annotations

import functools
import os
import re

_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)
_PATTERN = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")


class device:
    """``torch.device('cpu')``, ``torch.device('cuda:1')``, ``torch.device('cuda', 0)``."""

    __slots__ = ("type", "index", "_prev")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            # A bare ordinal names the current accelerator, which must exist.
            if not gpu_available():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got "
                f"({_type_name(type)}), but expected one of: (torch.device device), "
                f"(str type, int index = -1)"
            )
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise TypeError(
                f"device(): argument 'index' (position 2) must be int, not {_type_name(index)}"
            )
        match = _PATTERN.fullmatch(type)
        if match is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        name, idx = match.groups()
        if name not in _TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_TYPES)} device type at start of device string: "
                f"{type}"
            )
        if idx is not None:
            if index is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = name, index

    def __repr__(self) -> str:
        idx = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{idx})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        # Like torch, a device never equals a string: compare ``str(d)`` for that.
        if not isinstance(other, device):
            return NotImplemented
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        """``with torch.device('cuda'):`` factories inside allocate there."""
        return _enter(self)

    def __exit__(self, *exc):
        _exit(self)


def _type_name(x) -> str:
    return "NoneType" if x is None else type(x).__name__


class _Placement:
    """What the dispatch layer must do besides running kernels (read there per op call).

    ``active`` turns on once a tensor is first placed on an accelerator: only then can two
    operands sit on different devices, so CPU-only programs pay nothing for the check.
    ``blocking`` is ``CUDA_LAUNCH_BLOCKING=1``, read once at import: every kernel's result
    is waited for before the op returns.
    """

    active = False
    blocking = os.environ.get("CUDA_LAUNCH_BLOCKING", "0") not in ("", "0")


PLACEMENT = _Placement


def _cpu_by_default() -> None:
    """Arrays made without a device go to the CPU, as PyTorch's tensors do (JAX's default
    is the GPU where there is one). A platform name, so JAX's backends stay unstarted."""
    import jax

    jax.config.update("jax_default_device", "cpu")


_cpu_by_default()
_EMULATE = os.environ.get("JTORCH_EMULATE_CUDA", "0") not in ("", "0")


@functools.cache
def accelerators() -> tuple:
    """The JAX devices ``cuda:0``, ``cuda:1``, ... map onto, in order (empty without a GPU).

    ``JTORCH_EMULATE_CUDA=1`` is a testing aid: with
    ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` it maps ``cuda:i`` onto JAX CPU
    device ``i + 1`` (``cpu`` stays on device 0), so every CUDA code path (placement,
    cross-device errors, streams, events, DataParallel) runs on a machine without a GPU.
    """
    import jax

    if _EMULATE:
        return tuple(jax.local_devices(backend="cpu")[1:])
    try:
        return tuple(jax.local_devices(backend="gpu"))
    except RuntimeError:
        return ()


def gpu_available() -> bool:
    return bool(accelerators())


@functools.cache
def cpu_device():
    import jax

    return jax.local_devices(backend="cpu")[0]


@functools.cache
def _index_of() -> dict:
    return {d: i for i, d in enumerate(accelerators())}


@functools.cache
def _cuda(index: int) -> device:
    return device("cuda", index)


def device_of(value) -> device:
    """The torch device holding the JAX array ``value`` (a sharded array: its first shard's)."""
    if not PLACEMENT.active:
        return CPU  # nothing was ever placed on an accelerator
    try:
        devices = value.devices()
    except Exception:  # a tracer: placement belongs to the program being traced
        return CPU
    if len(devices) != 1:  # sharded or replicated: name it by its lowest device
        devices = sorted(devices, key=lambda d: d.id)[:1]
    for d in devices:
        i = _index_of().get(d)
        return CPU if i is None else _cuda(i)
    return CPU


def no_cuda() -> AssertionError:
    return AssertionError("Torch not compiled with CUDA enabled")


_current = [0]  # torch.cuda.current_device()


def current_index() -> int:
    if not gpu_available():
        raise no_cuda()
    return _current[0]


def set_current_index(index: int) -> None:
    _current[0] = index


def resolve(dev: device) -> device:
    """``dev`` with the current CUDA device filled in for a bare 'cuda'; checks it exists."""
    if dev.type == "cpu":
        return CPU if dev.index is None else dev
    jax_device(dev)
    if dev.type == "cuda" and dev.index is None:
        return _cuda(_current[0])
    return dev


def jax_device(dev: device):
    """The JAX device a torch device lives on; torch's CPU-build errors where it has none."""
    if dev.type == "cpu":
        return cpu_device()
    if dev.type == "cuda":
        gpus = accelerators()
        if not gpus:
            raise no_cuda()
        index = _current[0] if dev.index is None else dev.index
        if index >= len(gpus):
            raise RuntimeError(
                "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously "
                "reported at some other API call, so the stacktrace below might be incorrect."
            )
        PLACEMENT.active = True
        return gpus[index]
    if dev.type == "meta":
        raise NotImplementedError("jtorch has no meta tensors: JAX arrays always hold data")
    raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")


CPU = device("cpu")
_default: list = [None]  # torch.set_default_device; None: the CPU


def set_default_device(device_) -> None:
    """torch.set_default_device: where factories allocate when given no ``device=``
    (checked when used, as in PyTorch)."""
    dev = None if device_ is None else device(device_)
    _default[0] = None if dev == CPU else dev


def get_default_device() -> device:
    return CPU if _default[0] is None else resolve(_default[0])


def default_device() -> device | None:
    """The default device for a factory (None: the CPU), resolved and checked."""
    return None if _default[0] is None else resolve(_default[0])


def _enter(self):
    self._prev = _default[0]
    set_default_device(self)
    return self


def _exit(self, *exc):
    _default[0] = self._prev
