"""Which JAX operation jax2onnx could not convert, where jtorch emitted it, and from which
line of the model."""

from __future__ import annotations

import os

import jax

from .errors import UnsupportedOperatorError

__all__ = ["unsupported"]


def unsupported(error, fn, specs, registry):
    """An UnsupportedOperatorError naming the JAX primitive, the jtorch function that
    emitted it and the model's source line."""
    try:
        path = _first_unsupported(jax.make_jaxpr(fn)(*_concrete(specs)).jaxpr, registry)
    except Exception:  # noqa: BLE001 - the converter's own message still says what failed
        path = None
    if not path:
        hint = (" (bidirectional RNN, LSTM and GRU layers run a reverse scan)"
                if "Reverse scan" in str(error) else "")
        return UnsupportedOperatorError(f"torch.onnx.export: jax2onnx: {error}{hint}")
    return UnsupportedOperatorError(
        f"torch.onnx.export: jax2onnx has no ONNX conversion for the JAX operation "
        f"'{path[-1].primitive.name}'{_where(path)}")


def _concrete(specs):
    return [jax.ShapeDtypeStruct(tuple(2 if isinstance(d, str) else d for d in s.shape),
                                 s.dtype) for s in specs]


def _first_unsupported(jaxpr, registry):
    """The equations from the top down to the first one jax2onnx cannot convert."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name not in registry:
            return [eqn]
        for p in eqn.params.values():
            for sub in p if isinstance(p, tuple | list) else (p,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    found = _first_unsupported(inner, registry)
                    if found:
                        return [eqn, *found]
    return None


def _where(path) -> str:
    """' (in jtorch's diagonal, called at model.py:12 in forward)' from the equations'
    Python frames (innermost first within each equation; outer equations first)."""
    frames = []
    for eqn in path:
        tb = eqn.source_info.traceback
        frames = list(getattr(tb, "frames", []) if tb is not None else []) + frames
    mine = f"{os.sep}jtorch{os.sep}"
    ops = [f for f in frames if mine in f.file_name and f"{os.sep}eager{os.sep}" not in
           f.file_name and f"{os.sep}onnx{os.sep}" not in f.file_name]
    user = [f for f in frames if mine not in f.file_name and f"{os.sep}jax" not in f.file_name
            and "<jtorch binding" not in f.file_name]
    text = f" (in jtorch's {ops[0].function_name})" if ops else ""
    if user:
        text += f", called at {user[0].file_name}:{user[0].line_num} in {user[0].function_name}"
    return text
