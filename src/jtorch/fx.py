"""torch.fx: symbolic tracing to a Python-level graph IR.

Not supported in jtorch (its tracing is jax's, through ``torch.compile``); the entry points
raise saying so. ``wrap`` and ``has_side_effect`` are decorators that return their argument
unchanged, so modules that mark functions for FX at import time still import.
"""

from __future__ import annotations

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter",
           "Transformer", "Node", "Proxy", "replace_pattern", "has_side_effect", "map_arg"]


def _unsupported(name, is_class=True):
    def fail(*args, **kwargs):
        raise RuntimeError(f"torch.fx.{name} is not supported in jtorch: it has no FX graph "
                           "IR (torch.compile traces through JAX instead)")

    if not is_class:
        fail.__name__ = name
        return fail
    return type(name, (), {"__init__": fail})


symbolic_trace = _unsupported("symbolic_trace", False)
replace_pattern = _unsupported("replace_pattern", False)
map_arg = _unsupported("map_arg", False)
Tracer = _unsupported("Tracer")
Graph = _unsupported("Graph")
GraphModule = _unsupported("GraphModule")
Interpreter = _unsupported("Interpreter")
Transformer = _unsupported("Transformer")
Node = _unsupported("Node")
Proxy = _unsupported("Proxy")


def wrap(fn_or_name):
    """Marks a function as a leaf for FX tracing; jtorch has no FX, so nothing to mark."""
    return fn_or_name


def has_side_effect(fn):
    return fn
