"""torch.random: the global generator's state and ``fork_rng``."""

from __future__ import annotations

import contextlib
import warnings

from .eager.random import (
    Generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng",
           "thread_safe_generator"]

_warned = [False]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Within the block, random draws do not advance the CPU (and ``device_type``'s)
    generators: their states are restored on exit."""
    import jtorch

    if device_type == "meta" or not enabled:
        yield
        return
    device_type = device_type or "cuda"
    device_mod = getattr(jtorch, device_type, None)
    if device_mod is None:
        raise RuntimeError(f"torch has no module of `{device_type}`, you should register a "
                           "module by `torch._register_device_module`.")
    if devices is None:
        count = device_mod.device_count()
        if count > 1 and not _warned[0]:
            warnings.warn(f"{device_type.upper()} reports that you have {count} available "
                          f"devices, and you have used {_caller} without explicitly specifying "
                          f"which devices are being used. For safety, we initialize *every* "
                          f"{device_type.upper()} device by default.", stacklevel=2)
            _warned[0] = True
        devices = list(range(count))
    else:
        devices = list(devices)
    cpu_state = get_rng_state()
    device_states = [device_mod.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, state in zip(devices, device_states, strict=True):
            device_mod.set_rng_state(state, d)


def thread_safe_generator() -> Generator | None:
    """The generator of the current DataLoader thread worker; None elsewhere (jtorch's
    workers are processes, so always None)."""
    return None
