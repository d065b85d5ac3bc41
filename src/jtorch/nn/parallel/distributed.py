"""nn.parallel.DistributedDataParallel: gradients averaged over the ranks after backward.

At construction the parameters and buffers of rank 0 are broadcast to every rank. Each
backward pass accumulates gradients locally; once every parameter that takes part has
received its gradient (a post-accumulate-grad hook per parameter), the gradients are
flattened per dtype into one buffer, all-reduced in a single XLA collective, divided by
the world size and written back into ``.grad``. Inside ``no_sync()`` nothing is
communicated, and the next synchronized backward reduces the accumulated gradients, as
in PyTorch.

Within a rank, JAX's way applies: one process drives all of its local devices. With
``device_ids=None`` and several local devices of the module's platform, the local batch
is split over them as one SPMD program (see ``_spmd.py``); ``device_ids=[i]`` keeps the
module on that one device, as in PyTorch.

Differences from PyTorch: no gradient buckets overlapping communication with the
backward pass (one collective per dtype after it); ``register_comm_hook``, ``join`` and
``static_graph`` optimizations are not available (``static_graph`` is accepted).
"""

from __future__ import annotations

import contextlib

import jax

from ... import _device as _dev
from ... import distributed as dist
from ...eager import views
from ...eager.autograd import grad_mode
from ...eager.tensor import Tensor
from ..modules.module import Module
from . import _spmd

__all__ = ["DistributedDataParallel"]

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss."
)


class DistributedDataParallel(Module):
    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 **kwargs):
        super().__init__()
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        self.module = module
        self.process_group = dist._world() if process_group is None else process_group
        self.device_ids = None if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.static_graph = static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self._world_size = dist.get_world_size(self.process_group)
        self._params = params
        self._expected: set = {id(p) for p in params}
        self._ready: set = set()
        self._handles = [p.register_post_accumulate_grad_hook(self._grad_ready) for p in params]
        self._sync_module_states()

    # ------------------------------------------------------------ forward

    def forward(self, *inputs, **kwargs):
        if self._ready and self.require_backward_grad_sync:
            raise RuntimeError(_UNFINISHED)
        self._ready = set()
        if self.broadcast_buffers and self._world_size > 1:
            self._broadcast(list(self.module.buffers()))
        mesh = None
        if self.device_ids is None:
            devices = self._local_devices()
            mesh = _spmd.mesh_for(devices, inputs, kwargs, self.dim) if len(devices) > 1 else None
        else:
            target = _dev.device(self.device_ids[0]) if not isinstance(
                self.device_ids[0], int) else self._param_device()
            inputs, kwargs = _spmd._map((inputs, kwargs), lambda t: t.to(target))
        if mesh is None:
            out = self.module(*inputs, **kwargs)
        else:
            home = self._params[0]._value.sharding
            out = _spmd.run(self.module, mesh, inputs, kwargs, home, self.dim)
        if self.find_unused_parameters and self.require_backward_grad_sync:
            self._expected = _reached(out, self._params)
        return out

    def _param_device(self):
        return self._params[0].device

    def _local_devices(self) -> list:
        """The process's devices of the module's platform (its GPUs, or its CPU devices)."""
        accel = _dev.accelerators()
        if any(d in accel for d in self._params[0]._value.devices()):
            return list(accel)
        return [_dev.cpu_device()] if accel else jax.local_devices(backend="cpu")

    # ------------------------------------------------------------ gradient synchronization

    def _grad_ready(self, param: Tensor) -> None:
        if not self.require_backward_grad_sync:
            return
        self._ready.add(id(param))
        if self._expected <= self._ready:
            self._ready = set()
            self._reduce_gradients()

    def _reduce_gradients(self) -> None:
        if self._world_size == 1:
            return  # the average over one rank is the gradient itself
        import jtorch

        grads = [p.grad for p in self._params if p.grad is not None]
        by_dtype: dict = {}
        for g in grads:
            by_dtype.setdefault(g.dtype, []).append(g)
        with grad_mode.no_grad():
            for group in by_dtype.values():
                flat = jtorch.cat([g.reshape(-1) for g in group])
                dist.all_reduce(flat, group=self.process_group)
                flat = flat / self._world_size
                offset = 0
                for g in group:
                    n = g.numel()
                    piece = flat[offset:offset + n].reshape(g.shape)._value
                    views.write(g, jax.device_put(piece, g._value.sharding), check=False)
                    offset += n

    @contextlib.contextmanager
    def no_sync(self):
        """Accumulate gradients locally; the first backward after the block reduces them."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # ------------------------------------------------------------ module states

    def _sync_module_states(self) -> None:
        if self._world_size > 1:
            self._broadcast(list(self.module.parameters()) + list(self.module.buffers()))

    def _broadcast(self, tensors) -> None:
        src = dist.get_global_rank(self.process_group, 0)
        for t in tensors:
            dist.broadcast(t.detach(), src, group=self.process_group)


def _reached(out, params) -> set:
    """The parameters whose gradient the graph of ``out`` will produce."""
    from ...eager.autograd.node import AccumulateGrad

    wanted = {id(p) for p in params}
    seen, found, stack = set(), set(), [t.grad_fn for t in _spmd._tensors(out)
                                       if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) in wanted:
                found.add(id(node.variable))
            continue
        stack.extend(n for n, _ in node.next_functions)
    return found
