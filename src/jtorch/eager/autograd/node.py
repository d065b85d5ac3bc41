"""Graph nodes. An op node keeps its inputs (or the VJP ``jax.vjp`` returned) and edges."""

from __future__ import annotations

import functools
import itertools
import re
import weakref

import jax
import numpy as np
from jax._src.array import ArrayImpl

from ... import _dtypes as D
from ... import _kernels
from ..._device import PLACEMENT
from ..lazy import Pending, array
from ..storage import _SLOT_GET, Storage

_seq = itertools.count()

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def torch_vjp(vjp, cotangents):
    """Apply a JAX VJP with PyTorch's complex convention: PyTorch's gradient of a complex
    value is the conjugate of JAX's (conjugate Wirtinger vs JAX's), so conjugate the
    cotangents in and the gradients out. Real values pass through unchanged."""
    out = vjp(jax.tree.map(_conj, cotangents))
    return jax.tree.map(_conj, out)


def _conj(x):
    return x.conj() if jax.numpy.iscomplexobj(x) else x


_apply_vjp = _kernels.jit(torch_vjp)
_apply_vjp_full = _kernels.jit(torch_vjp, full_opt=True, conv=True)  # convolutions' and pooling's
_RELEASED = (None, None, None, None, "released", 0, None)  # truthy: stays "freed"
ENTRY = 7  # the fields of one saved entry in ``OpNode._saved`` (see ``op_node``)


# Nodes PyTorch hand-writes in C++ (not generated from derivatives.yaml) report their
# namespace in name(); their Python class name is the bare one.
_QUALIFIED = {n: f"torch::autograd::{n}" for n in (
    "AccumulateGrad", "CopySlices", "CopyBackwards", "GraphRoot", "Error", "DelayedError",
    "CppFunction", "NotImplemented")}


class RemovableHandle:
    """What ``register_hook`` returns: ``.remove()`` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, hooks: dict):
        self._hooks = hooks  # plain dicts cannot be weakly referenced; a handle is small
        self.id = next(self._ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _add(hooks: dict, fn) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


# Set once any node or tensor gets a hook or a retain_grad: until then a fused backward
# (``fused.try_fused``) checks no node for them.
HOOKED = [False]


class Node:
    """Base node: a name, edges (``next_functions``), hooks and a sequence number."""

    _name = "Node"
    # Hook tables stay class-level None until first used: a node is built per op call.
    _pre_hooks: dict | None = None  # output_nr -> {id: hook}: tensor hooks
    _node_pre_hooks: dict | None = None  # {id: hook(grad_outputs)}: register_prehook
    _hooks: dict | None = None  # {id: hook(grad_inputs, grad_outputs)}: register_hook
    _retained: dict | None = None  # output_nr -> weakref to a retain_grad tensor
    _metadata: dict | None = None

    def __init__(self, next_functions=()):
        self.next_functions = tuple(next_functions)
        self._seq = next(_seq)

    def name(self) -> str:
        return _QUALIFIED.get(self._name, self._name)

    def __repr__(self) -> str:
        return f"<{self._name} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn) -> RemovableHandle:
        """Run ``fn(grad_inputs, grad_outputs)`` after this node computes its gradients."""
        HOOKED[0] = True
        if self._hooks is None:
            self._hooks = {}
        return _add(self._hooks, fn)

    def register_prehook(self, fn) -> RemovableHandle:
        """Run ``fn(grad_outputs)`` before this node's backward; it may return new ones."""
        HOOKED[0] = True
        if self._node_pre_hooks is None:
            self._node_pre_hooks = {}
        return _add(self._node_pre_hooks, fn)

    def _add_tensor_hook(self, output_nr: int, fn) -> RemovableHandle:
        HOOKED[0] = True
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return _add(self._pre_hooks.setdefault(output_nr, {}), fn)

    def check_saved(self) -> None:
        pass

    def inplace_written(self, vc, version: int) -> None:
        """Called after this node's in-place op wrote ``vc`` (see OpNode)."""

    def release(self) -> None:
        pass


class _Cloned:
    """The version counter of a value saved as a clone: it never changes."""

    version = 0


_CLONED = _Cloned()


class OpNode(Node):
    """A recorded op: its inputs (``_replay``), the VJP when the op keeps its residuals (a
    pytree from a cached jitted ``jax.vjp``; None: the backward recomputes from the inputs,
    see ``dispatch.backward_kernel``), and saved versions. Made by ``op_node``."""

    _freed = False
    _pending = False  # True: inputs or saved values are lazy.Pendings (see check_saved)
    _abstract = False  # True: released, its float inputs kept as types (see release)
    # What a fused backward's graph key holds of a node made by the bindings' lane
    # (``fast_paths.grad_lane``): (its recorded op's number in ``lazy._AVALS``, which names
    # the op and its operand types, so its result's type and its edges; its differentiable
    # operands), a short stand-in for ``fused._described``; None: described in full.
    _sk = None

    def check_saved(self) -> None:
        if self._freed:
            raise RuntimeError(FREED_MSG)
        if self._pending:
            self._resolve()
        stale, saved = None, self._saved
        for j in range(0, len(saved), ENTRY):
            vc, version = saved[j], saved[j + 1]
            if vc.version != version:
                raise modified_error(vc.version, version, *self._describe(j))
            # An ndarray value is a host copy dispatch._same_device made: never identical.
            value = saved[j + 6]
            if value is not None:
                src = saved[j + 4]
                if (src.value if isinstance(src, Storage) else src._value) is not value \
                        and type(value) is not np.ndarray:
                    stale = [] if stale is None else stale
                    stale.append((src, saved[j + 5], value))
        if stale is not None:
            self._recompute(stale)

    def saved_intact(self) -> bool:
        """``check_saved`` before the recorded ops (``eager/lazy.py``) have run, for a
        backward recorded too: the same error for a changed version; False where a saved
        value may have changed without one (``check_saved`` then looks closer)."""
        if self._freed:
            raise RuntimeError(FREED_MSG)
        saved = self._saved
        for j in range(0, len(saved), ENTRY):
            vc, version = saved[j], saved[j + 1]
            if vc.version != version:
                raise modified_error(vc.version, version, *self._describe(j))
            value = saved[j + 6]
            if value is None or type(value) is np.ndarray:
                continue
            src = saved[j + 4]
            if not isinstance(src, Storage):
                if type(src) is weakref.ref or src._chain:
                    return False
                src = src._storage
            now = _SLOT_GET(src, Storage)  # an array or a Pending, without running it
            if now is not value:
                now = now.array if type(now) is Pending else now
                if now is None or now is not (value.array if type(value) is Pending
                                              else value):
                    return False
        return True

    def _resolve(self) -> None:
        """The arrays of the recorded ops (``eager/lazy.py``) this node's inputs and saved
        values came from, in place of their Pendings, their segment run first."""
        vals = self._replay[2]
        for i, v in enumerate(vals):
            if type(v) is Pending:
                a = v.array  # its segment has run, mostly (a backward runs it first)
                vals[i] = a if a is not None else array(v)
        saved = self._saved
        for j in range(6, len(saved), ENTRY):
            v = saved[j]
            if type(v) is Pending:
                a = v.array
                saved[j] = a if a is not None else array(v)
        self._pending = False

    def _recompute(self, stale) -> None:
        """Saved values changed without a version bump (a write through ``.data``, which has
        its own counter): PyTorch's backward reads the saved tensors as they are now, so
        redo this node's VJP from the current values."""
        from ..dispatch import _vjp_kernel

        fresh = {}
        for src, nr, value in stale:
            if isinstance(src, Storage):
                raise RuntimeError(
                    f"jtorch cannot differentiate {self.name()}: its output {nr}, saved for "
                    "the backward, was modified through .data after the forward (PyTorch "
                    "would use the new values; jtorch derives the gradient from the inputs)")
            fresh[id(value)] = src._value
        key, fn, vals, diff_idx, saves = self._replay
        vals = [fresh.get(id(v), v) for v in vals]
        if self._vjp is not None:
            _, self._vjp = _vjp_kernel(key, fn, diff_idx)(*vals)
        self._replay = (key, fn, vals, diff_idx, saves)
        saved = self._saved  # a list: a released node raised in check_saved
        for j in range(6, len(saved), ENTRY):
            saved[j] = fresh.get(id(saved[j]), saved[j])

    def _describe(self, j):
        """(text, producing node, output_nr) of the saved entry at ``_saved[j]``, for the
        error message."""
        dtype, shape, src, nr = self._saved[j + 2:j + 6]
        if isinstance(src, str):
            return src, None, 0
        text = f"torch.{D.legacy_name(dtype)}Tensor {list(shape)}"
        if src is None or isinstance(src, Storage):  # a saved output: PyTorch names its node
            return text, self, nr
        t = src() if type(src) is weakref.ref else src
        return text, (None if t is None else t.grad_fn), (0 if t is None else t._output_nr)

    def inplace_written(self, vc, version: int) -> None:
        """This node's op was in place: its write moving ``vc`` past ``version`` is no error.

        PyTorch saves an in-place op's ``self`` as a clone of the value before the write (our
        VJP residuals already hold that value), so no later write can trip the check on it:
        the entry now watches a counter nothing bumps (it still counts as saved, so a
        second backward after release raises). Only the first entry goes: ``y.mul_(y)``
        also saved ``y`` as ``other``, which PyTorch rejects on backward.
        """
        saved = self._saved
        for j in range(0, len(saved), ENTRY):
            if saved[j] is vc and saved[j + 1] == version:
                # A weak reference: the tensor now holds this node as its grad_fn.
                src = saved[j + 4]
                if src is not None and type(src) is not Storage:
                    saved[j + 4] = weakref.ref(src)
                saved[j], saved[j + 1], saved[j + 6] = _CLONED, 0, None
                return

    def release(self) -> None:
        if self._saved:  # a node that saved nothing can be replayed, as in PyTorch
            self._freed = True
            self._vjp = None
            self._replay = None
            self._saved = _RELEASED  # let the saved tensors go, as PyTorch frees them
        elif self._vjp is None and self._replay is not None and self._replay[4] == "none":
            # Its gradient reads no input's value (PyTorch saves none: add, sum, cat...):
            # keep only their types, so the forward's values go as PyTorch's do, and a
            # second backward replays from zeros (tests/test_ops.py checks every such op).
            key, fn, vals, diff_idx, saves = self._replay
            kept = []
            for v in vals:  # a floating array not weakly typed (a Python number): its type
                kind = type(v)
                if kind is Pending:
                    a = v.array
                    if a is None:  # kept as its type's zeros (one per type), or itself
                        z = _KEPT.get(v.type)
                        if z is None:
                            if len(_KEPT) >= 4096:
                                _KEPT.clear()
                            z = _KEPT[v.type] = _zeros((v.shape, v.dtype, None)) if (
                                not v.weak_type and _inexact(v.dtype)) else False
                        kept.append(z or v)
                        continue
                    v, kind = a, type(a)
                if kind is ArrayImpl:
                    aval = v.aval
                    if not aval.weak_type and _inexact(aval.dtype):
                        v = _zeros((aval.shape, aval.dtype, v.sharding))
                kept.append(v)
            self._replay = (key, fn, kept, diff_idx, saves)
            self._abstract = True

    def replay_vals(self) -> list:
        """The op's inputs for its VJP: those ``release`` kept as types, as zeros."""
        vals = self._replay[2]
        if self._abstract:
            vals = [v.zeros() if type(v) is _Zeros else v for v in vals]
        return vals

    def cotangents(self, grads):
        """Fill missing output grads with zeros; drop non-differentiable outputs."""
        out = []
        for g, meta in zip(grads, self._out_meta, strict=False):
            if meta is None:
                continue
            out.append(np.zeros(meta[0], meta[1]) if g is None else g)
        return tuple(out)

    def apply_vjp(self, cotangents):
        if self._vjp is None:
            key, fn, _, diff_idx, _ = self._replay
            out = _backward_kernel(key, fn, diff_idx)(self.replay_vals(), cotangents)
        else:
            full = self._replay is not None and _kernels.full_optimisation(self._replay[0])
            out = (_apply_vjp_full if full else _apply_vjp)(self._vjp, cotangents)
        if PLACEMENT.blocking:  # CUDA_LAUNCH_BLOCKING=1: backward kernels wait too
            jax.block_until_ready(out)
        return out


def op_node(name, vjp, edges, diff_edges, out_meta, saved, replay) -> OpNode:
    """A new ``OpNode`` (a node per op call: built without a class call, whose ``__init__``
    lookup and bound call cost more than the node's own attributes)."""
    n = _new(OpNode)
    n.next_functions = tuple(edges)  # ``Node.__init__``'s, inline
    n._seq = next(_seq)
    n._name = name
    n._vjp = vjp
    n._diff_edges = diff_edges  # positions in next_functions the VJP returns grads for
    # A tuple, per output: (shape, np dtype) or None when not differentiable.
    n._out_meta = out_meta
    # [VersionCounter, version, dtype, shape, source, nr, value, ...]: ``ENTRY`` fields
    # per saved operand, one flat list (a tuple per entry was one more object per operand
    # for the garbage collector to walk, an LSTM step's graph holding 17). A saved
    # input's source is the tensor, a saved output's its Storage; value is what the VJP
    # read (None: not compared, a clone in PyTorch).
    n._saved = saved
    n._replay = replay  # (key, fn, leaves, diff_idx, saves): to re-record the VJP
    return n


_new = object.__new__


class _Zeros(tuple):
    """An input a released node's gradient does not read: (shape, dtype, placement). A
    tuple, made by ``_zeros((shape, dtype, device))`` without a Python call."""

    __slots__ = ()

    def zeros(self):
        shape, dtype, device = self
        return jax.numpy.zeros(shape, dtype, device=device)


_zeros = functools.partial(tuple.__new__, _Zeros)


_INEXACT: dict = {}
_KEPT: dict = {}  # a recorded result's type number -> what ``release`` keeps of it, or False


def _inexact(dtype) -> bool:
    hit = _INEXACT.get(dtype)
    if hit is None:
        hit = _INEXACT[dtype] = bool(jax.numpy.issubdtype(dtype, jax.numpy.inexact))
    return hit


def _backward_kernel(key, fn, diff_idx):
    """``dispatch.backward_kernel`` (imported on first use: dispatch imports this module)."""
    global _backward_kernel
    from ..dispatch import backward_kernel as _backward_kernel

    return _backward_kernel(key, fn, diff_idx)


class AccumulateGrad(Node):
    """The sink for a leaf tensor: accumulates into ``variable.grad``."""

    _name = "AccumulateGrad"

    def __init__(self, variable):
        super().__init__(())
        self.variable = variable
        # The edge into it, made once: a leaf such as a weight is an edge of every node
        # using it (an LSTM cell's four weights, each step of a thousand).
        self.edge = (self, 0)


def describe(t) -> str:
    """torch's saved-tensor description, e.g. ``torch.FloatTensor [5, 5]``."""
    return f"torch.{D.legacy_name(t.dtype)}Tensor {list(t.shape)}"


_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


def modified_error(version: int, expected: int, text: str, node, output_nr: int):
    """PyTorch's error for a saved tensor whose version moved on since it was saved."""
    where = ""
    if node is not None:  # PyTorch names the node without its "Backward<N>" suffix
        where = f", which is output {output_nr} of {_BACKWARD_SUFFIX.sub('', node.name())},"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{text}]{where} is at version {version}; expected version {expected} "
        "instead. Hint: enable anomaly detection to find the operation that failed to compute "
        "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )
