"""Dispatch: run a pure function on tensors through cached jitted kernels, recording autograd.

Kernel caches, keyed by the op and its static arguments: the forward kernel
(``jit(fn)``), and for the backward the VJP kernel (``jit(lambda xs, cts: vjp(fn)(cts))``),
which recomputes from the op's inputs whatever forward values the gradient needs. An op
that needs a gradient runs the same forward kernel as one that does not and records its
inputs; XLA drops the parts of the recomputed forward the gradient does not read, which
for most ops is all of it (a matmul's or convolution's gradient reads only the inputs) or
a few pointwise operations. Ops whose gradient needs costly forward intermediates (a
recurrent scan, matrix decompositions, sorting, attention: ``OpSpec.residuals``) run the
forward-with-VJP kernel (``jit(lambda *xs: jax.vjp(fn, *xs))``) instead, and their node
keeps its residuals. This module is the one place that calls ``jax.vjp``; no call traces
or differentiates anything per op call.
"""

from __future__ import annotations

import jax
import numpy as np

from .. import _kernels
from .._device import PLACEMENT
from .._registry import _NUMBER, REGISTRY
from . import hooks, lazy
from .autograd import grad_mode
from .autograd.node import OpNode, _apply_vjp, _apply_vjp_full, op_node, torch_vjp
from .storage import LazyStorage
from .tensor import Tensor, wrap

_FWD: dict = {}
_VJP: dict = {}
_BWD: dict = {}
_GRAD_FWD: dict = {}  # key -> the forward kernel an op needing a gradient runs; False: VJP
_state = grad_mode._state
_TRACES = _kernels.TRACES
# torch.profiler's recorder while a profile is recording, else None: it times the op and
# calls ``apply`` again with itself unset (see jtorch/profiler/_record.py).
PROFILER = None


def _is_float(np_dtype) -> bool:
    return np_dtype.kind in "fc" or np_dtype.name == "bfloat16"


# Kernels outside the registry whose key names their function completely (the function
# is built from the key alone), so their programs may be kept on disk (``_executables``).
_NAMED = frozenset(("read", "scatter", "read_many", "to", "reshape_copy", "detach_copy",
                    "nn_random", "random", "random_",
                    # a recorded fused backward and its results (eager/lazy.py ``record``)
                    "fused_backward", "item"))


def _name(kind, key, *more):
    """The on-disk name of ``key``'s ``kind`` of kernel, or None: a registry op's key or a
    ``_NAMED`` one names its function; any other (a distribution's formula) is not kept."""
    op = key[0] if type(key) is tuple and key else key
    if type(op) is str and (op in REGISTRY or op in _NAMED):
        return (kind, key, *more)
    return None


def _fwd_kernel(key, fn):
    k = _FWD.get(key)
    if k is None:
        k = _FWD[key] = _kernels.jit(fn, full_opt=_kernels.full_optimisation(key, True),
                                     conv=_kernels.convolution(key),
                                     name=_name("forward", key))
    return k


def fwd_vjp(fn, diff_idx):
    """The pure function ``leaves -> (outputs, vjp)`` whose jit is the VJP kernel."""

    def with_vjp(*leaves):
        def diff_fn(*d):
            out = fn(*_merge(leaves, diff_idx, d))
            flat = out if isinstance(out, tuple) else (out,)
            return tuple(o for o in flat if _is_float(o.dtype)), out

        _, vjp, out = jax.vjp(diff_fn, *[leaves[i] for i in diff_idx], has_aux=True)
        return out, vjp

    return with_vjp


def _vjp_kernel(key, fn, diff_idx):
    k = _VJP.get((key, diff_idx))
    if k is None:
        k = _VJP[(key, diff_idx)] = _kernels.jit(fwd_vjp(fn, diff_idx),
                                                 full_opt=_kernels.full_optimisation(key,
                                                                                     True),
                                                 conv=_kernels.convolution(key),
                                                 name=_name("vjp", key, diff_idx))
    return k


def backward_kernel(key, fn, diff_idx):
    """The kernel ``(inputs, cotangents) -> input gradients`` of a recomputing node."""
    k = _BWD.get((key, diff_idx))
    if k is None:
        run = fwd_vjp(fn, diff_idx)

        def backward(vals, cts):
            return torch_vjp(run(*vals)[1], cts)

        k = _BWD[(key, diff_idx)] = _kernels.jit(backward,
                                                 full_opt=_kernels.full_optimisation(key),
                                                 conv=_kernels.convolution(key),
                                                 name=_name("backward", key, diff_idx),
                                                 tiered=_kernels.tiered(key))
    return k


# Kernels outside the registry whose gradients recompute: view reads and writes, copies,
# distributions' formulas. The others keep residuals: sampling kernels ("random",
# "nn_random") would draw their random bits again, replayed backwards are VJPs already.
_RECOMPUTED = frozenset(("read", "scatter", "read_many", "to", "reshape_copy", "detach_copy",
                         "distributions"))


def keeps_residuals(key) -> bool:
    """Whether the op ``key`` names saves its VJP's residuals rather than recomputing."""
    op = key[0] if type(key) is tuple and key else key
    spec = REGISTRY.get(op)
    if spec is not None:
        return spec.residuals
    return op not in _RECOMPUTED


def apply(key, fn, args, name, saves: str = "inputs", scalar_edges: bool | str = False):
    """Apply pure ``fn`` to ``args`` (tensors and Python scalars); return tensor output(s).

    ``key`` identifies ``fn`` with its static arguments; ``name`` is the grad_fn's name,
    or a function returning it. ``saves`` says which tensors the
    backward needs ("none", "inputs", "others", "out" or "all"): only those are
    version-checked. ``scalar_edges`` (``OpSpec.scalar_edges``): an integer tensor, and
    where True a Python number, as the first or second operand is listed as a
    ``(None, 0)`` input, as PyTorch wraps a number into a tensor for add/sub/mul/div.
    """
    if PROFILER is not None:
        return PROFILER(key, fn, args, name, saves, scalar_edges)
    if not PLACEMENT.active and hooks.RECORDER is None:
        return run(key, fn, args, name, saves, scalar_edges)
    vals = [a._value if isinstance(a, Tensor) else a for a in args]
    if PLACEMENT.active:
        vals = _same_device(args, vals)
    if hooks.RECORDER is not None and _host_constants(vals):
        # torch.compile: small values computed from constants only (lengths, batch sizes,
        # indices built on the host) stay concrete, so host code may read them.
        with jax.ensure_compile_time_eval():
            return _apply(key, fn, args, vals, name, saves, scalar_edges)
    return _apply(key, fn, args, vals, name, saves, scalar_edges)


def run(key, fn, args, name, saves, scalar_edges, kernel=None):
    """``apply``'s common case (no profiler, device placement or compile trace), in one
    pass over the operands: their values, and which need a gradient. ``kernel``: the
    forward kernel of ``key`` when the caller holds it (``bind.fast_call``); such a caller
    passes only tensors and Python numbers, and gets None for any other operand."""
    vals, diff_idx, grad, lz = [], (), _state.enabled, False
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            st = getattr(a, "_storage", None)  # a sparse tensor has none
            if type(st) is LazyStorage and not a._chain:  # a recorded result (lazy.py)
                p = st.pending
                if p.array is None:
                    vals.append(p)
                    lz = True
                else:
                    vals.append(p.array)
            else:
                vals.append(a._value)
            if grad and (a.requires_grad if a._base is not None
                         else a._grad_fn is not None or a._requires_grad):
                diff_idx += (i,)
        elif type(a) is float or type(a) is int:
            vals.append(_scalar(a))
        elif kernel is not None:
            return None
        else:
            vals.append(a)
    if diff_idx:
        return _apply_with_grad(key, fn, args, vals, diff_idx, name, saves, scalar_edges, lz)
    return _forward(key, fn, lazy.resolve(vals) if lz else vals, kernel)


_SCALARS: dict = {}  # (type, value) -> 1 (seen once), then its device scalar
# The device scalars by value, per type (a float and an int of equal value are apart):
# the common case, a number met before, in one lookup. Never zero or NaN (see _scalar).
_FLOAT_SCALARS: dict = {}
_INT_SCALARS: dict = {}


def _scalar(v):
    """A Python number operand (an exact float or int) as a cached device scalar once it
    has come twice.

    JAX converts a Python number argument on every call (several us); a weakly typed
    device array of the same value gives the kernel the same type, so the same
    compiled program runs. A value is converted on its second appearance, so numbers that
    change every step (a scheduled learning rate) cost a dictionary entry, not a copy.
    Zero (0.0 and -0.0 would share a key), NaN and integers beyond int64 stay numbers.
    """
    hit = (_FLOAT_SCALARS if type(v) is float else _INT_SCALARS).get(v)
    if hit is not None:
        return hit
    if not v or v != v or (type(v) is int and not -(1 << 62) < v < 1 << 62):
        return v
    key = (type(v), v)
    if _SCALARS.get(key) is None:
        if len(_SCALARS) >= 4096:  # numbers that keep changing: start again
            _SCALARS.clear()
            _FLOAT_SCALARS.clear()
            _INT_SCALARS.clear()
        _SCALARS[key] = 1
        return v
    hit = _SCALARS[key] = jax.device_put(v)
    (_FLOAT_SCALARS if type(v) is float else _INT_SCALARS)[v] = hit
    return hit


def _host_constants(vals) -> bool:
    n = 0
    for v in vals:
        if isinstance(v, jax.Array):
            if isinstance(v, jax.core.Tracer):
                return False
            n += v.size
    return 0 < n <= 4096


def _apply(key, fn, args, vals, name, saves, scalar_edges):
    if _state.enabled:
        diff_idx = tuple(
            i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad
        )
        if diff_idx:
            return _apply_with_grad(key, fn, args, vals, diff_idx, name, saves, scalar_edges)
    return _forward(key, fn, vals)


def _forward(key, fn, vals, k=None):
    """The forward kernel's result as fresh tensors (no autograd record)."""
    if k is None:
        k = _FWD.get(key)
        if k is None:
            k = _fwd_kernel(key, fn)
    out = k(*vals)
    if PLACEMENT.blocking:
        jax.block_until_ready(out)
    if type(out) is tuple:
        return tuple(wrap(o) for o in out)
    return wrap(out)


def _apply_with_grad(key, fn, args, vals, diff_idx, name, saves, scalar_edges=False,
                     lz=False, out=None):
    """Record ``key``'s op on ``vals`` (``lz``: some are ``lazy.Pending``s) for autograd.
    ``out``: the forward's result where the caller ran it (``fast_paths.grad_lane``: an op
    whose node recomputes, on types it has run on before)."""
    k = _GRAD_FWD.get(key)
    if k is None:
        if keeps_residuals(key):
            k = _GRAD_FWD[key] = False
        else:  # the kernel, its top-level jit, and both as lazy.call's entry
            fwd = _fwd_kernel(key, fn)
            top = fwd.jitted()
            k = _GRAD_FWD[key] = (fwd, top, lazy.entry(key, fn, fwd, top))
    traces = _TRACES[0]
    vjp, rec = None, hooks.RECORDER
    if k is False:  # the node keeps the VJP's residuals
        if lz:
            lazy.resolve(vals)
        out, vjp = _vjp_kernel(key, fn, diff_idx)(*vals)
    elif out is None:  # the node recomputes in its backward (``backward_kernel``)
        if lazy._seg.ended:  # the next step's forward: the last step's segment first
            lazy.step()
        out = lazy.call(k[2], vals) if rec is None else k[0](*vals)  # run, or recorded
    if type(out) is lazy.Pending:  # recorded: one result of a known type, nothing traced
        lz, multi = True, False
    else:
        if _TRACES[0] != traces and _kernels.BACKGROUND:  # new types: compile the backward
            _backward_ahead(key, fn, vals, diff_idx, out, vjp)
        if PLACEMENT.blocking:
            jax.block_until_ready(out)
        multi = type(out) is tuple
        if rec is not None:  # torch.compile: inputs needing grad from outside the traced region
            for i in diff_idx:
                if rec.is_outside(args[i]):
                    rec.outside_input(args[i])
    edges, diff_edges, saved = [], [], []
    # "others" is mul's and mm's rule in PyTorch: an operand is saved only to compute
    # another operand's gradient, so a constant factor's partner is free to change.
    save_all = saves == "inputs" or saves == "all"
    others = saves == "others"
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            # Integer and bool operands (indices, masks, conditions) are not differentiable
            # inputs in PyTorch's schemas, so they get no slot in next_functions.
            if i in diff_idx:
                diff_edges.append(len(edges))
                if a._base is None:  # ``_edge()`` without its view check
                    node = a._grad_fn
                    if node is not None:
                        edges.append((node, a._output_nr))
                    else:  # a leaf: its AccumulateGrad, made on first use
                        acc = a._grad_acc
                        edges.append(acc.edge if acc is not None else a._edge())
                else:
                    edges.append(a._edge())
            elif a.dtype._kind >= 2 or scalar_edges and i < 2:  # add's int operand too
                edges.append((None, 0))
            if save_all or (others and (len(diff_idx) > 1 or diff_idx[0] != i)):
                # The value too: a write through ``.data`` changes it without a version.
                vc = a._vc
                saved += (vc, vc.version, a.dtype, a._shape, a, 0, vals[i])
        elif scalar_edges is True and i < 2 and isinstance(a, _NUMBER):
            edges.append((None, 0))
    if type(name) is not str:  # an overload-dependent name, computed only when recorded
        name = name()
    replay = (key, fn, vals, diff_idx, saves)
    if not multi and saves != "out" and saves != "all":  # the common case: one output
        t = wrap(out)
        if t.dtype._kind < 2:  # an integer or bool result has no gradient and no node
            return t
        t._grad_fn = node = op_node(name, vjp, edges, tuple(diff_edges),
                                    ((t._shape, out.dtype),), saved, replay)
        if lz:  # its inputs are recorded results: resolved by check_saved
            node._pending = True
        return t
    flat = out if multi else (out,)
    outs = [wrap(o) for o in flat]
    meta = tuple([(t._shape, o.dtype) if t.dtype._kind >= 2 else None
                  for t, o in zip(outs, flat, strict=True)])
    node = op_node(name, vjp, edges, tuple(diff_edges), meta, saved, replay)
    save_out = saves == "out" or saves == "all"
    for nr, (t, m) in enumerate(zip(outs, meta, strict=True)):
        if m is not None:
            t._grad_fn, t._output_nr = node, nr
            if save_out:
                st = t._storage
                saved += (t._vc, t._vc.version, t.dtype, t._shape, st, nr,
                          st.pending if type(st) is LazyStorage else st.value)
    if lz:
        node._pending = True
    return tuple(outs) if multi else outs[0]


def _backward_ahead(key, fn, vals, diff_idx, out, vjp) -> None:
    """Queue the compile of this node's backward kernel on the background thread (see
    ``_kernels.ahead``), for cotangents of its outputs' types, as the engine passes them."""
    flat = out if type(out) is tuple else (out,)
    if hooks.RECORDER is not None or isinstance(flat[0], jax.core.Tracer):
        return
    cts = tuple(o if not o.weak_type and type(o) is not lazy.Pending
                else jax.ShapeDtypeStruct(o.shape, o.dtype)
                for o in flat if _is_float(o.dtype))  # a gradient is never weakly typed
    vals = [jax.ShapeDtypeStruct(v.shape, v.dtype, weak_type=v.weak_type)
            if type(v) is lazy.Pending else v for v in vals]
    if vjp is None:
        backward_kernel(key, fn, diff_idx).compile_ahead(vals, cts)
    else:
        apply = _apply_vjp_full if _kernels.full_optimisation(key) else _apply_vjp
        apply.compile_ahead(vjp, cts)


def _same_device(args, vals):
    """PyTorch's rule once an accelerator is in use: every tensor operand on one device,
    except 0-dim CPU tensors, which join the others' device as scalars do."""
    target, scalars = None, ()
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            d = a._device
            if d.type == "cpu" and not a._shape:
                scalars += (i,)
            elif target is None:
                target = d
            elif d != target:
                raise RuntimeError("Expected all tensors to be on the same device, but found at "
                                   f"least two devices, {target} and {d}!")
    if scalars and target is not None and target.type != "cpu":
        vals = list(vals)
        for i in scalars:
            if vals[i].committed:  # uncommitted, JAX moves it to the others' devices itself
                vals[i] = np.asarray(vals[i])
    return vals


def _saves_input(saves: str, i: int, diff_idx) -> bool:
    # "others" is mul's and mm's rule in PyTorch: an operand is saved only to compute
    # another operand's gradient, so a constant factor's partner is free to change.
    if saves == "others":
        return any(j != i for j in diff_idx)
    return saves in ("inputs", "all")


def replay_backward(node: OpNode, grads):
    """Re-record a node's VJP as a differentiable op of its inputs (``create_graph=True``)."""
    key, fn, _, diff_idx, saves = node._replay
    vals = node.replay_vals()
    # The backward reads exactly what the op saves, so under create_graph only those inputs
    # are differentiable arguments of the replayed VJP (a saved output depends on all).
    live = tuple(i for i in diff_idx
                 if saves in ("out", "all") or _saves_input(saves, i, diff_idx))
    args = list(vals)
    for i, e in zip(diff_idx, node._diff_edges, strict=False):
        if i in live:
            args[i] = Tensor._saved_input(vals[i], node.next_functions[e])
    args += [g if isinstance(g, Tensor) else wrap(g) for g in grads]
    n = len(vals)
    run = fwd_vjp(fn, diff_idx)

    def backward_fn(*xs):
        return tuple(torch_vjp(run(*xs[:n])[1], tuple(xs[n:])))

    out = apply(("backward", key, diff_idx, n), backward_fn, args, f"{node._name}Backward")
    return out if isinstance(out, tuple) else (out,)


def _merge(vals, diff_idx, primals):
    args = list(vals)
    for i, x in zip(diff_idx, primals, strict=False):
        args[i] = x
    return args
