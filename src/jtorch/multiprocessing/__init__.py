"""torch.multiprocessing: Python's multiprocessing, with tensors that travel by shared
memory (``share_memory_``; a tensor put on a queue or passed to a child moves its storage to
shared memory, and the receiver maps the same memory) and ``spawn``/``start_processes``
with PyTorch's error propagation.

Differences from PyTorch: the default start method is "spawn" (PyTorch's Linux default is
"fork", which JAX does not survive: it is multithreaded); ``set_start_method`` still
chooses. CUDA tensors are sent by value (there is no CUDA IPC in JAX).
"""

from __future__ import annotations

import multiprocessing
from multiprocessing import *  # noqa: F403 - torch.multiprocessing re-exports it all

from ..eager.shared import get_sharing_strategy as get_sharing_strategy
from ..eager.shared import init_reductions
from ..eager.shared import set_sharing_strategy as _set
from .spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           "ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "SpawnContext", "spawn", "start_processes",
           *multiprocessing.__all__]

_ALL_STRATEGIES = {"file_descriptor", "file_system"} if hasattr(__import__("os"),
                                                               "memfd_create") else \
    {"file_system"}


def set_sharing_strategy(new_strategy: str) -> None:
    """How new shared storages are made: "file_descriptor" (an anonymous memory file whose
    descriptor is passed) or "file_system" (a named POSIX shared-memory segment)."""
    if new_strategy not in _ALL_STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{_ALL_STRATEGIES}")
    _set(new_strategy)


def get_all_sharing_strategies() -> set:
    return _ALL_STRATEGIES


def _default_to_spawn() -> None:
    """Make "spawn" the start method used when the program never chose one."""
    default = multiprocessing.context._default_context
    if default._actual_context is None:
        default._default_context = multiprocessing.get_context("spawn")


_default_to_spawn()
init_reductions()
