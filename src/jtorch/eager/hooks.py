"""The small, named hooks through which eager code reports to ``torch.compile``.

``RECORDER`` is the compile trace in progress (``jtorch.compiler._record.Recorder``) or
None; every hook costs one global read when no trace runs. ``EPOCH`` counts the structural
changes a compiled program's guards depend on, made anywhere (inside or outside compiled
code):

- ``EPOCH[0]`` and ``EPOCH[3]`` (slots): a tensor's ``.grad`` appearing, disappearing or
  being replaced; optimizer state created, a module's buffer replaced. Programs then check
  the slots they touched, cheaply.
- ``EPOCH[1]`` (Python): anything else a trace may have read from Python objects: module
  attributes and submodules, ``training`` flags, ``requires_grad`` flags, ``.data``
  assignment, parameter groups, ``load_state_dict``. A program retraces after one of these
  (and reuses its executable when the new trace is the same program).
- ``EPOCH[2]`` (modes): a module's ``training`` flag changing; programs then check the
  flags of the modules they call.
"""

from __future__ import annotations

import weakref

RECORDER = None
EPOCH = [0, 0, 0, 0]  # .grad slots, Python state, training flags, other slots
# Storages some compiled program binds by identity: a change of requires_grad or .data on
# a tensor holding one of them is a Python change its program may depend on.
TRACED: weakref.WeakSet = weakref.WeakSet()


def grad_read(t) -> None:
    """A trace read ``t.grad``: whether it is None (or which tensor it is) is guarded."""
    if RECORDER is not None:
        RECORDER.slot_read(t, "_grad")


def grad_write(t) -> None:
    """About to set ``t.grad`` to None or to another tensor."""
    EPOCH[0] += 1
    if RECORDER is not None:
        RECORDER.slot_write(t, "_grad")


def slot_write(owner, key) -> None:
    """About to change the tensor slot ``owner[key]`` (an optimizer's state for a
    parameter, a module's buffer): guarded like ``.grad``, under its own epoch."""
    EPOCH[3] += 1
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
