"""``torch.cpu``: the CPU as a device module, for device-agnostic code.

Streams and events are trivial, as in PyTorch. ``synchronize`` waits for the work JAX has
queued on the CPU (jtorch's CPU ops return before they finish, unlike PyTorch's).
``get_capabilities`` reports what the OS tells (architecture, core count, name, the x86
instruction-set flags of /proc/cpuinfo); keys it cannot determine are left out.
"""

from __future__ import annotations

import os
import platform

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream",
           "stream", "set_device", "device_count", "Stream", "StreamContext", "Event",
           "get_capabilities"]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def synchronize(device=None) -> None:
    """Wait until every kernel JAX queued on the CPU has finished."""
    import jax

    cpu = jax.devices("cpu")[0]
    for a in jax.live_arrays():
        if cpu in a.devices() and not a.is_deleted():
            a.block_until_ready()


def current_device() -> str:
    return "cpu"


def device_count() -> int:
    return 1


def set_device(device) -> None:
    """Nothing to select: there is one CPU device."""


class Stream:
    """The CPU's one stream (exists for device-agnostic code)."""

    def __init__(self, priority: int = -1) -> None:
        pass

    def wait_stream(self, stream) -> None:
        pass

    def record_event(self) -> None:
        pass

    def wait_event(self, event) -> None:
        pass


class Event:
    def query(self) -> bool:
        return True

    def record(self, stream=None) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass


_DEFAULT = Stream()


def current_stream(device=None) -> Stream:
    return _DEFAULT


class StreamContext:
    """``with torch.cpu.stream(s):`` (the CPU has one stream, so nothing changes)."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc) -> bool:
        return False


def stream(stream) -> StreamContext:
    return StreamContext(stream)


_FLAGS = {"sse": "sse", "sse2": "sse2", "sse3": "pni", "ssse3": "ssse3", "sse4_1": "sse4_1",
          "sse4_2": "sse4_2", "sse4a": "sse4a", "avx": "avx", "avx2": "avx2", "fma3": "fma",
          "fma4": "fma4", "f16c": "f16c", "popcnt": "popcnt", "lzcnt": "abm", "bmi": "bmi1",
          "bmi2": "bmi2", "aes": "aes", "sha": "sha_ni", "clflush": "clflush",
          "clflushopt": "clflushopt", "clwb": "clwb", "avx512_f": "avx512f",
          "avx512_bw": "avx512bw", "avx512_cd": "avx512cd", "avx512_dq": "avx512dq",
          "avx512_vl": "avx512vl", "avx512_vnni": "avx512_vnni", "avx512_bf16": "avx512_bf16",
          "avx_vnni": "avx_vnni", "amx_bf16": "amx_bf16", "amx_int8": "amx_int8",
          "amx_tile": "amx_tile"}


def get_capabilities() -> dict:
    """What the OS reports about the CPU (see the module docstring)."""
    caps = {"architecture": platform.machine(), "num_logical_cores": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return caps
    fields = dict(line.split(":", 1) for line in info.splitlines()[:40] if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    if "model name" in fields:
        caps["cpu_name"] = fields["model name"]
    flags = set(fields.get("flags", "").split())
    if flags:
        caps.update({name: flag in flags for name, flag in _FLAGS.items()})
    return caps
