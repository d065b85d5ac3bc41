"""The small, named hooks through which eager code reports to ``torch.compile``.

``RECORDER`` is the compile trace in progress (``jtorch.compiler._record.Recorder``) or
None; every hook costs one global read when no trace runs. ``EPOCH`` counts the structural
changes a compiled program's guards depend on, made anywhere (inside or outside compiled
code):

- ``EPOCH[0]`` (slots): a tensor's ``.grad`` appearing, disappearing or being replaced, and
  optimizer state being created. Guards check the slots a program touched, cheaply.
- ``EPOCH[1]`` (Python): anything else a trace may have read from Python objects: module
  attributes and submodules, ``training`` flags, ``requires_grad`` flags, ``.data``
  assignment, parameter groups, ``load_state_dict``. A program retraces after one of these
  (and reuses its executable when the new trace is the same program).
"""

from __future__ import annotations

import weakref

RECORDER = None
EPOCH = [0, 0]
# Storages some compiled program binds by identity: a change of requires_grad or .data on
# a tensor holding one of them is a Python change its program may depend on.
TRACED: weakref.WeakSet = weakref.WeakSet()


def slot_read(owner, key) -> None:
    """A trace read the tensor slot ``key`` of ``owner`` (``"_grad"`` of a tensor, or an
    optimizer's per-parameter state entry): its content at the trace's start is guarded."""
    if RECORDER is not None:
        RECORDER.slot_read(owner, key)


def slot_write(owner, key) -> None:
    """About to change the tensor slot ``key`` of ``owner`` (see ``slot_read``)."""
    EPOCH[0] += 1
    if RECORDER is not None:
        RECORDER.slot_write(owner, key)


def python_write(obj) -> None:
    """About to change Python state of ``obj`` that compiled code may have read."""
    EPOCH[1] += 1
    if RECORDER is not None:
        RECORDER.python_write(obj)


def tensor_changed(t) -> None:
    """About to change ``t``'s requires_grad flag or its storage (``.data = ...``)."""
    if RECORDER is not None:
        RECORDER.python_write(t)
        EPOCH[1] += 1
    elif t._storage in TRACED:
        EPOCH[1] += 1


def tracing() -> bool:
    """True while torch.compile traces: host-side checks of tensor values are skipped."""
    return RECORDER is not None
