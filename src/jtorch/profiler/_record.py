"""Recording for torch.profiler: events for every op jtorch dispatches, every autograd node
the backward runs, and every ``record_function`` range, nested by time on each thread.

An op is timed to completion: while recording, the op's outputs are waited for (JAX runs
asynchronously), so "CPU time" is the op's full cost, as PyTorch's synchronous CPU kernels
report it.
"""

from __future__ import annotations

import math
import re
import threading
import time
import traceback

import jax

from ..eager import dispatch
from ..eager.tensor import Tensor

_local = threading.local()
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
_NO_GRAD_NAME = re.compile(r"Backward\d*$")


class Event:
    """One timed range (PyTorch's FunctionEvent): times are in microseconds."""

    def __init__(self, name: str, start: float, thread: int, input_shapes=None, stack=None,
                 kind: str = "cpu_op"):
        self.name, self.start, self.end, self.thread = name, start, start, thread
        self.input_shapes, self.stack, self.kind = input_shapes or [], stack or [], kind
        self.children: list[Event] = []
        self.cpu_parent: Event | None = None
        self.cpu_memory_usage = 0
        self.flops = 0

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end - self.start

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.children)

    @property
    def count(self) -> int:
        return 1

    def __repr__(self) -> str:
        return (f"<FunctionEvent name={self.name} cpu_time_total={self.cpu_time_total:.3f}us "
                f"input_shapes={self.input_shapes}>")


class Recorder:
    """The events of one recording session."""

    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False):
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.with_stack, self.with_flops = with_stack, with_flops
        self.events: list[Event] = []
        self.t0 = time.perf_counter_ns()

    def now(self) -> float:
        return (time.perf_counter_ns() - self.t0) / 1000.0

    def open(self, name: str, args=(), kind="cpu_op") -> Event:
        shapes = [list(a.shape) if isinstance(a, Tensor) else [] for a in args] \
            if self.record_shapes or self.with_flops else None
        stack = _user_stack() if self.with_stack else None
        ev = Event(name, self.now(), threading.get_ident(), shapes, stack, kind)
        open_stack = _open_events()
        if open_stack:
            ev.cpu_parent = open_stack[-1]
            open_stack[-1].children.append(ev)
        open_stack.append(ev)
        self.events.append(ev)
        return ev

    def close(self, ev: Event, outputs=None) -> None:
        ev.end = self.now()
        stack = _open_events()
        if stack and stack[-1] is ev:
            stack.pop()
        if outputs is not None:
            outs = outputs if isinstance(outputs, tuple | list) else (outputs,)
            if self.profile_memory:
                ev.cpu_memory_usage += sum(o.nbytes for o in outs if isinstance(o, Tensor))
                for p in _parents(ev):
                    p.cpu_memory_usage += ev.cpu_memory_usage
            if self.with_flops:
                ev.flops = _flops(ev.name, ev.input_shapes, outs)


def _parents(ev):
    p = ev.cpu_parent
    while p is not None:
        yield p
        p = p.cpu_parent


def _open_events() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _user_stack() -> list[str]:
    """The caller's frames outside jtorch, innermost first, as PyTorch's ``with_stack``."""
    frames = [f for f in traceback.extract_stack()[:-3] if "/jtorch/" not in f.filename]
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(frames)]


def _flops(name: str, shapes, outs) -> int:
    """PyTorch's FLOP formulas for the matrix products, convolutions and add/mul."""
    op = name.removeprefix("aten::")
    out = next((o for o in outs if isinstance(o, Tensor)), None)
    if out is None or not shapes:
        return 0
    if op in ("mm", "addmm", "bmm", "baddbmm", "matmul", "linear"):
        a, b = shapes[-2:] if op in ("addmm", "baddbmm") else shapes[:2]
        k = a[-1] if a else 1
        return 2 * math.prod(out.shape) * k
    if op.startswith("conv"):
        w = shapes[1]
        return 2 * math.prod(out.shape) * math.prod(w[1:])
    if op in ("add", "mul", "sub", "div"):
        return math.prod(out.shape)
    return 0


def op_name(key, name) -> str:
    """PyTorch's ``aten::`` name for a dispatched jtorch op."""
    head = key[0] if isinstance(key, tuple) else key
    if head in ("random", "random_", "nn_random") and isinstance(key[1], str):
        return f"aten::{key[1]}"
    if isinstance(head, str) and head not in ("read", "scatter", "read_many", "to",
                                              "backward", "reshape_copy"):
        return f"aten::{head}"
    text = name if isinstance(name, str) else name()
    return "aten::" + _CAMEL.sub("_", _NO_GRAD_NAME.sub("", text)).lower()


# ------------------------------------------------------------------ installing


_ACTIVE: list[Recorder] = []


def _record_op(key, fn, args, name, saves, scalar_edges):
    rec = _ACTIVE[-1]
    ev = rec.open(op_name(key, name), args)
    dispatch.PROFILER = None
    out = None
    try:
        out = dispatch.apply(key, fn, args, name, saves, scalar_edges)
        flat = out if isinstance(out, tuple) else (out,)
        jax.block_until_ready([o._value for o in flat if isinstance(o, Tensor)])
    finally:
        dispatch.PROFILER = _record_op
        rec.close(ev, out)
    return out


def _timed_node(original):
    def call_node(node, grads_in, create_graph):
        rec = _ACTIVE[-1]
        ev = rec.open(f"autograd::engine::evaluate_function: {node.name()}")
        try:
            return original(node, grads_in, create_graph)
        finally:
            rec.close(ev)

    call_node.original = original
    return call_node


def start(rec: Recorder) -> None:
    if _ACTIVE:
        raise RuntimeError("Can't profile: another profiler is already running")
    from ..eager.autograd import engine

    _ACTIVE.append(rec)
    dispatch.PROFILER = _record_op
    if hasattr(engine, "_call_node"):  # backward nodes too, as PyTorch's profiler lists them
        engine._call_node = _timed_node(engine._call_node)


def stop() -> None:
    from ..eager.autograd import engine

    dispatch.PROFILER = None
    original = getattr(getattr(engine, "_call_node", None), "original", None)
    if original is not None:
        engine._call_node = original
    _ACTIVE.clear()
    _open_events().clear()


def active() -> Recorder | None:
    return _ACTIVE[-1] if _ACTIVE else None
