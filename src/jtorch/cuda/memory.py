"""Memory statistics of a CUDA device, from JAX's allocator (``jax.Device.memory_stats``).

``memory_allocated`` is the bytes held by live buffers (``bytes_in_use``), and
``memory_reserved`` what the allocator's pool holds (``pool_bytes`` / ``bytes_reserved``,
else the allocated bytes). A device whose backend reports no statistics (the emulated
devices of ``JTORCH_EMULATE_CUDA``) is measured by summing its live arrays.

Differences from PyTorch: JAX cannot reset its own peak counters, so after
``reset_peak_memory_stats`` the peak is the allocator's when that exceeds the peak seen
before the reset, else the largest value observed by these functions since. JAX offers no
way to return pooled memory to the driver: ``empty_cache`` frees what is unreferenced
(a garbage collection) and keeps the pool.
"""

from __future__ import annotations

import collections
import gc

from .. import _device as _dev

__all__ = ["memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "memory_stats", "memory_summary", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "empty_cache", "mem_get_info"]

# Per device index: {"allocated": (peak at reset, peak observed since), "reserved": ...}
_resets: dict = {}


def _jax(device):
    from . import _index

    return _dev.accelerators()[_index(device)], _index(device)


def _raw(d) -> dict:
    stats = d.memory_stats()
    if stats:
        return stats
    import jax

    used = sum(s.data.nbytes for a in jax.live_arrays() if not a.is_deleted()
               for s in a.addressable_shards if s.device == d)
    return {"bytes_in_use": used, "peak_bytes_in_use": used, "num_allocs": 0}


def _current(stats: dict, kind: str) -> int:
    if kind == "allocated":
        return int(stats.get("bytes_in_use", 0))
    return int(stats.get("pool_bytes", stats.get("bytes_reserved", stats.get("bytes_in_use", 0))))


def _peak(stats: dict, kind: str, index: int) -> int:
    cur = _current(stats, kind)
    if kind == "allocated":
        raw = int(stats.get("peak_bytes_in_use", cur))
    else:
        raw = int(stats.get("peak_pool_bytes", stats.get("peak_bytes_reserved", cur)))
    reset = _resets.get(index, {}).get(kind)
    if reset is None:
        return max(raw, cur)
    at_reset, seen = reset
    peak = raw if raw > at_reset else max(seen, cur)
    _resets[index][kind] = (at_reset, max(seen, cur))
    return peak


def _stat(device, kind: str, peak: bool) -> int:
    if not _dev.gpu_available():
        return 0  # PyTorch's CPU build answers 0 before CUDA is initialized
    d, index = _jax(device)
    stats = _raw(d)
    return _peak(stats, kind, index) if peak else _current(stats, kind)


def memory_allocated(device=None) -> int:
    return _stat(device, "allocated", False)


def max_memory_allocated(device=None) -> int:
    return _stat(device, "allocated", True)


def memory_reserved(device=None) -> int:
    return _stat(device, "reserved", False)


def max_memory_reserved(device=None) -> int:
    return _stat(device, "reserved", True)


def reset_peak_memory_stats(device=None) -> None:
    if not _dev.gpu_available():
        raise _dev.no_cuda()
    d, index = _jax(device)
    stats = _raw(d)
    _resets[index] = {
        "allocated": (int(stats.get("peak_bytes_in_use", 0)), _current(stats, "allocated")),
        "reserved": (int(stats.get("peak_pool_bytes", stats.get("peak_bytes_reserved", 0))),
                     _current(stats, "reserved")),
    }


reset_max_memory_allocated = reset_peak_memory_stats


def memory_stats(device=None) -> collections.OrderedDict:
    """PyTorch's key names for what JAX reports (``allocated_bytes.all.current``, ...), plus
    the allocator's own statistics under ``jax.<name>``."""
    if not _dev.gpu_available():
        return collections.OrderedDict()
    d, index = _jax(device)
    stats = _raw(d)
    out = {
        "allocated_bytes.all.current": _current(stats, "allocated"),
        "allocated_bytes.all.peak": _peak(stats, "allocated", index),
        "reserved_bytes.all.current": _current(stats, "reserved"),
        "reserved_bytes.all.peak": _peak(stats, "reserved", index),
        "active_bytes.all.current": _current(stats, "allocated"),
        "num_alloc_retries": 0,
        "num_ooms": 0,
        "allocation.all.allocated": int(stats.get("num_allocs", 0)),
    }
    out.update({f"jax.{k}": v for k, v in stats.items()})
    return collections.OrderedDict(sorted(out.items()))


def memory_summary(device=None, abbreviated: bool = False) -> str:
    stats = memory_stats(device) if _dev.gpu_available() else None
    if stats is None:
        raise _dev.no_cuda()
    rows = [("Allocated memory", "allocated_bytes"), ("Reserved memory", "reserved_bytes")]
    line = "|" + "=" * 75 + "|"
    out = [line, "|{:^75}|".format("jtorch CUDA memory summary, device ID "
                                   f"{_jax(device)[1]}"), line,
           "|        Metric         | Cur Usage  | Peak Usage |" + " " * 24 + "|", line]
    for name, key in rows:
        cur, peak = stats[f"{key}.all.current"], stats[f"{key}.all.peak"]
        out.append(f"| {name:<22}| {_fmt(cur):>10} | {_fmt(peak):>10} |" + " " * 24 + "|")
    out.append(line)
    return "\n".join(out) + "\n"


def _fmt(n: int) -> str:
    for unit in ("B ", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B " else f"{n:.2f} {unit}"
        n /= 1024
    return str(n)


def empty_cache() -> None:
    if _dev.gpu_available():
        gc.collect()


def mem_get_info(device=None) -> tuple[int, int]:
    """(free, total) bytes of the device, as JAX's allocator sees them."""
    if not _dev.gpu_available():
        raise _dev.no_cuda()
    d, _ = _jax(device)
    stats = _raw(d)
    total = int(stats.get("bytes_limit", 0))
    return max(total - _current(stats, "allocated"), 0), total
