"""torch.export: a module's forward as one StableHLO program (``jax.export``).

``export(model, args)`` runs jtorch's eager forward on JAX tracers (every effect undone)
and records it with ``jax.export``: the parameters and buffers become inputs, so
``ExportedProgram.state_dict`` holds them and ``module()`` runs the program on them.
``save``/``load`` write and read one self-contained file (program, description, weights)
that runs in a fresh process without the model's code; the file is jtorch's own format,
not PyTorch's ``.pt2``. ``Dim`` marks dynamic sizes (``jax.export`` symbolic shapes).
"""

from __future__ import annotations

from ..nn.modules.module import Module
from . import graph_signature
from ._dims import ConstraintViolationError, Dim, UserError, dims
from ._program import ExportedProgram
from ._serialize import load, save
from ._trace import state_entries, trace
from .graph_signature import ExportGraphSignature

__all__ = ["export", "export_for_training", "save", "load", "Dim", "dims",
           "ExportedProgram", "ExportGraphSignature", "ConstraintViolationError", "UserError",
           "graph_signature", "default_decompositions"]


def export(mod: Module, args, kwargs=None, *, dynamic_shapes=None, strict: bool = False,
           preserve_module_call_signature=()) -> ExportedProgram:
    """Export ``mod``'s forward for inputs like ``args``/``kwargs`` (sizes fixed except
    those ``dynamic_shapes`` marks with ``Dim``).

    Differences from PyTorch: ``strict`` is accepted and both modes trace the same way
    (jtorch traces by running the Python code); the program is recorded in the module's
    current mode (dropout and batch-norm statistics as ``training`` says). Random ops draw
    from the default generator when the program runs. Dynamic sizes are at least 1.
    """
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got "
                         f"{type(mod)}.")
    if not isinstance(args, tuple):
        raise ValueError(f"Expecting `args` to be a tuple of example positional inputs, "
                         f"got {type(args)}")
    if preserve_module_call_signature:
        raise ValueError("preserve_module_call_signature: jtorch exports one program for "
                         "the whole forward and has no torch.export.unflatten")
    kwargs = dict(kwargs or {})
    exported, meta = trace(mod, args, kwargs, dynamic_shapes, call=mod)
    meta["training"] = mod.training
    state = {n: t for n, t, _ in state_entries(mod)}
    return ExportedProgram(exported, meta, state, (args, kwargs))


def export_for_training(mod: Module, args, kwargs=None, *, dynamic_shapes=None,
                        strict: bool = False) -> ExportedProgram:
    """Same as ``export`` (PyTorch's pre-dispatch variant; one kind of program here)."""
    return export(mod, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict)


def default_decompositions() -> dict:
    """No decompositions are needed: programs are already StableHLO."""
    return {}
