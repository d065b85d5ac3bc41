"""torch._dynamo: the entry points scripts touch, on jtorch's compiler."""

from __future__ import annotations

import time
import warnings

from ..compiler import allow_in_graph, disable, is_compiling, reset
from ..compiler import config as _config
from ..compiler._function import CompiledFunction, stats
from . import config, exc

__all__ = ["reset", "config", "explain", "mark_dynamic", "mark_static", "maybe_mark_dynamic",
           "disable", "allow_in_graph", "is_compiling", "optimize", "exc", "ExplainOutput"]

_warned_dynamic = False


def _warn_dynamic(what: str) -> None:
    global _warned_dynamic
    if not _warned_dynamic:
        _warned_dynamic = True
        warnings.warn(f"{what}: jtorch compiles one program per input shape (dynamic shapes "
                      "are not supported), so a new size retraces, up to the recompile limit.",
                      UserWarning, stacklevel=3)


def mark_dynamic(t, index, min=None, max=None) -> None:  # noqa: A002 - PyTorch's names
    """Recorded on the tensor (``_dynamo_dynamic_indices``) as PyTorch does; see the
    warning: programs are still specialised to each shape."""
    idx = getattr(t, "_dynamo_dynamic_indices", set())
    idx.update(index if isinstance(index, list | tuple) else [index])
    t._dynamo_dynamic_indices = idx
    _warn_dynamic("torch._dynamo.mark_dynamic")


maybe_mark_dynamic = mark_dynamic


def mark_static(t, index=None) -> None:
    """Shapes are always static here."""
    if hasattr(t, "_dynamo_dynamic_indices"):
        if index is None:
            t._dynamo_dynamic_indices = set()
        else:
            t._dynamo_dynamic_indices.discard(index)


class ExplainOutput:
    """What ``torch._dynamo.explain(fn)(*args)`` reports."""

    def __init__(self, graph_count, graph_break_count, break_reasons, compile_time):
        self.graph_count = graph_count
        self.graph_break_count = graph_break_count
        self.break_reasons = break_reasons
        self.op_count = None
        self.graphs = []
        self.compile_times = f"{compile_time:.3f} s"

    def __str__(self) -> str:
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}"]
        if self.break_reasons:
            lines.append("Break Reasons:")
            lines += [f"  Break Reason {i + 1}:\n    Reason: {r}"
                      for i, r in enumerate(self.break_reasons)]
        lines.append(f"Compile Times: {self.compile_times}")
        return "\n".join(lines)


def explain(f, *extra_args, **extra_kwargs):
    """``explain(fn)(*args)``: compile ``fn`` for these arguments and report what
    happened (one program, or the reason the call must run eagerly)."""

    def inner(*args, **kwargs):
        compiled = CompiledFunction(f, name=getattr(f, "__qualname__", None))
        before = stats()
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compiled(*args, **kwargs)
        elapsed = time.perf_counter() - t0
        after = stats()
        reasons = [str(w.message) for w in caught if "torch.compile" in str(w.message)]
        graphs = after["compiles"] - before["compiles"]
        return ExplainOutput(graphs, len(reasons), reasons, elapsed)

    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner


def optimize(backend="inductor", *, nopython=False, dynamic=None, disable=False, **kwargs):
    """The old ``torch._dynamo.optimize(backend)`` decorator: ``torch.compile``."""
    from ..compiler import compile as _compile

    def decorator(fn):
        return _compile(fn, fullgraph=nopython, dynamic=dynamic, disable=disable)

    return decorator


def __getattr__(name):
    if hasattr(_config, name):
        return getattr(_config, name)
    raise AttributeError(f"module 'torch._dynamo' has no attribute {name!r}")
