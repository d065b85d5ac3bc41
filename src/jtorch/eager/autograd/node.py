"""Graph nodes. An op node keeps the VJP that ``jax.vjp`` returned and edges to its inputs."""

from __future__ import annotations

import itertools
import weakref

import jax
import numpy as np

from ... import _dtypes as D

_seq = itertools.count()

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


@jax.jit
def _apply_vjp(vjp, cotangents):
    return vjp(cotangents)


class RemovableHandle:
    """What ``register_hook`` returns: ``.remove()`` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, hooks: dict):
        self._hooks = weakref.ref(hooks) if not isinstance(hooks, list) else (lambda: hooks)
        self.id = next(self._ids)

    def remove(self) -> None:
        hooks = self._hooks()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class Node:
    """Base node: a name, edges (``next_functions``), hooks and a sequence number."""

    _name = "Node"

    def __init__(self, next_functions=()):
        self.next_functions = tuple(next_functions)
        self._seq = next(_seq)
        self._pre_hooks: dict | None = None  # output_nr -> {id: hook}: tensor hooks
        self._hooks: dict = {}
        self._retained: dict | None = None  # output_nr -> weakref to a retain_grad tensor
        self.metadata: dict = {}

    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"<{self._name} object at {hex(id(self))}>"

    def register_hook(self, fn) -> RemovableHandle:
        """Run ``fn(grad_inputs, grad_outputs)`` after this node computes its gradients."""
        handle = RemovableHandle(self._hooks)
        self._hooks[handle.id] = fn
        return handle

    def _add_tensor_hook(self, output_nr: int, fn) -> RemovableHandle:
        if self._pre_hooks is None:
            self._pre_hooks = {}
        hooks = self._pre_hooks.setdefault(output_nr, {})
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    def check_saved(self) -> None:
        pass

    def release(self) -> None:
        pass


class OpNode(Node):
    """A recorded op: its VJP (a pytree from a cached jitted ``jax.vjp``) and saved versions."""

    def __init__(self, name, vjp, edges, diff_edges, out_meta, saved, replay):
        super().__init__(edges)
        self._name = name
        self._vjp = vjp
        self._diff_edges = diff_edges  # positions in next_functions the VJP returns grads for
        self._out_meta = out_meta  # per output: (shape, np dtype) or None when not differentiable
        self._saved = saved  # [(VersionCounter, version, description)]
        self._replay = replay  # (key, fn, leaves, diff_idx) to re-record the VJP under create_graph
        self._freed = False

    def check_saved(self) -> None:
        if self._freed:
            raise RuntimeError(FREED_MSG)
        for i, (vc, version, desc) in enumerate(self._saved):
            if vc.version != version:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: [{desc}], which is output {i} of {self._name}, is at "
                    f"version {vc.version}; expected version {version} instead. Hint: enable "
                    "anomaly detection to find the operation that failed to compute its gradient, "
                    "with torch.autograd.set_detect_anomaly(True)."
                )

    def release(self) -> None:
        if self._saved:  # a node that saved nothing can be replayed, as in PyTorch
            self._freed = True
            self._vjp = None
            self._replay = None

    def cotangents(self, grads):
        """Fill missing output grads with zeros; drop non-differentiable outputs."""
        out = []
        for g, meta in zip(grads, self._out_meta):
            if meta is None:
                continue
            out.append(np.zeros(meta[0], meta[1]) if g is None else g)
        return tuple(out)

    def apply_vjp(self, cotangents):
        return _apply_vjp(self._vjp, cotangents)


class AccumulateGrad(Node):
    """The sink for a leaf tensor: accumulates into ``variable.grad``."""

    _name = "AccumulateGrad"

    def __init__(self, variable):
        super().__init__(())
        self.variable = variable


def describe(t) -> str:
    """torch's saved-tensor description, e.g. ``torch.FloatTensor [5, 5]``."""
    return f"torch.{D.legacy_name(t.dtype)}Tensor {list(t.shape)}"
