"""The backward engine: toposort, seed, reverse walk, accumulate (micrograd's shape).

Gradients travel as JAX arrays, or as Tensors that record their own graph when
``create_graph=True``.
"""

from __future__ import annotations

import heapq

import jax
import jax.numpy as jnp
import numpy as np

from ... import _kernels
from ..._device import PLACEMENT
from .. import dispatch, hooks, lazy
from ..storage import LazyStorage
from ..tensor import Tensor, wrap
from . import fused, grad_mode
from .node import AccumulateGrad, OpNode

_add = _kernels.jit(jnp.add, name=("gradient_sum",))  # kept on disk: jnp.add is JAX's
# Gradients for one input of a node are summed ``_PARTS`` at a time (``_gather``): an
# LSTM cell stepped through 1,000 time steps sends each weight 1,000 gradients, each sum
# one XLA dispatch (~6 us, PyTorch's in-place add ~2 us). Only gradients this small wait
# to be summed (what waiting saves is dispatch; a large one's sum is its arithmetic, and
# waiting holds up to ``_PARTS`` of them at once).
_PARTS = 8
_PART_BYTES = 1 << 18
# Types XLA adds without widening (a half type's chain of adds in one program could skip
# the rounding between them).
_EXACT = frozenset(map(np.dtype, ("float32", "float64", "complex64", "complex128")))


def _collect(roots) -> dict:
    """Dependency counts for every node reachable from ``roots``, a root that no other
    node reaches counting 0: its keys are the graph's nodes."""
    # Several roots may be outputs of one node: count that node's edges once.
    deps = {}
    for n, _ in roots:
        if n is not None:
            deps[n] = 0
    stack = list(deps)
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None:
                n = deps.get(nxt)
                if n is None:  # first reached: walk on from it
                    deps[nxt] = 1
                    stack.append(nxt)
                else:
                    deps[nxt] = n + 1
    return deps


def _needed(nodes, targets):
    """The nodes from which some target node is reachable (others need not run)."""
    parents: dict = {}
    for n in nodes:
        for m, _ in n.next_functions:
            if m is not None:
                parents.setdefault(m, []).append(n)
    # Walk edges backwards from the targets; iterative, so deep graphs cannot overflow.
    stack = [t for t in targets if t in nodes]
    hit = set(stack)
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in hit:
                hit.add(p)
                stack.append(p)
    return hit


def _sum(a, b, create_graph):
    if a is None:
        return b
    if create_graph:
        return _as_tensor(a) + _as_tensor(b)
    if _sparse(a) or _sparse(b):  # sparse + sparse stays sparse; with a dense one, dense
        a, b = (b, a) if _sparse(a) else (a, b)
        return _as_tensor(a) + _as_tensor(b)
    return grad_add(a._value if isinstance(a, Tensor) else a,
                    b._value if isinstance(b, Tensor) else b)


def grad_add(a, b):
    """``a + b`` for two gradients (JAX arrays). A type's first sums are NumPy's on the CPU
    backend while ``_add`` compiles for it on the background thread
    (``_kernels.while_compiling``), whose program serves from then on: a backward otherwise
    waited 20-150 ms for an add program per gradient shape (inputs used twice, tied
    weights, accumulated leaves) on its first step. NumPy and XLA add two floats of one
    type alike (half types through float32)."""
    if (_kernels.BACKGROUND and isinstance(a, jax.Array) and isinstance(b, jax.Array)
            and a.dtype == b.dtype and a.shape == b.shape and _kernels._on_host(a, b)
            and not a.weak_type and not b.weak_type
            and _kernels.while_compiling(("add", a.shape, a.dtype), lambda: _add, a, b)):
        return _kernels.device_array(np.add(np.asarray(a), np.asarray(b)))
    return _add(a, b)


class _Parts(list):
    """Gradients for one input slot not yet summed: the sum so far and those that came
    after it, in arrival order (all JAX arrays of one shape and dtype)."""

    __slots__ = ()


def _fold(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


_add_parts = _kernels.jit(_fold, name=("gradient_sum_parts",))


def _gather(buf, nr, g) -> None:
    """``buf[nr] += g`` for a gradient ``g`` (not ``create_graph``): small arrays of one
    shape and dtype are kept as ``_Parts`` and summed ``_PARTS`` at a time, in the order
    they came (one left-to-right program: the sums one by one would give the same bits);
    ``_settle`` sums what is left when the node runs. Anything else: ``_sum``."""
    a = buf.get(nr)
    if a is None:
        buf[nr] = g
    elif type(a) is _Parts:
        if type(g) is type(a[0]) and g.dtype == a[0].dtype and g.shape == a[0].shape \
                and not g.weak_type:
            a.append(g)
            if len(a) == _PARTS:
                buf[nr] = _sum_parts(a)
        else:
            buf[nr] = _sum(_sum_parts(a), g, False)
    elif (type(a) is type(g) and isinstance(a, jax.Array) and a.dtype == g.dtype
          and a.shape == g.shape and a.dtype in _EXACT and not a.weak_type
          and not g.weak_type and a.nbytes <= _PART_BYTES
          and not isinstance(a, jax.core.Tracer)):
        buf[nr] = _Parts((a, g))
    else:
        buf[nr] = _sum(a, g, False)


def _sum_parts(parts):
    """The left-to-right sum of ``_Parts``: one program for a full set, else pairwise."""
    if len(parts) < _PARTS:
        out = parts[0]
        for g in parts[1:]:
            out = grad_add(out, g)
        return out
    a = parts[0]
    if (_kernels.BACKGROUND and _kernels._on_host(*parts) and _kernels.while_compiling(
            ("add_parts", a.shape, a.dtype), lambda: _add_parts, *parts)):
        out = np.asarray(a)
        for g in parts[1:]:
            out = out + np.asarray(g)
        return _kernels.device_array(out)
    return _add_parts(*parts)


def _settle(grads: dict) -> dict:
    """A node's input buffer with every ``_Parts`` summed (before the node reads it)."""
    for nr, g in grads.items():
        if type(g) is _Parts:
            grads[nr] = _sum_parts(g)
    return grads


def _as_tensor(g):
    return g if isinstance(g, Tensor) else wrap(g)


def _sparse(g) -> bool:
    """A sparse COO gradient (an embedding's with ``sparse=True``) travels as a Tensor."""
    return isinstance(g, Tensor) and g.is_sparse


def _run_hooks(hooks, grad):
    for hook in list(hooks.values()):
        out = hook(_as_tensor(grad))
        if out is not None:
            grad = out
    return grad


_ONES: dict = {}


def _one(t: Tensor):
    """The implicit seed of a one-element output: a 1 of its shape and dtype, kept on its
    device between calls (a fresh host constant would be copied over on every backward).

    It is committed to its device only when the output is: a committed argument makes
    every kernel output committed, and jit compiles a kernel again for committed inputs,
    so a committed seed of an uncommitted graph made the gradients, and through the
    optimizer the parameters, committed after the first step, and every kernel that
    reads them compiled twice."""
    value = t._storage.value
    if hooks.RECORDER is not None or isinstance(value, jax.core.Tracer):
        return np.ones(t._shape, t.dtype.np)  # a constant of the traced program
    devices = value.devices()
    committed = value.committed
    key = (t._shape, t.dtype, committed, *devices)
    g = _ONES.get(key)
    if g is None:
        one = np.ones(t._shape, t.dtype.np)
        if len(devices) != 1:
            g = one
        else:
            g = jax.device_put(one, *devices) if committed else jax.device_put(one)
        _ONES[key] = g
    return g


def _uncommitted_one(t: Tensor):
    """``_one`` for an output a recorded op (``eager/lazy.py``) will compute, without
    running it: uncommitted. Only a fused backward may take it: its program reads every
    input of the graph, so a committed one still commits the gradients; the walk takes
    ``_one`` (``run_backward``)."""
    key = (t._shape, t.dtype, False, None)
    g = _ONES.get(key)
    if g is None:
        g = _ONES[key] = jax.device_put(np.ones(t._shape, t.dtype.np))
    return g


def _seed(roots_t, grads):
    """The roots' edges and their seeds, and which seeds are ``_uncommitted_one``s."""
    if grads is not None and len(grads) != len(roots_t):
        raise RuntimeError(f"got {len(roots_t)} tensors and {len(grads)} gradients")
    roots, seeds, provisional = [], [], []
    for i, t in enumerate(roots_t):
        if not t.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        g = None if grads is None else grads[i]
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if t.dtype.is_complex:
                raise RuntimeError("grad can be implicitly created only for real scalar outputs")
            st = t._storage
            if (type(st) is LazyStorage and st.pending.array is None and not t._chain
                    and hooks.RECORDER is None):
                g = _uncommitted_one(t)
                provisional.append(i)
            else:
                g = _one(t)
        elif isinstance(g, Tensor):
            if g._shape != t._shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {t.shape}."
                )
            if g.dtype is not t.dtype:  # PyTorch's engine casts a seed to its output's dtype
                g = g.to(t.dtype)
        else:
            raise TypeError(
                f"gradients can be either Tensors or None, but got {type(g).__name__}"
            )
        roots.append(t._edge())
        seeds.append(g)
    return roots, seeds, provisional


def run_backward(roots_t, grads, retain_graph, create_graph, capture=None, accumulate=True):
    """Propagate from ``roots_t``. ``capture``: {(node, nr): slot} whose grads to return."""
    if retain_graph is None:
        retain_graph = create_graph
    if hooks.RECORDER is not None:
        hooks.RECORDER.backward_called = True
    roots, seeds, provisional = _seed(roots_t, grads)
    if capture is None and not create_graph and fused.try_fused(
            roots, seeds, retain_graph, accumulate):
        return {}
    nodes = deps = _collect(roots)
    lazy.flush()  # recorded ops run first: their nodes hold their results
    for i in provisional:
        seeds[i] = _one(roots_t[i])
    targets = None if capture is None or accumulate else {n for n, _ in capture}
    needed = _needed(nodes, targets) if targets is not None else None
    buffers: dict = {}
    for (node, nr), g in zip(roots, seeds, strict=False):
        buf = buffers.setdefault(node, {})
        buf[nr] = _sum(buf.get(nr), g, create_graph)
    captured: dict = {}
    heap = [(-n._seq, id(n), n) for n in {n for n, _ in roots} if not deps.get(n)]
    heapq.heapify(heap)
    with grad_mode.set_grad_enabled(create_graph):
        while heap:
            _, _, node = heapq.heappop(heap)
            grads_in = _pre_hooks(node, _settle(buffers.pop(node, {})), create_graph)
            if capture is not None:
                for nr, g in grads_in.items():
                    if (node, nr) in capture:
                        captured[(node, nr)] = _sum(captured.get((node, nr)), g, create_graph)
            if needed is not None and node not in needed:
                continue
            if isinstance(node, AccumulateGrad):
                if accumulate and 0 in grads_in:
                    _accumulate(node.variable, grads_in[0], create_graph)
                    if node.variable._post_acc_hooks:
                        for hook in list(node.variable._post_acc_hooks.values()):
                            hook(node.variable)
                continue
            out_grads = _call_node(node, grads_in, create_graph)
            if grad_mode._state.anomaly and grad_mode._state.anomaly_nan:
                _check_nan(node, out_grads)
            if not retain_graph:
                node.release()
            _send(node, out_grads, buffers, deps, heap, create_graph)
    return captured


def _send(node, out_grads, buffers, deps, heap, create_graph):
    """Add a node's input gradients to its children's buffers; queue the children it freed."""
    for (nxt, nr), g in zip(node.next_functions, out_grads, strict=True):
        if nxt is None:
            continue
        if g is not None:
            buf = buffers.setdefault(nxt, {})
            if create_graph:
                buf[nr] = _sum(buf.get(nr), g, True)
            else:
                _gather(buf, nr, g)
        deps[nxt] -= 1
        if deps[nxt] == 0:
            heapq.heappush(heap, (-nxt._seq, id(nxt), nxt))


def _check_nan(node, grads):
    for i, g in enumerate(grads):
        if g is not None and bool(jnp.isnan(g._value if isinstance(g, Tensor) else g).any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def _pre_hooks(node, grads, create_graph):
    """Tensor hooks and retain_grad for the tensors this node produced."""
    if node._pre_hooks:
        for nr, hooks in node._pre_hooks.items():
            if nr in grads and hooks:
                grads[nr] = _run_hooks(hooks, grads[nr])
    if isinstance(node, AccumulateGrad):
        hooks = node.variable._leaf_hooks
        if hooks and 0 in grads:
            grads[0] = _run_hooks(hooks, grads[0])
    if node._retained:
        for nr, ref in node._retained.items():
            t = ref()
            if t is not None and nr in grads:
                g = _as_tensor(grads[nr])
                g = g if create_graph else g.detach()
                t._grad = g if t._grad is None else t._grad + g
    return grads


def _call_node(node, grads_in, create_graph):
    node.check_saved()
    if not create_graph and type(node) is OpNode and len(node._out_meta) == 1 \
            and node._out_meta[0] is not None and node._hooks is None \
            and node._node_pre_hooks is None and 0 in grads_in:
        # The common case (one output, no node hooks): no per-output bookkeeping.
        g = grads_in[0]
        partial = node.apply_vjp((g._value if isinstance(g, Tensor) else g,))
        result = [None] * len(node.next_functions)
        for e, g in zip(node._diff_edges, partial, strict=False):
            result[e] = g
        return result
    n_out = max(grads_in, default=-1) + 1
    if isinstance(node, OpNode):
        n_out = len(node._out_meta)
    grads = [grads_in.get(i) for i in range(n_out)]
    if node._node_pre_hooks:
        grads = _run_node_pre_hooks(node, grads)
    if not isinstance(node, OpNode):  # custom Function nodes
        result = node.apply(grads, create_graph)
    elif create_graph:
        cts = node.cotangents(grads)
        partial = dispatch.replay_backward(node, cts)
        result = [None] * len(node.next_functions)
        for e, g in zip(node._diff_edges, partial, strict=False):
            result[e] = g
    else:
        cts = node.cotangents([g._value if isinstance(g, Tensor) else g for g in grads])
        partial = node.apply_vjp(cts)
        result = [None] * len(node.next_functions)
        for e, g in zip(node._diff_edges, partial, strict=False):
            result[e] = g
    if node._hooks:
        for hook in list(node._hooks.values()):
            out = hook(tuple(_maybe_tensor(g) for g in result),
                       tuple(_maybe_tensor(g) for g in grads))
            if out is not None:  # a post hook may replace the gradients it was given
                result = list(out)
    return result


def _run_node_pre_hooks(node, grads):
    for hook in list(node._node_pre_hooks.values()):
        out = hook(tuple(_maybe_tensor(g) for g in grads))
        if out is not None:
            grads = list(out)
    return grads


def _maybe_tensor(g):
    return None if g is None else _as_tensor(g)


def _accumulate(var: Tensor, g, create_graph: bool) -> None:
    if (not isinstance(g, Tensor) and var._grad is None and var._stride is None
            and hooks.RECORDER is None and not PLACEMENT.blocking):
        hooks.grad_write(var)  # the common case: a leaf's first dense gradient
        var._grad = wrap(g)
        return
    g = _as_tensor(g)
    if hooks.RECORDER is not None:
        hooks.grad_read(var)
    if g.is_sparse or (var._grad is not None and var._grad.is_sparse):
        _accumulate_sparse(var, g, create_graph)
    elif var._grad is None:
        hooks.grad_write(var)
        var._grad = g if create_graph else wrap(g._value)
        if var._stride is not None and var._stride != g.stride():
            var._grad._stride = var._stride  # PyTorch's gradient layout contract
    elif create_graph or var._grad.requires_grad:
        var._grad = var._grad + g
    else:
        from ..views import write

        write(var._grad, grad_add(var._grad._value, g._value))
    if PLACEMENT.blocking:  # CUDA_LAUNCH_BLOCKING=1: the summed gradient is waited for too
        jax.block_until_ready(var._grad._value)


def _accumulate_sparse(var: Tensor, g: Tensor, create_graph: bool) -> None:
    """PyTorch's AccumulateGrad with a sparse side: the first sparse gradient is kept as it
    is, sparse + sparse concatenates (uncoalesced), and a dense side makes the sum dense."""
    hooks.grad_write(var)
    old = var._grad
    if old is None:
        total = g
    elif g.is_sparse and old.is_sparse:
        total = old + g
    else:
        dense, sparse = (old, g) if g.is_sparse else (g, old)
        total = dense + sparse.to_dense()
    var._grad = total if create_graph else total.detach()


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """torch.autograd.backward: accumulate gradients of ``tensors`` into leaves' ``.grad``."""
    tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    if grad_tensors is not None:
        grad_tensors = (grad_tensors,) if isinstance(grad_tensors, Tensor) else tuple(grad_tensors)
    if inputs is None:
        run_backward(tensors, grad_tensors, retain_graph, create_graph)
        return
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    capture = {t._edge(): i for i, t in enumerate(inputs)}
    got = run_backward(tensors, grad_tensors, retain_graph, create_graph, capture, False)
    for t in inputs:
        g = got.get(t._edge())
        if g is not None:
            _accumulate(t, g, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """torch.autograd.grad: gradients of ``outputs`` w.r.t. ``inputs``, without touching .grad."""
    single = isinstance(inputs, Tensor)
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    inputs = (inputs,) if single else tuple(inputs)
    if grad_outputs is not None:
        grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    edges = [t._edge() for t in inputs]
    got = run_backward(outputs, grad_outputs, retain_graph, create_graph,
                       {e: i for i, e in enumerate(edges)}, False)
    result = []
    for i, (t, e) in enumerate(zip(inputs, edges, strict=True)):
        g = got.get(e)
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                g = jnp.zeros(t._shape, t.dtype.np)
        result.append(None if g is None else (g if create_graph and isinstance(g, Tensor)
                                              else _as_tensor(g)))
    return tuple(result)
