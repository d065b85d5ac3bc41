"""What a compile trace records while it runs eager code on tracers.

While a ``Recorder`` is active, ``Storage.value`` and ``VersionCounter.version`` are
recording descriptors (installed on the classes for the trace only, so eager code pays
nothing otherwise) and the hooks of ``jtorch.eager.hooks`` report to it. It records:

- **state**: storages that existed before the trace and were read while holding a concrete
  value (a *miss*: the next trace binds them as inputs), and those written (outputs);
  storages born during the trace; version counters bumped (their deltas are replayed).
- **slots**: tensor slots read or changed (a tensor's ``.grad``, an optimizer's state entry
  for a parameter, a module's buffer), with their content at the trace's start (guarded)
  and end (replayed).
- **Python writes** to modules, tensors' flags and optimizers (undone if the trace fails;
  a trace that changed Python state cannot be replayed by a program).
- **lifted scalars**: random generators drawn from and optimizer hyperparameters, which
  become traced inputs so new seeds, counters and learning rates never retrace.

``restore()`` puts every pre-existing storage's concrete value back; ``undo()`` also
reverts slots and Python writes, so a failed trace leaves no tracer behind.
"""

from __future__ import annotations

import contextlib
import copy

import jax

from ..eager import hooks
from ..eager.storage import Storage, VersionCounter
from ..eager.tensor import Tensor

_VALUE = Storage.__dict__["value"]
_VERSION = VersionCounter.__dict__["version"]
_STORAGE_INIT = Storage.__init__
_VC_INIT = VersionCounter.__init__
_Tracer = jax.core.Tracer
MISSING = object()


class GraphBreak(RuntimeError):
    """Raised inside a trace by an operation that needs a concrete value."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


class _RecordingValue:
    """``Storage.value`` during a trace."""

    def __get__(self, st, cls=None):
        if st is None:
            return self
        v = _VALUE.__get__(st)
        rec = hooks.RECORDER
        if rec is not None and not isinstance(v, _Tracer):
            i = id(st)
            if i not in rec.born and i not in rec.written:
                rec.misses.setdefault(i, st)
        return v

    def __set__(self, st, v):
        rec = hooks.RECORDER
        if rec is not None:
            i = id(st)
            if i not in rec.born:
                if i not in rec.originals:
                    rec.originals[i] = (st, _VALUE.__get__(st))
                rec.written.setdefault(i, st)
        _VALUE.__set__(st, v)


class _RecordingVersion:
    """``VersionCounter.version`` during a trace."""

    def __get__(self, vc, cls=None):
        if vc is None:
            return self
        return _VERSION.__get__(vc)

    def __set__(self, vc, v):
        rec = hooks.RECORDER
        if rec is not None and id(vc) not in rec.born_vcs and id(vc) not in rec.vcs:
            rec.vcs[id(vc)] = (vc, _VERSION.__get__(vc))
        _VERSION.__set__(vc, v)


def _storage_init(self, value):
    rec = hooks.RECORDER
    if rec is not None:
        rec.born.add(id(self))
        rec.born_refs.append(self)
    _STORAGE_INIT(self, value)


def _vc_init(self):
    rec = hooks.RECORDER
    if rec is not None:
        rec.born_vcs.add(id(self))
        rec.born_refs.append(self)
    _VC_INIT(self)


def slot_get(owner, key):
    if isinstance(owner, Tensor):
        return owner._grad
    return owner.get(key, MISSING)


def slot_set(owner, key, value) -> None:
    if isinstance(owner, Tensor):
        owner._grad = value
    elif value is MISSING:
        owner.pop(key, None)
    else:
        owner[key] = value


class Recorder:
    """The record of one trace; active between ``start()`` and ``stop()``."""

    def __init__(self, args_storages=()):
        self.originals: dict = {}  # id -> (storage, concrete value before the trace)
        self.misses: dict = {}  # id -> storage read while concrete, not bound
        self.written: dict = {}  # id -> pre-existing storage written
        self.born: set = set()
        self.born_vcs: set = set()
        self.born_objects: set = set()
        self.born_refs: list = []  # keeps born objects alive so their ids stay unique
        self.vcs: dict = {}  # id -> (counter, version before the trace)
        self.slots: dict = {}  # (id(owner), key) -> [owner, key, start content, written]
        self.python: dict = {}  # id(obj) -> (obj, snapshot)
        self.gens: dict = {}  # id(generator) -> [generator, draws, key, counter]
        self.hypers: dict = {}  # (id(optimizer), id(group)) -> [optimizer, group, values]
        self.groups: list = []  # (optimizer, group, statics) stepped
        self.boundary: dict = {}  # id(tensor) -> tensor: outside tensors needing grad
        self.modules: dict = {}  # id(module) -> (module, training flag when first called)
        self.backward_called = False
        self.lifted_gens: dict = {}  # id(generator) -> (key tracer, counter tracer)
        self.lifted_hypers: dict = {}  # (id(opt), id(group)) -> {name: tracer}
        self.start_seq = 0
        self.draw = None  # sandboxes: how a draw gets its (key, counter)

    # ------------------------------------------------------------ activation

    def start(self) -> None:
        from ..eager.autograd import node

        if hooks.RECORDER is not None:
            raise RuntimeError("a torch.compile trace is already running")
        self.start_seq = next(node._seq)
        Storage.value, VersionCounter.version = _RecordingValue(), _RecordingVersion()
        Storage.__init__, VersionCounter.__init__ = _storage_init, _vc_init
        hooks.RECORDER = self

    def stop(self) -> None:
        hooks.RECORDER = None
        Storage.value, VersionCounter.version = _VALUE, _VERSION
        Storage.__init__, VersionCounter.__init__ = _STORAGE_INIT, _VC_INIT

    def bind(self, storage, value) -> None:
        """Give a pre-existing storage a traced value for the trace."""
        if id(storage) not in self.originals:
            self.originals[id(storage)] = (storage, _VALUE.__get__(storage))
        _VALUE.__set__(storage, value)

    def restore(self) -> None:
        """Put back the concrete value of every pre-existing storage the trace bound or
        wrote (a program's outputs are written after it runs)."""
        for st, v in self.originals.values():
            _VALUE.__set__(st, v)

    def version_deltas(self) -> list:
        """(counter, bumps) of each pre-existing version counter the trace moved."""
        return [(vc, _VERSION.__get__(vc) - v) for vc, v in self.vcs.values()
                if _VERSION.__get__(vc) != v]

    def undo(self) -> None:
        """Revert everything the trace changed: storages, versions, slots, Python state."""
        self.deltas = self.version_deltas()
        self.restore()
        for vc, v in self.vcs.values():
            _VERSION.__set__(vc, v)
        for owner, key, start, _ in self.slots.values():
            slot_set(owner, key, start)
        for obj, snap in self.python.values():
            _restore(obj, snap)
        # Generators need nothing: a draw inside a trace never advances their counter.

    # ------------------------------------------------------------ hooks (eager -> here)

    def slot_read(self, owner, key) -> None:
        if id(owner) in self.born_objects:
            return
        k = (id(owner), key if isinstance(key, str) else id(key))
        if k not in self.slots:
            self.slots[k] = [owner, key, slot_get(owner, key), False]

    def slot_write(self, owner, key) -> None:
        if id(owner) in self.born_objects:
            return  # a container made by this trace: its parent slot replays it
        k = (id(owner), key if isinstance(key, str) else id(key))
        entry = self.slots.get(k)
        if entry is None:
            self.slots[k] = [owner, key, slot_get(owner, key), True]
        else:
            entry[3] = True

    def python_write(self, obj) -> None:
        i = id(obj)
        if i in self.python or i in self.born_objects:
            return
        if isinstance(obj, Tensor) and id(obj._storage) in self.born:
            return
        self.python[i] = (obj, _snapshot(obj))

    def module_called(self, module) -> None:
        if id(module) not in self.modules and id(module) not in self.born_objects:
            self.modules[id(module)] = (module, module.training)

    def born_object(self, obj) -> None:
        self.born_objects.add(id(obj))
        self.born_refs.append(obj)

    def rng(self, gen):
        """(key, counter) for one draw from ``gen`` inside the trace."""
        if self.draw is not None:
            return self.draw(gen)
        e = self.gens.get(id(gen))
        if e is None:
            e = self.gens[id(gen)] = [gen, 0]
        lifted = self.lifted_gens.get(id(gen))
        if lifted is None:  # not bound yet: draw concretely, bind it on the next trace
            key, counter = gen._peek(e[1])
            e[1] += 1
            return key, counter
        key, counter = lifted
        n = e[1]
        e[1] += 1
        return key, counter + n

    def hyper(self, optimizer, group, values: dict) -> dict:
        """The hyperparameters of a stepped group, with Python numbers as traced scalars."""
        k = (id(optimizer), id(group))
        self.hypers.setdefault(k, [optimizer, group, tuple(
            n for n, v in values.items() if type(v) in (float, int, bool))])
        lifted = self.lifted_hypers.get(k)
        if lifted is None:
            return values
        return {n: lifted.get(n, v) for n, v in values.items()}

    def group(self, optimizer, group, statics) -> None:
        self.groups.append((optimizer, group, statics))

    def outside_input(self, t) -> None:
        """``t`` needs grad and comes from outside the trace (an edge out of the region)."""
        self.boundary.setdefault(id(t), t)

    def is_outside(self, t) -> bool:
        fn = t._grad_fn
        if fn is None:
            return id(t._storage) not in self.born
        return fn._seq < self.start_seq


def _snapshot(obj):
    """A shallow copy of ``obj``'s attributes, containers one level deep."""
    d = getattr(obj, "__dict__", None)
    if d is None:
        return None
    snap = {}
    for k, v in d.items():
        if isinstance(v, dict | list | set):
            snap[k] = (v, copy.copy(v))
        else:
            snap[k] = (v, None)
    return snap


def _restore(obj, snap) -> None:
    if snap is None:
        return
    d = obj.__dict__
    d.clear()
    for k, (v, contents) in snap.items():
        if contents is not None:
            if isinstance(v, dict):
                v.clear()
                v.update(contents)
            elif isinstance(v, list):
                v[:] = contents
            else:
                v.clear()
                v.update(contents)
        d[k] = v


@contextlib.contextmanager
def sandbox(draw=None):
    """Run jtorch code on JAX tracers (inside a JAX transformation) without effects: every
    storage, version, slot and Python change it makes is undone on exit, so no tracer
    outlives the transformation. ``draw(generator) -> (key, counter)`` decides what random
    draws see (default: the generator's next draw, advancing it as eager code does).
    Inside a compile trace (or another sandbox) this is a no-op: the outer one records."""
    if hooks.RECORDER is not None:
        yield hooks.RECORDER
        return
    rec = Recorder()
    rec.draw = draw if draw is not None else _eager_draw
    rec.start()
    try:
        yield rec
    finally:
        rec.stop()
        rec.undo()


def _eager_draw(gen):
    key, counter = gen._peek(0)
    gen._counter += 1
    return key, counter
