"""One module call spread over several JAX devices as a single SPMD program.

PyTorch's DataParallel scatters the batch, copies the module onto every device, runs the
copies in threads and gathers the outputs. On JAX the same thing is one replica whose
parameters are *replicated* over a device mesh and whose inputs are *split* along the
batch dimension: every kernel the module runs is then compiled by XLA for the whole mesh
(each device works on its slice; reductions over the batch become collectives), and the
gradient of a replicated parameter comes back already summed over the devices.

The moves (scatter, replicate, gather) are differentiable ``jax.device_put``s, so the
gradients land in the original parameters on their own device. Buffers are replicated
too; values the module writes into them (BatchNorm's running statistics) are copied back
into the original buffers after the call. Under DataParallel, BatchNorm in the replica
normalizes each device's chunk with its own statistics, as PyTorch's per-device copies do.
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from ... import _device as _dev
from ...eager import views
from ...eager.tensor import Tensor, wrap
from ...eager.transfer import transfer


def candidate_devices() -> list:
    """The devices data parallelism spreads over: the GPUs, else the local CPU devices."""
    gpus = _dev.accelerators()
    return list(gpus) if gpus else jax.local_devices(backend="cpu")


def jax_devices_for(device_ids) -> list:
    """``device_ids`` (ints, 'cuda:N' strings or torch devices) as JAX devices."""
    pool = candidate_devices()
    if device_ids is None:
        return pool
    out = []
    for d in device_ids:
        if isinstance(d, int):
            out.append(pool[d])
        else:
            out.append(_dev.jax_device(_dev.resolve(_dev.device(d))))
    return out


def _batch(inputs, kwargs, dim: int):
    for t in _tensors((inputs, kwargs)):
        if t.dim() > dim:
            return t._shape[dim]
    return None


def mesh_for(devices: list, inputs, kwargs, dim: int) -> Mesh | None:
    """A mesh over as many of ``devices`` as split the batch evenly (None: one device)."""
    batch = _batch(inputs, kwargs, dim)
    if batch is None:
        return None
    n = max(k for k in range(1, len(devices) + 1) if batch % k == 0)
    return Mesh(np.array(devices[:n]), ("batch",)) if n > 1 else None


def _tensors(obj):
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, list | tuple):
        for o in obj:
            yield from _tensors(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors(o)


def _map(obj, fn):
    if isinstance(obj, Tensor):
        return fn(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_map(o, fn) for o in obj))
    if isinstance(obj, list | tuple):
        return type(obj)(_map(o, fn) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _map(v, fn)) for k, v in obj.items())
    return obj


def scatter(obj, mesh: Mesh, dim: int):
    """Tensors split along ``dim`` over the mesh (replicated when they have no such dim)."""
    n = mesh.size

    def split(t):
        if t.dim() > dim and t._shape[dim] % n == 0:
            spec = P(*([None] * dim), "batch")
            return transfer(t, NamedSharding(mesh, spec))
        return transfer(t, NamedSharding(mesh, P()))

    return _map(obj, split)


def gather(obj, device):
    return _map(obj, lambda t: transfer(t, device))


def replicate(module, mesh: Mesh, chunks=None):
    """A replica of ``module`` whose parameters and buffers are replicated over ``mesh``;
    returns it with the (original, replica module, name, first value) of each buffer."""
    everywhere = NamedSharding(mesh, P())
    params: dict = {}
    buffers: list = []

    def rep(m):
        r = m._replicate_for_data_parallel()
        if chunks is not None and hasattr(type(m), "_replica_chunks"):  # BatchNorm
            object.__setattr__(r, "_replica_chunks", chunks)
        for name, p in m._parameters.items():
            if p is None:
                object.__setattr__(r, name, None)
                continue
            if id(p) not in params:
                params[id(p)] = transfer(p, everywhere)
            object.__setattr__(r, name, params[id(p)])
        for name, b in m._buffers.items():
            if b is not None:
                copy = wrap(jax.device_put(b._value, everywhere))
                r._buffers[name] = copy
                buffers.append((b, r, name, copy._storage.value))
        for name, child in m._modules.items():
            r._modules[name] = None if child is None else rep(child)
        return r

    return rep(module), buffers


def write_back(buffers) -> None:
    """Buffers the replica changed (in place or rebound) are copied into the originals."""
    for orig, r, name, first in buffers:
        now = r._buffers.get(name)
        # BatchNorm writes running statistics without a version bump (as PyTorch), so a
        # change is a new value in the storage.
        if now is None or now._value is first:
            continue
        value = now._value
        target = orig._value
        views.write(orig, jax.device_put(value, target.sharding).astype(target.dtype),
                    check=False)


def run(module, mesh: Mesh, inputs, kwargs, output_device, dim: int = 0,
        per_device_stats: bool = False):
    """``module(*inputs, **kwargs)`` as one SPMD program over ``mesh``; with
    ``per_device_stats`` (DataParallel) BatchNorm normalizes each device's chunk alone,
    else (DistributedDataParallel: one rank) the whole batch."""
    replica, buffers = replicate(module, mesh, (mesh.size, dim) if per_device_stats else None)
    out = replica(*scatter(inputs, mesh, dim), **scatter(kwargs, mesh, dim))
    write_back(buffers)
    return gather(out, output_device)
