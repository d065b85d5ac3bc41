"""Collectives as XLA programs over a mesh with one device per rank.

Each rank wraps its local tensor as its shard of a global array of shape
``(group size, *shape)`` (``jax.make_array_from_single_device_arrays``), and runs one
jitted program whose output sharding says where the result goes: replicated (all-reduce,
all-gather, broadcast) or split along the rank axis (reduce-scatter, scatter). XLA turns
that into the collective. Programs are cached by (kind, mesh, shape, dtype, op).
"""

from __future__ import annotations

import functools
import pickle

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

__all__ = ["Work", "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor",
           "reduce_scatter", "reduce_scatter_tensor", "reduce", "gather", "scatter", "barrier",
           "all_gather_object", "broadcast_object_list"]


class Work:
    """What ``async_op=True`` returns: the queued result; ``wait()`` blocks until it is done."""

    def __init__(self, tensors=()):
        self._tensors = list(tensors)

    def wait(self, timeout=None) -> bool:
        for t in self._tensors:
            jax.block_until_ready(t._value)
        return True

    def is_completed(self) -> bool:
        return all(t._value.is_ready() for t in self._tensors)

    def is_success(self) -> bool:
        return True

    def result(self) -> list:
        return self._tensors

    def synchronize(self) -> None:
        self.wait()


def _group(group):
    from . import GroupMember, _resolve

    g = _resolve(group)
    return None if g is GroupMember.NON_GROUP_MEMBER else g


@functools.cache
def _mesh(ranks: tuple, platform: str) -> Mesh:
    """One device per rank: each process's first device of ``platform``."""
    first: dict = {}
    for d in sorted(jax.devices(platform), key=lambda d: d.id):
        first.setdefault(d.process_index, d)
    return Mesh(np.array([first[r] for r in ranks]), ("r",))


def _platform(value) -> str:
    d = next(iter(value.devices())) if isinstance(value, jax.Array) else None
    return "cpu" if d is None else d.platform


def _stacked(value, g) -> tuple[jax.Array, Mesh]:
    """This rank's ``value`` as its shard of the ``(size, *shape)`` global array."""
    mesh = _mesh(g.ranks, _platform(value))
    mine = mesh.devices.flat[g.rank()]
    shard = jax.device_put(jnp.asarray(value)[None], mine)
    sharding = NamedSharding(mesh, P("r"))
    return jax.make_array_from_single_device_arrays((g.size(), *shard.shape[1:]), sharding,
                                                    [shard]), mesh


def _reduce(x, op, n: int):
    from . import RedOpType

    dtype = x.dtype
    if op is RedOpType.SUM:
        return jnp.sum(x, 0, dtype=dtype)
    if op is RedOpType.AVG:
        return (jnp.sum(x, 0, dtype=dtype) / n).astype(dtype)
    if op is RedOpType.PRODUCT:
        return jnp.prod(x, 0, dtype=dtype)
    if op is RedOpType.MIN:
        return jnp.min(x, 0)
    if op is RedOpType.MAX:
        return jnp.max(x, 0)
    bitwise = {RedOpType.BAND: jnp.bitwise_and, RedOpType.BOR: jnp.bitwise_or,
               RedOpType.BXOR: jnp.bitwise_xor}[op]
    return functools.reduce(bitwise, [x[i] for i in range(n)])


@functools.cache
def _program(kind: str, mesh: Mesh, op=None, index: int = 0):
    n = mesh.size
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("r"))
    fn, out = {
        "all_reduce": (lambda x: _reduce(x, op, n), replicated),
        "all_gather": (lambda x: x, replicated),
        "broadcast": (lambda x: x[index], replicated),
        "reduce_scatter": (lambda x: _reduce(x, op, n), split),
        "scatter": (lambda x: x[index], split),
    }[kind]
    return jax.jit(fn, out_shardings=out)


def _run(kind: str, value, g, op=None, index: int = 0):
    """This rank's piece of the result of collective ``kind`` over ``value``."""
    x, mesh = _stacked(value, g)
    out = _program(kind, mesh, op, index)(x)
    piece = out.addressable_data(0)
    return piece[0] if kind in ("reduce_scatter", "scatter") else piece


def _write(t, value) -> None:
    """Store a collective's result into tensor ``t`` in place (not recorded by autograd,
    as c10d's ops are not), on ``t``'s own device."""
    from ..eager import views

    target = t._value
    if isinstance(target, jax.Array) and target.sharding != value.sharding:
        value = jax.device_put(value, target.sharding)
    views.write(t, value.astype(target.dtype).reshape(t._shape), check=False)


def _check_op(t, op) -> None:
    from . import RedOpType

    if op is RedOpType.AVG and t.dtype._kind < 2:
        from .. import _dtypes as D

        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{D.legacy_name(t.dtype)}")
    if op is RedOpType.PREMUL_SUM:
        raise ValueError("PREMUL_SUM is only available with NCCL")


def _done(async_op: bool, tensors):
    return Work(tensors) if async_op else None


def _src_index(g, src: int, what: str = "broadcast") -> int:
    if src not in g.ranks:
        raise RuntimeError(f"ProcessGroupGloo::{what}: invalid root rank: {src}")
    return g.ranks.index(src)


def all_reduce(tensor, op=None, group=None, async_op: bool = False):
    """Reduce ``tensor`` across the group's ranks, in place on every rank."""
    from . import ReduceOp

    op = ReduceOp.SUM if op is None else op
    g = _group(group)
    if g is None:
        return None
    _check_op(tensor, op)
    _write(tensor, _run("all_reduce", tensor._value, g, op))
    return _done(async_op, [tensor])


def reduce(tensor, dst: int = 0, op=None, group=None, async_op: bool = False, group_dst=None):
    """The reduction lands in ``tensor`` on rank ``dst`` only."""
    from . import ReduceOp, get_rank

    op = ReduceOp.SUM if op is None else op
    g = _group(group)
    if g is None:
        return None
    dst = g.ranks[group_dst] if group_dst is not None else dst
    _src_index(g, dst, "reduce")
    _check_op(tensor, op)
    result = _run("all_reduce", tensor._value, g, op)
    if get_rank() == dst:
        _write(tensor, result)
    return _done(async_op, [tensor])


def broadcast(tensor, src: int = 0, group=None, async_op: bool = False, group_src=None):
    """Rank ``src``'s ``tensor`` copied into ``tensor`` on every rank."""
    g = _group(group)
    if g is None:
        return None
    src = g.ranks[group_src] if group_src is not None else src
    _write(tensor, _run("broadcast", tensor._value, g, index=_src_index(g, src)))
    return _done(async_op, [tensor])


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """Every rank's ``tensor``, into ``tensor_list`` (one entry per rank) on every rank."""
    g = _group(group)
    if g is None:
        return None
    if len(tensor_list) != g.size():
        raise RuntimeError(f"ProcessGroupGloo::allgather: invalid output tensor list at index "
                           f"0 (expected length {g.size()}, got {len(tensor_list)})")
    gathered = _run("all_gather", tensor._value, g)
    for i, out in enumerate(tensor_list):
        if out._shape != tensor._shape:
            raise RuntimeError("ProcessGroupGloo::allgather: invalid tensor size at index "
                               f"{i} (expected {list(tensor._shape)}, got {list(out._shape)})")
        _write(out, gathered[i])
    return _done(async_op, tensor_list)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Every rank's input concatenated (or stacked) along dim 0 into ``output_tensor``."""
    g = _group(group)
    if g is None:
        return None
    n, shape = g.size(), input_tensor._shape
    concat = ((shape[0] * n, *shape[1:]) if shape else (n,))
    if output_tensor._shape not in (concat, (n, *shape)):
        raise ValueError("output tensor size must be equal to world_size times input tensor "
                         "size")
    _write(output_tensor, _run("all_gather", input_tensor._value, g))
    return _done(async_op, [output_tensor])


def reduce_scatter_tensor(output, input, op=None, group=None, async_op: bool = False):
    """Reduce ``input`` (dim 0 = size x the output's) across ranks; rank i keeps block i."""
    from . import ReduceOp

    op = ReduceOp.SUM if op is None else op
    g = _group(group)
    if g is None:
        return None
    n = g.size()
    if input.numel() != output.numel() * n:
        raise ValueError("input tensor must be the same size as output size times world size")
    _check_op(output, op)
    blocks = input._value.reshape((n, *output._shape))
    _write(output, _run("reduce_scatter", blocks, g, op))
    return _done(async_op, [output])


def reduce_scatter(output, input_list, op=None, group=None, async_op: bool = False):
    """Reduce ``input_list[i]`` across ranks into ``output`` on rank i."""
    from . import ReduceOp

    op = ReduceOp.SUM if op is None else op
    g = _group(group)
    if g is None:
        return None
    if len(input_list) != g.size():
        raise RuntimeError(f"ProcessGroupGloo::reduce_scatter: invalid input tensor list "
                           f"(expected length {g.size()}, got {len(input_list)})")
    _check_op(output, op)
    blocks = jnp.stack([t._value for t in input_list])
    _write(output, _run("reduce_scatter", blocks, g, op))
    return _done(async_op, [output])


def gather(tensor, gather_list=None, dst: int = 0, group=None, async_op: bool = False,
           group_dst=None):
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst``."""
    from . import get_rank

    g = _group(group)
    if g is None:
        return None
    dst = g.ranks[group_dst] if group_dst is not None else dst
    _src_index(g, dst, "gather")
    mine = get_rank() == dst
    if not mine and gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    if mine and (gather_list is None or len(gather_list) != g.size()):
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    gathered = _run("all_gather", tensor._value, g)
    for i, out in enumerate(gather_list if mine else ()):
        _write(out, gathered[i])
    return _done(async_op, list(gather_list or ()))


def scatter(tensor, scatter_list=None, src: int = 0, group=None, async_op: bool = False,
            group_src=None):
    """``scatter_list[i]`` of rank ``src`` into ``tensor`` on rank i."""
    from . import get_rank

    g = _group(group)
    if g is None:
        return None
    src = g.ranks[group_src] if group_src is not None else src
    index = _src_index(g, src, "scatter")
    if get_rank() == src:
        if scatter_list is None or len(scatter_list) != g.size():
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        blocks = jnp.stack([t._value for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source "
                             "ranks.")
        blocks = jnp.zeros((g.size(), *tensor._shape), tensor.dtype.np)
    _write(tensor, _run("scatter", blocks, g, index=index))
    return _done(async_op, [tensor])


def barrier(group=None, async_op: bool = False, device_ids=None):
    """Return once every rank of the group has reached the barrier."""
    from . import ReduceOp

    g = _group(group)
    if g is None:
        return None
    jax.block_until_ready(_run("all_reduce", np.zeros((1,), np.int32), g, ReduceOp.SUM))
    return _done(async_op, [])


def _gather_bytes(obj, g) -> list[bytes]:
    from . import ReduceOp

    data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8)
    sizes = np.zeros((g.size(),), np.int64)
    sizes[g.rank()] = data.size
    sizes = np.asarray(_run("all_reduce", sizes, g, ReduceOp.SUM))
    padded = np.zeros((int(sizes.max()),), np.uint8)
    padded[: data.size] = data
    rows = np.asarray(_run("all_gather", padded, g))
    return [rows[i, : sizes[i]].tobytes() for i in range(g.size())]


def all_gather_object(object_list, obj, group=None) -> None:
    """Every rank's picklable ``obj`` into ``object_list`` on every rank."""
    g = _group(group)
    if g is None:
        return
    for i, raw in enumerate(_gather_bytes(obj, g)):
        object_list[i] = pickle.loads(raw)


def broadcast_object_list(object_list, src: int = 0, group=None, device=None,
                          group_src=None) -> None:
    """Rank ``src``'s ``object_list`` entries into ``object_list`` on every rank."""
    g = _group(group)
    if g is None:
        return
    src = g.ranks[group_src] if group_src is not None else src
    raw = _gather_bytes(list(object_list), g)[_src_index(g, src)]
    object_list[:] = pickle.loads(raw)
