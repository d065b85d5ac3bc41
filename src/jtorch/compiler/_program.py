"""Trace an imperative call into one pure JAX function, and run it as a program.

A ``Plan`` says what a trace binds as positional inputs: the call's tensor arguments (their
storages, plus the dynamic indices of argument views), state storages found by earlier
traces (bound by identity), random generators (key and counter) and optimizer
hyperparameters (Python numbers, lifted so a scheduler never retraces), and, for a region
recorded as one autograd node, the outside tensors needing grad that it reads.

``trace`` runs the user's function once on tracers with a ``Recorder`` active, then undoes
everything it did (storages, versions, slots, Python state): a trace has no effects. What
it saw becomes a ``Program``: the jitted function plus what to write back after each run —
the storages written, the tensor slots replaced (``.grad``, optimizer state), version
deltas and random draws — so every call, the first included, takes effect the same way.
"""

from __future__ import annotations

import weakref

import jax
import numpy as np

from .. import _dtypes as D
from ..eager import hooks
from ..eager.autograd import grad_mode
from ..eager.autograd.node import op_node
from ..eager.tensor import Tensor, wrap
from ..functional import shape as S
from . import _record as R

_VALUE = R._VALUE
_tensor_value = Tensor.__dict__["_value"]


class Plan:
    """The inputs a trace binds, grown by the traces that found more (misses)."""

    def __init__(self):
        self.state: list = []  # storages bound by identity
        self.gens: list = []  # random generators lifted (key, counter)
        self.hypers: list = []  # (optimizer, group, names) lifted
        self.boundary: list = []  # region inputs needing grad: ("arg", i) or a Tensor
        self.region = False
        self.grad_flags = None  # region: which user outputs need grad

    def copy(self) -> Plan:
        new = Plan()
        new.state, new.gens, new.hypers = list(self.state), list(self.gens), list(self.hypers)
        new.boundary, new.region = list(self.boundary), self.region
        new.grad_flags = self.grad_flags
        return new

    def grow(self, rec, arg_storages) -> bool:
        """Add what ``rec`` found unbound; True when the next trace needs to bind more."""
        args = {id(s) for s in arg_storages}
        have = {id(s) for s in self.state}
        new = [s for i, s in rec.misses.items() if i not in have and i not in args]
        self.state += new
        gens = {id(g) for g in self.gens}
        new_gens = [e[0] for i, e in rec.gens.items() if i not in gens]
        self.gens += new_gens
        hyp = {(id(o), id(g)) for o, g, _ in self.hypers}
        new_h = [tuple(e) for k, e in rec.hypers.items() if k not in hyp]
        self.hypers += new_h
        return bool(new or new_gens or new_h)


class Untraceable(Exception):
    """A trace could not turn the call into a program; ``what`` says why."""

    def __init__(self, what: str, cause: BaseException | None = None, line: str = ""):
        super().__init__(what)
        self.what, self.cause, self.line = what, cause, line


# ------------------------------------------------------------------ arguments


def arg_layout(tensors):
    """The storages of the argument tensors (each once) and per tensor its storage's index
    and chain structure; the layout is part of the guard key."""
    storages, index, layout = [], {}, []
    for t in tensors:
        st = t._storage
        i = index.get(id(st))
        if i is None:
            i = index[id(st)] = len(storages)
            storages.append(st)
        structure = S.split_chain(t._chain)[0] if t._chain else None
        layout.append((i, structure))
    return storages, tuple(layout)


def chain_values(tensors) -> list:
    vals = []
    for t in tensors:
        if t._chain:
            vals.extend(S.split_chain(t._chain)[1])
    return vals


# ------------------------------------------------------------------ tracing


class _Trace:
    """The per-trace closure state shared by ``pure`` and the code that reads its record."""

    def __init__(self, fn, args, kwargs, tensors, plan, region):
        self.fn, self.args, self.kwargs, self.tensors = fn, args, kwargs, tensors
        self.plan, self.region = plan, region
        self.storages, self.layout = arg_layout(tensors)
        self.rec = None
        self.result = None  # (treedef, per leaf: ("tensor", meta) | ("const", value))

    def leaves(self) -> list:
        """Concrete values for the inputs, in the order ``pure`` takes them."""
        return gather(self.plan, self.tensors, self.storages)

    def pure(self, *leaves):
        plan, rec = self.plan, R.Recorder()
        self.rec = rec
        nb = len(plan.boundary)
        it = iter(leaves[nb:])
        saved_chains = []
        rec.start()
        try:
            arg_vals = [next(it) for _ in self.storages]
            chains = []
            for t in self.tensors:
                if t._chain:
                    structure, values = S.split_chain(t._chain)
                    chains.append((t, S.join_chain(structure, [next(it) for _ in values])))
            for st in plan.state:
                rec.bind(st, next(it))
            for st, v in zip(self.storages, arg_vals, strict=True):  # arguments win
                rec.bind(st, v)
            for t, chain in chains:
                saved_chains.append((t, t._chain, t._cache, t._cache_src))
                t._chain, t._cache_src = chain, None
            for g in plan.gens:
                rec.lifted_gens[id(g)] = (next(it), next(it))
            for opt, group, names in plan.hypers:
                rec.lifted_hypers[(id(opt), id(group))] = {n: next(it) for n in names}
            placeholders = {}
            for b, v in zip(plan.boundary, leaves[:nb], strict=True):
                t = self.tensors[b[1]] if isinstance(b, tuple) else b
                placeholders[id(t)] = v
            if self.region:
                _install_placeholders(placeholders)
                with grad_mode.no_grad():
                    result = self.fn(*self.args, **self.kwargs)
            else:
                result = self.fn(*self.args, **self.kwargs)
            return self._outputs(result)
        finally:
            if self.region:
                _uninstall_placeholders()
            rec.stop()
            for t, chain, cache, src in saved_chains:
                t._chain, t._cache, t._cache_src = chain, cache, src
            rec.undo()

    def _outputs(self, result):
        """Flat output values: user outputs, then written storages, then slot tensors."""
        rec = self.rec
        leaves, treedef = jax.tree.flatten(result, is_leaf=lambda x: isinstance(x, Tensor))
        outs, meta = [], []
        args = {id(t): i for i, t in enumerate(self.tensors)}
        for leaf in leaves:
            if isinstance(leaf, Tensor) and id(leaf) in args:  # returned as itself
                meta.append(("arg", args[id(leaf)]))
            elif isinstance(leaf, Tensor):
                meta.append(("tensor", leaf._stride, leaf.requires_grad))
                outs.append(leaf._value)
            else:
                meta.append(("const", leaf))
        self.result = (treedef, meta)
        rec.out_storages = list(rec.written.values())
        outs += [_VALUE.__get__(st) for st in rec.out_storages]
        rec.slot_outputs = []
        for owner, key, start, written in rec.slots.values():
            if not written or _born_owner(rec, owner):
                continue
            end = R.slot_get(owner, key)
            spec = _slot_spec(rec, end, outs)
            rec.slot_outputs.append((owner, key, start, spec))
        return tuple(outs)


def _born_owner(rec, owner) -> bool:
    return isinstance(owner, Tensor) and id(owner._storage) in rec.born


def _slot_spec(rec, end, outs):
    """How to replay a slot's final content: ("keep", obj) | ("tensor", i, meta) |
    ("dict", [(key, spec)])."""
    if isinstance(end, Tensor):
        if id(end._storage) in rec.born or id(end._storage) in rec.written:
            outs.append(end._value)
            return ("tensor", len(outs) - 1, (end._stride, end._device))
        return ("keep", end)
    if isinstance(end, dict):
        return ("dict", [(k, _slot_spec(rec, v, outs)) for k, v in end.items()])
    return ("keep", end)


# ------------------------------------------------------------------ placeholders (regions)


_PLACEHOLDERS: dict = {}


def _placeholder_value(self):
    v = _PLACEHOLDERS.get(id(self))
    if v is not None:
        return v
    return _tensor_value.__get__(self)


def _install_placeholders(placeholders) -> None:
    _PLACEHOLDERS.clear()
    _PLACEHOLDERS.update(placeholders)
    Tensor._value = property(_placeholder_value)


def _uninstall_placeholders() -> None:
    Tensor._value = _tensor_value
    _PLACEHOLDERS.clear()


# ------------------------------------------------------------------ gathering inputs


def gather(plan, tensors, storages) -> list:
    vals = []
    for b in plan.boundary:
        t = tensors[b[1]] if isinstance(b, tuple) else b
        vals.append(t._value)
    vals += [st.value for st in storages]
    if any(t._chain for t in tensors):
        vals += chain_values(tensors)
    vals += [st.value for st in plan.state]
    for g in plan.gens:
        key, counter = g._peek(0)
        vals += [key, counter]
    for opt, group, names in plan.hypers:
        hyper = opt._hyper(group)
        vals += [_scalar(hyper[n]) for n in names]
    return vals


def _scalar(v):
    # eager optimizers pass float(x): a weakly typed float64 operand, as this is
    return v if type(v) is float else float(v)


# ------------------------------------------------------------------ the program


class Program:
    """A traced call: its executable(s) and what each run writes back."""

    def __init__(self, tr: _Trace):
        rec, plan = tr.rec, tr.plan
        self.plan = plan.copy()  # the key's plan grows on; this program's inputs do not
        self.region = tr.region
        self.treedef, self.out_meta = tr.result
        self.out_meta = list(self.out_meta)
        self.n_user = sum(1 for m in self.out_meta if m[0] == "tensor")
        arg_ids = {id(s): i for i, s in enumerate(tr.storages)}
        self.written = [("arg", arg_ids[id(s)]) if id(s) in arg_ids else s
                        for s in rec.out_storages]
        self.slots = [(_ref(owner, tr.tensors), key, spec)
                      for owner, key, _start, spec in rec.slot_outputs]
        self.guards = [(_ref(owner, tr.tensors), key, start)
                       for owner, key, start, _w in rec.slots.values()
                       if not _born_owner(rec, owner)]
        # The same guards split by kind, for a fast check on every call.
        self._grad_guards = [(o, s) for o, k, s in self.guards
                             if isinstance(o, Tensor) and k == "_grad"]
        self._item_guards = [(o, k, s) for o, k, s in self.guards if isinstance(o, dict)]
        self._arg_guards = [(o, k, s) for o, k, s in self.guards if type(o) is tuple]
        vcs = {id(t._vc): i for i, t in enumerate(tr.tensors)}
        self.versions = [(("arg", vcs[id(vc)]) if id(vc) in vcs else vc, d)
                         for vc, d in rec.deltas]
        self.draws = [(e[0], e[1]) for e in rec.gens.values() if e[1]]
        self.groups = list(rec.groups)
        self.modes = list(rec.modules.values())
        self.python = [obj for obj, snap in rec.python.values() if _changed(obj, snap)]
        self.diff_mask = None
        self.donate = ()
        self.stable = None  # after one run: whether its slot guards still hold
        self.exe = None
        self.vjp_exe = None
        self.jaxpr = None


def _slots_hold(self, tensors, seen, epoch) -> bool:
    """Whether every slot this program guards holds what it held when traced (only the
    kinds whose epoch moved since ``seen`` are checked)."""
    if seen[0] != epoch[0]:
        for t, start in self._grad_guards:
            if t._grad is not start:
                return False
    if seen[3] != epoch[3]:
        missing = R.MISSING
        for d, k, start in self._item_guards:
            if d.get(k, missing) is not start:
                return False
    for ref, k, start in self._arg_guards:
        if R.slot_get(tensors[ref[1]], k) is not start:
            return False
    return True


Program.slots_hold = _slots_hold


def _ref(owner, tensors):
    for i, t in enumerate(tensors):
        if owner is t:
            return ("arg", i)
    return owner


def _resolve(ref, tensors):
    if type(ref) is tuple:
        return tensors[ref[1]]
    return ref


def _changed(obj, snap) -> bool:
    if snap is None:
        return True
    d = getattr(obj, "__dict__", {})
    if set(d) != set(snap):
        return True
    for k, (v, contents) in snap.items():
        cur = d[k]
        if cur is not v:
            return True
        if contents is not None and _container_changed(cur, contents):
            return True
    return False


def _container_changed(cur, contents) -> bool:
    if isinstance(cur, dict):
        return cur.keys() != contents.keys() or any(cur[k] is not contents[k] for k in cur)
    if isinstance(cur, list):
        return len(cur) != len(contents) or any(a is not b for a, b in zip(cur, contents))
    return cur != contents


def write_back(prog: Program, tensors, storages, outs) -> list:
    """Apply one run's results; return the user's output values."""
    n = prog.n_user
    i = n
    for w in prog.written:
        st = storages[w[1]] if type(w) is tuple else w
        _VALUE.__set__(st, outs[i])
        i += 1
    for ref, key, spec in prog.slots:
        owner = _resolve(ref, tensors)
        _replay_slot(owner, key, spec, outs)
    for vc, d in prog.versions:
        if type(vc) is tuple:
            vc = tensors[vc[1]]._vc
        vc.version += d
    for gen, draws in prog.draws:
        gen._counter += draws
    return outs[:n]


def _note(owner, key) -> None:
    if isinstance(owner, Tensor):
        hooks.grad_write(owner)
    else:
        hooks.slot_write(owner, key)


def _replay_slot(owner, key, spec, outs) -> None:
    kind = spec[0]
    cur = R.slot_get(owner, key)
    if kind == "keep":
        if cur is not spec[1]:
            _note(owner, key)
            R.slot_set(owner, key, spec[1])
        return
    if kind == "tensor":
        new = _tensor_into(cur, outs[spec[1]], spec[2])
        if new is not cur:
            _note(owner, key)
            R.slot_set(owner, key, new)
        return
    if not isinstance(cur, dict):
        _note(owner, key)
        cur = {}
        R.slot_set(owner, key, cur)
    for k, sub in spec[1]:
        if sub[0] == "keep":
            cur[k] = sub[1]
        elif sub[0] == "tensor":
            cur[k] = _tensor_into(cur.get(k), outs[sub[1]], sub[2])
        else:
            _replay_slot(cur, k, sub, outs)


def _tensor_into(cur, value, meta):
    """``cur`` updated in place with ``value`` when it fits, else a new tensor."""
    if (isinstance(cur, Tensor) and not cur._chain and cur._shape == value.shape
            and cur.dtype.np == value.dtype):
        _VALUE.__set__(cur._storage, value)
        cur._vc.version += 1
        return cur
    t = wrap(value)
    stride, _device = meta
    if stride is not None:
        t._stride = stride
    return t


def wrap_outputs(prog: Program, values, tensors, node=None):
    """The user's return value rebuilt from output values (``node``: the region's grad_fn
    for outputs that need grad)."""
    leaves, it, nr = [], iter(values), 0
    for m in prog.out_meta:
        if m[0] == "const":
            leaves.append(m[1])
            continue
        if m[0] == "arg":
            leaves.append(tensors[m[1]])
            continue
        t = wrap(next(it))
        if m[1] is not None:
            t._stride = m[1]
        if node is not None and m[2]:
            t._grad_fn, t._output_nr = node, nr
        if m[2]:
            nr += 1
        leaves.append(t)
    return jax.tree.unflatten(prog.treedef, leaves)


def region_node(prog, vjp, tensors, diff_outs, leaves, name="CompiledFunctionBackward"):
    """The one autograd node a compiled region records; ``create_graph=True`` replays the
    region as a differentiable op of its inputs (``dispatch.replay_backward``)."""
    edges, saved = [], []
    for b in prog.plan.boundary:
        t = tensors[b[1]] if isinstance(b, tuple) else b
        edges.append(t._edge())
        # No value to compare: the region's VJP keeps its own residuals (see OpNode._saved).
        saved += (t._vc, t._vc.version, t.dtype, t._shape, weakref.ref(t), 0, None)
    meta = tuple((v.shape, v.dtype) for v in diff_outs)
    diff_idx = tuple(range(len(edges)))
    replay = (("compiled", id(prog)), prog.diff_fn, tuple(leaves), diff_idx, diff_idx)
    return op_node(name, vjp, edges, diff_idx, meta, saved, replay)


def diff_fn(pure, mask):
    """The region's differentiable outputs as a function of its inputs."""

    def fn(*leaves):
        outs = pure(*leaves)
        return tuple(o for o, keep in zip(outs, mask, strict=False) if keep)

    return fn


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind in "fc" or np.dtype(dtype) == D.bfloat16.np
