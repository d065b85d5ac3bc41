"""A compiled callable: guard key, cache of programs, retraces, and the eager fallback.

Each call computes a guard key (argument shapes, dtypes, grad flags and view structure;
Python scalars and other objects passed; grad/autocast modes; the default dtype; Python
numbers the function reads from its closure and globals) and looks up the programs traced
for it. A program is reused while the structural epochs (``jtorch.eager.hooks.EPOCH``) are
those it left behind; after a slot change (a ``.grad`` set to None, optimizer state
created) its slot guards decide; after a Python change (a module attribute, a ``training``
flag) it retraces and keeps the executable when the new trace is the same program. Past
the recompile limit, or when a call cannot be traced, the call runs eagerly.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import traceback
import warnings
import weakref

import jax
import numpy as np

from .. import _dtypes as D
from .. import _kernels
from ..amp import autocast_mode as _autocast
from ..eager import hooks
from ..eager.autograd import grad_mode
from ..eager.tensor import Tensor
from . import _program as P
from . import _record as R
from .config import config

_LIVE: weakref.WeakSet = weakref.WeakSet()
_SCALARS = (int, float, bool, str, type(None), complex)
_TRACER_ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                  jax.errors.TracerBoolConversionError, jax.errors.TracerIntegerConversionError,
                  jax.errors.UnexpectedTracerError, R.GraphBreak)
_STATS = {"calls": 0, "compiled_calls": 0, "eager_calls": 0, "traces": 0, "compiles": 0,
          "recompiles": []}


class TorchDynamoException(RuntimeError):
    """Base class of the compiler's errors (PyTorch's name)."""


class Unsupported(TorchDynamoException):
    """``fullgraph=True`` and the call cannot be traced into one program."""


class _Entry:
    """A program valid for one guard key, with the epochs it left behind."""

    __slots__ = ("prog", "epoch", "eager")

    def __init__(self, prog=None, eager: str | None = None):
        self.prog, self.epoch, self.eager = prog, None, eager


class CompiledFunction:
    """What ``torch.compile(fn)`` returns for a function (or a bound method)."""

    def __init__(self, fn, *, fullgraph=False, dynamic=None, name=None):
        self._fn = fn
        self._fullgraph = fullgraph
        self._dynamic = dynamic
        self._cache: dict = {}
        self._plans: dict = {}  # key -> Plan: later traces start from what earlier found
        self._programs = 0  # executables built (and calls that changed Python state)
        self._calls_traced = 0
        self._executables: dict = {}  # program fingerprint -> executable
        self._limit_warned = False
        self._warned: set = set()
        code_fn = getattr(fn, "__func__", fn)
        self._globals = getattr(code_fn, "__globals__", {})
        code = getattr(code_fn, "__code__", None)
        self._global_names = tuple(code.co_names) if code is not None else ()
        self._closure = getattr(code_fn, "__closure__", None) or ()
        self._name = name or getattr(fn, "__name__", type(fn).__name__)
        functools.update_wrapper(self, fn, updated=())
        _LIVE.add(self)

    # ------------------------------------------------------------ the call

    def __call__(self, *args, **kwargs):
        if hooks.RECORDER is not None or not config.enabled:  # nested: inline
            return self._fn(*args, **kwargs)
        _STATS["calls"] += 1
        tensors, key = self._key(args, kwargs)
        entries = self._cache.get(key)
        if entries is not None:
            for entry in entries:
                if entry.eager is not None:
                    return self._eager(args, kwargs)
                if self._valid(entry, tensors):
                    return self._run(entry, args, tensors)
        return self._retrace(key, entries, args, kwargs, tensors)

    def _key(self, args, kwargs):
        tensors: list = []
        sig: list = []
        _flatten(args, tensors, sig)
        if kwargs:
            sig.append(tuple(kwargs))
            _flatten(tuple(kwargs.values()), tensors, sig)
        # Globals and closure variables the function names: numbers by value, anything else
        # (tensors, modules, helpers) by identity, so rebinding one retraces.
        g = self._globals
        for n in self._global_names:
            v = g.get(n, _ABSENT)
            if v is not _ABSENT:
                sig.append(v if type(v) in _SCALARS else id(v))
        for c in self._closure:
            try:
                v = c.cell_contents
            except ValueError:
                continue
            sig.append(v if type(v) in _SCALARS else id(v))
        sig.append(_layout(tensors))
        st = grad_mode._state
        sig.append((st.enabled, st.inference, D._default[0], _autocast.state_key()))
        return tensors, tuple(sig)

    def _valid(self, entry, tensors) -> bool:
        prog, epoch, e = entry.prog, hooks.EPOCH, entry.epoch
        if e[1] != epoch[1]:
            return False
        if (e[0] != epoch[0] or e[3] != epoch[3]) and not prog.slots_hold(tensors, e, epoch):
            return False
        if e[2] != epoch[2]:
            for m, flag in prog.modes:
                if m.training is not flag:
                    return False
        for opt, group, statics in prog.groups:
            if opt._statics(group) != statics:
                return False
        return True

    def _run(self, entry, args, tensors):
        prog = entry.prog
        storages = [t._storage for t in tensors]
        storages = list(dict.fromkeys(storages)) if len(storages) > 1 else storages
        leaves = P.gather(prog.plan, tensors, storages)
        for i in prog.donate:  # XLA reuses these buffers: only when nothing else holds them
            if sys.getrefcount(leaves[i]) > _OWNED_REFS:
                leaves[i] = leaves[i].copy()
        node = None
        if prog.vjp_exe is not None and grad_mode._state.enabled:
            outs, vjp = prog.vjp_exe(*leaves)
            user = P.write_back(prog, tensors, storages, outs)
            diff = [v for v, f in zip(user, prog.diff_mask, strict=True) if f]
            node = P.region_node(prog, vjp, tensors, diff, leaves)
        else:
            outs = prog.exe(*leaves)
            user = P.write_back(prog, tensors, storages, outs)
        if prog.stable is None:  # does a run leave the slots as it found them?
            prog.stable = prog.slots_hold(tensors, (-1, 0, 0, -1), hooks.EPOCH)
        epoch = hooks.EPOCH
        entry.epoch = (epoch[0] if prog.stable else -1, epoch[1], epoch[2],
                       epoch[3] if prog.stable else -1)
        _STATS["compiled_calls"] += 1
        return P.wrap_outputs(prog, user, tensors, node)

    def _eager(self, args, kwargs):
        _STATS["eager_calls"] += 1
        return self._fn(*args, **kwargs)

    # ------------------------------------------------------------ tracing

    def _retrace(self, key, entries, args, kwargs, tensors):
        reason = self._reason(entries)
        if self._programs >= config.recompile_limit or _STATS["compiles"] >= \
                config.accumulated_recompile_limit:
            if not self._limit_warned:
                self._limit_warned = True
                warnings.warn(
                    f"torch.compile: {self._name} hit the recompile limit "
                    f"(torch._dynamo.config.recompile_limit = {config.recompile_limit}); "
                    f"running it eagerly from now on. Last retrace: {reason}.",
                    UserWarning, stacklevel=4)
            return self._eager(args, kwargs)
        if self._calls_traced:
            _log_recompile(self._name, reason)
        self._calls_traced += 1
        try:
            prog = self._build(key, args, kwargs, tensors)
        except P.Untraceable as exc:
            return self._untraceable(key, exc, args, kwargs)
        except Exception:  # noqa: BLE001 - the user's error: eager raises it where it belongs
            return self._eager(args, kwargs)
        if prog.python:
            self._programs += 1
            what = ", ".join(sorted({type(o).__name__ for o in prog.python}))
            return self._untraceable(key, P.Untraceable(
                f"it changes Python state ({what} attributes) that a compiled program cannot "
                "replay"), args, kwargs, permanent=False)
        epoch = hooks.EPOCH[1]  # entries left behind by a Python change never match again
        live = [e for e in (entries or ()) if e.epoch is None or e.epoch[1] == epoch]
        entry = _Entry(prog)
        self._cache[key] = [entry, *live][:_MAX_ENTRIES]
        return self._run(entry, args, tensors)

    def _reason(self, entries) -> str:
        if not entries:
            if not self._cache:
                return "first call"
            return "new guard key (input shapes, dtypes, grad flags, modes or scalars)"
        e = entries[0]
        if e.epoch is not None and e.epoch[1] != hooks.EPOCH[1]:
            return "Python state changed (a module attribute, requires_grad, parameter " \
                   "group or loaded state)"
        if e.prog is not None and any(m.training is not f for m, f in e.prog.modes):
            return "a module's training flag changed"
        return "a tensor slot changed (a .grad set or cleared, optimizer state created)"

    def _build(self, key, args, kwargs, tensors):
        plan = self._plans.get(key) or _seed_plan(self._fn, args)
        self._plans[key] = plan
        region = plan.region
        for _ in range(8):
            tr, traced = self._trace(args, kwargs, tensors, plan, region)
            rec = tr.rec
            if plan.grow(rec, tr.storages):
                continue
            if not region and not rec.backward_called and rec.boundary \
                    and grad_mode._state.enabled and any(
                        m[0] == "tensor" and m[2] for m in tr.result[1]):
                plan.boundary = [_bref(t, tensors) for t in rec.boundary.values()]
                plan.region = region = True
                plan.grad_flags = [m[2] for m in tr.result[1] if m[0] == "tensor"]
                continue
            break
        else:
            raise P.Untraceable("its state kept growing over 8 traces")
        # Donate in whole programs only: a region's inputs stay alive for create_graph.
        donate = _donated(tr) if config.donate and not region else ()
        if donate:  # the same trace again, now giving XLA the buffers it overwrites
            tr, traced = self._trace(args, kwargs, tensors, plan, region, donate)
        prog = P.Program(tr)
        prog.donate = donate
        hooks.TRACED.update(plan.state)
        vjp = region and grad_mode._state.enabled
        if vjp:
            prog.diff_mask = tr.diff_mask
            prog.diff_fn = P.diff_fn(tr.pure, tr.diff_mask)
            _apply_flags(prog, tr.diff_mask)
        fingerprint = _fingerprint(traced)
        exe = self._executables.get(fingerprint)
        if exe is None:  # the same program as one built before (e.g. after eval/train): reuse
            _STATS["compiles"] += 1
            self._programs += 1
            exe = self._executables[fingerprint] = traced.lower().compile(
                _kernels.program_options(traced.jaxpr) or None)
        if vjp:
            prog.vjp_exe = exe
        else:
            prog.exe = exe
        return prog

    def _trace(self, args, kwargs, tensors, plan, region, donate=()):
        tr = P._Trace(self._fn, args, kwargs, tensors, plan, region)
        leaves = tr.leaves()
        target = tr.pure
        if region and grad_mode._state.enabled:
            target = _fwd_vjp(tr.pure, len(plan.boundary), plan.grad_flags, tr)
        _STATS["traces"] += 1
        try:
            return tr, jax.jit(target, donate_argnums=donate).trace(*leaves)
        except _TRACER_ERRORS as exc:
            raise P.Untraceable(*_describe(exc)) from exc

    def _untraceable(self, key, exc, args, kwargs, permanent=True):
        if self._fullgraph:
            where = f" at {exc.line}" if exc.line else ""
            raise Unsupported(
                f"torch.compile(fullgraph=True) cannot compile {self._name}: {exc.what}{where}. "
                "Remove fullgraph=True to run such calls eagerly, or move the operation out "
                "of the compiled function.") from exc.cause
        msg = f"{exc.what}{' at ' + exc.line if exc.line else ''}"
        if msg not in self._warned:
            self._warned.add(msg)
            warnings.warn(f"torch.compile: running {self._name} eagerly: {msg}.",
                          UserWarning, stacklevel=4)
        if permanent:
            self._cache[key] = [_Entry(eager=msg)]
        return self._eager(args, kwargs)

    def reset(self) -> None:
        self._cache.clear()
        self._plans.clear()
        self._executables.clear()
        self._programs = self._calls_traced = 0
        self._limit_warned = False

    def __get__(self, obj, objtype=None):  # decorating a method compiles per instance call
        if obj is None:
            return self
        return functools.partial(self, obj)


_ABSENT = object()
_MAX_ENTRIES = 8


def _owned_refs() -> int:
    """getrefcount of a value held only by a storage and an inputs list, on this Python."""
    from ..eager.storage import Storage

    st = Storage(object())
    leaves = [st.value]
    return sys.getrefcount(leaves[0])


_OWNED_REFS = _owned_refs()


def _donated(tr) -> tuple:
    """Input positions of the storages the program overwrites."""
    plan, written = tr.plan, tr.rec.written
    base = len(plan.boundary)
    out = [base + i for i, st in enumerate(tr.storages) if id(st) in written]
    base += len(tr.storages) + len(P.chain_values(tr.tensors))
    arg_ids = {id(st) for st in tr.storages}
    out += [base + i for i, st in enumerate(plan.state)
            if id(st) in written and id(st) not in arg_ids]
    return tuple(out)


def _fingerprint(traced):
    """A program's identity: its jaxpr's text and its constants' values."""
    import hashlib

    closed = traced.jaxpr
    h = hashlib.sha1(str(closed).encode())
    for c in closed.consts:
        arr = np.asarray(c)
        h.update(f"{arr.dtype}{arr.shape}".encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def _flatten(obj, tensors, sig) -> None:
    t = type(obj)
    if isinstance(obj, Tensor):
        tensors.append(obj)
        sig.append(None)
    elif t is tuple or t is list:
        sig.append((t, len(obj)))
        for o in obj:
            _flatten(o, tensors, sig)
    elif t is dict:
        sig.append((dict, tuple(obj)))
        for o in obj.values():
            _flatten(o, tensors, sig)
    elif t in _SCALARS:
        sig.append((t, obj))
    else:
        sig.append((t, id(obj)))


def _layout(tensors) -> tuple:
    out = []
    for t in tensors:
        rg = t._requires_grad or t._grad_fn is not None or (t._base is not None
                                                             and t.requires_grad)
        if t._chain:
            st = t._storage.value
            out.append((t._shape, t.dtype, rg, st.shape, P.S.split_chain(t._chain)[0]))
        else:
            out.append((t._shape, t.dtype, rg))
    if len(tensors) > 1:
        ids = [id(t._storage) for t in tensors]
        if len(set(ids)) != len(ids):
            out.append(tuple(ids.index(i) for i in ids))
    return tuple(out)


def _bref(t, tensors):
    for i, a in enumerate(tensors):
        if a is t:
            return ("arg", i)
    return t


def _apply_flags(prog, mask) -> None:
    it = iter(mask)
    for i, m in enumerate(prog.out_meta):
        if m[0] == "tensor":
            prog.out_meta[i] = (m[0], m[1], next(it))


def _fwd_vjp(pure, nb, grad_flags, tr):
    """The region's kernel: outputs and the VJP with respect to its first ``nb`` inputs."""

    def fwd_vjp(*leaves):
        def f(*d):
            outs = pure(*d, *leaves[nb:])
            user = [m for m in tr.result[1] if m[0] == "tensor"]
            mask = [bool(flag) and P.is_float(o.dtype)
                    for o, flag in zip(outs[:len(user)], grad_flags, strict=True)]
            tr.diff_mask = mask
            diff = tuple(o for o, keep in zip(outs, mask, strict=False) if keep)
            return diff, outs

        _, vjp, outs = jax.vjp(f, *leaves[:nb], has_aux=True)
        return outs, vjp

    return fwd_vjp


def _seed_plan(fn, args) -> P.Plan:
    """A first plan binding the state of the modules and optimizers ``fn`` can reach
    directly (its closure, the globals it names, its ``self``, its arguments), so the
    first call usually traces once instead of twice."""
    from ..nn.modules.module import Module
    from ..optim.optimizer import Optimizer

    plan = P.Plan()
    code_fn = getattr(fn, "__func__", fn)
    objs = [getattr(fn, "__self__", None), *args]
    for c in getattr(code_fn, "__closure__", None) or ():
        try:
            objs.append(c.cell_contents)
        except ValueError:
            pass
    g = getattr(code_fn, "__globals__", {})
    code = getattr(code_fn, "__code__", None)
    objs += [g[n] for n in (code.co_names if code is not None else ()) if n in g]
    seen: dict = {}
    for o in objs:
        if isinstance(o, Module):
            for t in (*o.parameters(), *o.buffers()):
                seen.setdefault(id(t._storage), t._storage)
        elif isinstance(o, Optimizer):
            for group in o.param_groups:
                for p in group["params"]:
                    seen.setdefault(id(p._storage), p._storage)
                    for v in o.state.get(p, {}).values():
                        if isinstance(v, Tensor):
                            seen.setdefault(id(v._storage), v._storage)
    plan.state = list(seen.values())
    return plan


def _describe(exc):
    """(what, cause, user line) of an exception raised inside a trace."""
    frames = [(f, n) for f, n in traceback.walk_tb(exc.__traceback__)]
    user = [i for i, (f, _) in enumerate(frames) if _is_user(f.f_code.co_filename)]
    line, op = "", None
    if user:
        f, lineno = frames[user[-1]]
        src = linecache.getline(f.f_code.co_filename, lineno).strip()
        line = f"{f.f_code.co_filename}:{lineno}" + (f": {src}" if src else "")
        for g, _ in frames[user[-1] + 1:]:
            if g.f_code.co_filename.startswith(_JT):
                op = g.f_code.co_name
                break
    if isinstance(exc, R.GraphBreak):
        return exc.what, exc, line
    kind = {"TracerBoolConversionError": "a Python branch on a tensor value",
            "TracerIntegerConversionError": "a tensor value used as a Python int",
            "TracerArrayConversionError": "a tensor value copied to the host",
            "ConcretizationTypeError": "a data-dependent value or shape"}.get(
                type(exc).__name__, type(exc).__name__)
    return f"{kind}{f' (in {op})' if op else ''}", exc, line


_JT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_JAX = os.path.dirname(os.path.abspath(jax.__file__))


def _is_user(filename: str) -> bool:
    return not (filename.startswith((_JT, _JAX, sys.prefix, sys.base_prefix))
                or filename.startswith("<"))


def _log_recompile(name, reason) -> None:
    logs = os.environ.get("TORCH_LOGS", "")
    if "recompiles" in logs.replace("+", "").split(","):
        print(f"Recompiling function {name}: {reason}", file=sys.stderr)
    _STATS["recompiles"].append((name, reason))


def stats() -> dict:
    """Counters of compiled calls: calls, compiled_calls, eager_calls, traces, compiles, and
    the (function, reason) of every retrace."""
    return {**_STATS, "recompiles": list(_STATS["recompiles"])}


def reset() -> None:
    for f in list(_LIVE):
        f.reset()
    for k in ("calls", "compiled_calls", "eager_calls", "traces", "compiles"):
        _STATS[k] = 0
    _STATS["recompiles"].clear()
