"""torch.distributed on JAX's distributed runtime.

A rank is a JAX process: ``init_process_group`` with more than one process starts
``jax.distributed.initialize`` (coordinator from ``MASTER_ADDR``/``MASTER_PORT`` or a
``tcp://`` address, ``process_id`` = rank), and every collective is one small XLA
program over a mesh holding one device per rank, whose sharded input makes XLA insert
the all-reduce / all-gather / ... (see ``_collectives.py``). CPU tensors meet on JAX's
CPU devices (gloo collectives between processes), CUDA tensors on the GPUs, whatever
the ``backend`` name says.

Differences from PyTorch: ``init_process_group`` with a world size above one must run
before JAX starts its backends (before the first tensor is made): JAX cannot join a
distributed runtime later. Each rank's collectives run on its first local device of the
tensor's platform (a tensor elsewhere is moved there and back). ``file://`` rendezvous,
``send``/``recv`` and ``all_to_all`` are not available. Asynchronous work
(``async_op=True``) is JAX's asynchronous dispatch: ``Work.wait()`` blocks on the result.
"""

from __future__ import annotations

import enum
import os
import urllib.parse

from ._collectives import (
    Work,
    all_gather,
    all_gather_into_tensor,
    all_gather_object,
    all_reduce,
    barrier,
    broadcast,
    broadcast_object_list,
    gather,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
)

__all__ = [
    "is_available", "is_initialized", "init_process_group", "destroy_process_group",
    "get_rank", "get_world_size", "get_backend", "new_group", "Backend", "ReduceOp",
    "ProcessGroup", "GroupMember", "group", "Work", "barrier", "all_reduce", "broadcast",
    "all_gather", "all_gather_into_tensor", "reduce_scatter", "reduce_scatter_tensor",
    "reduce", "gather", "scatter", "all_gather_object", "broadcast_object_list",
    "is_gloo_available", "is_nccl_available", "is_mpi_available", "is_torchelastic_launched",
    "get_process_group_ranks", "get_global_rank", "get_group_rank",
]

_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class Backend(str):
    """A backend name (``Backend.GLOO == "gloo"``); all of them run on XLA collectives."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: "
                             f"{type(name)}")
        value = name.lower()
        if value == "undefined":
            raise ValueError(f"Invalid backend: '{name}'")
        return value  # PyTorch's Backend(...) is the plain lowercase string


class RedOpType(enum.Enum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"


class ReduceOp:
    """``dist.ReduceOp.SUM`` & co."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


class ProcessGroup:
    """A set of ranks (global rank numbers, in group order) that run collectives together."""

    def __init__(self, ranks, backend: str, rank: int):
        self.ranks = tuple(ranks)
        self._backend = backend
        self._global_rank = rank

    def rank(self) -> int:
        return self.ranks.index(self._global_rank) if self._global_rank in self.ranks else -1

    def size(self) -> int:
        return len(self.ranks)

    def name(self) -> str:
        return self._backend

    def __repr__(self) -> str:
        return f"<jtorch.distributed.ProcessGroup ranks={list(self.ranks)}>"


class GroupMember:
    WORLD = None  # set by init_process_group
    NON_GROUP_MEMBER = -100


class _Group:
    @property
    def WORLD(self):  # noqa: N802 - PyTorch's name
        return GroupMember.WORLD


group = _Group()
_jax_started = [False]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return GroupMember.WORLD is not None


def is_gloo_available() -> bool:
    return True


def is_nccl_available() -> bool:
    from .._device import gpu_available

    return gpu_available()


def is_mpi_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def _env(name: str) -> str:
    value = os.environ.get(name)
    if value is None:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: "
                         f"environment variable {name} expected, but not set")
    return value


def _rendezvous(init_method: str, world_size: int, rank: int):
    """(coordinator address, world size, rank) from ``env://`` or ``tcp://host:port``."""
    url = urllib.parse.urlparse(init_method)
    query = dict(urllib.parse.parse_qsl(url.query))
    if world_size < 0:
        world_size = int(query.get("world_size", -1))
    if rank < 0:
        rank = int(query.get("rank", -1))
    if url.scheme == "env":
        if world_size < 0:
            world_size = int(_env("WORLD_SIZE"))
        if rank < 0:
            rank = int(_env("RANK"))
        address = f"{_env('MASTER_ADDR')}:{int(_env('MASTER_PORT'))}"
    elif url.scheme == "tcp":
        if world_size < 0 or rank < 0:
            raise ValueError("rank and world_size are required for a tcp:// init_method")
        address = f"{url.hostname}:{url.port}"
    elif url.scheme == "file" and world_size == 1:
        address = None
    else:
        raise ValueError(f"jtorch.distributed supports env:// and tcp:// rendezvous (JAX's "
                         f"coordinator service), not {init_method!r}")
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, "
                         f"{world_size - 1}]")
    return address, world_size, rank


def init_process_group(backend=None, init_method=None, timeout=None, world_size: int = -1,
                       rank: int = -1, store=None, group_name: str = "", pg_options=None,
                       device_id=None) -> None:
    """Join the default group: rank ``rank`` of ``world_size`` JAX processes."""
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None:
        raise ValueError("jtorch.distributed rendezvous through JAX's coordinator: pass "
                         "init_method (env:// or tcp://), not a store")
    backend = Backend(backend) if backend is not None else Backend(
        "nccl" if is_nccl_available() else "gloo")
    address, world_size, rank = _rendezvous(init_method or "env://", world_size, rank)
    if world_size > 1:
        _start_jax(address, world_size, rank, timeout)
    GroupMember.WORLD = ProcessGroup(range(world_size), backend, rank)


def _start_jax(address: str, world_size: int, rank: int, timeout) -> None:
    import jax
    from jax._src import xla_bridge

    if xla_bridge.backends_are_initialized():
        raise RuntimeError(
            "init_process_group(world_size > 1) must run before the first tensor is created: "
            "jax.distributed.initialize cannot join a runtime once JAX's backends are up"
        )
    kwargs = {}
    if timeout is not None:
        kwargs["initialization_timeout"] = int(timeout.total_seconds())
    jax.distributed.initialize(coordinator_address=address, num_processes=world_size,
                               process_id=rank, **kwargs)
    _jax_started[0] = True


def destroy_process_group(group=None) -> None:
    if GroupMember.WORLD is None:
        raise AssertionError("Process group cannot be None")
    if group is None or group is GroupMember.WORLD:
        GroupMember.WORLD = None
        if _jax_started[0]:
            import jax

            jax.distributed.shutdown()
            _jax_started[0] = False


def _world() -> ProcessGroup:
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INIT)
    return GroupMember.WORLD


def _resolve(group) -> ProcessGroup:
    return _world() if group is None else group


def get_rank(group=None) -> int:
    g = _resolve(group)
    return -1 if g is GroupMember.NON_GROUP_MEMBER else g.rank()


def get_world_size(group=None) -> int:
    g = _resolve(group)
    return -1 if g is GroupMember.NON_GROUP_MEMBER else g.size()


def get_backend(group=None) -> str:
    return _resolve(group)._backend


def get_process_group_ranks(group) -> list[int]:
    return list(_resolve(group).ranks)


def get_global_rank(group, group_rank: int) -> int:
    return _resolve(group).ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    ranks = _resolve(group).ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization: bool = False, group_desc=None, device_id=None):
    """A subgroup; every rank must call this, and non-members get ``NON_GROUP_MEMBER``."""
    world = _world()
    ranks = sorted(world.ranks if ranks is None else ranks)
    if len(ranks) > world.size():
        raise ValueError("the new group's world size should be less or equal to the world "
                         "size set by init_process_group")
    for r in ranks:
        if not 0 <= r < world.size():
            raise ValueError("The new group's rank should be within the world_size set by "
                             "init_process_group")
    g = ProcessGroup(ranks, Backend(backend) if backend else world._backend,
                     world._global_rank)
    return g if world._global_rank in ranks else GroupMember.NON_GROUP_MEMBER
