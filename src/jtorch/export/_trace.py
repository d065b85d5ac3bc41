"""Trace a module's forward into one ``jax.export.Exported`` program.

The program is a pure function of flat arrays ``(*state, rng_key, rng_counter,
*inputs)`` -> ``(*outputs, *mutated state, *mutated inputs)``: jtorch's eager code runs on
tracers inside ``jtorch.compiler._record.sandbox`` (every effect undone), with the
module's parameters and buffers bound to the state arrays. Random draws take the default
generator's key and counter as inputs, so a call of the exported program draws what the
same eager call would.
"""

from __future__ import annotations

import inspect
import os
import re
import traceback

import jax
import numpy as np
from jax import export as jex

from ..compiler._record import GraphBreak, sandbox
from ..eager.autograd import grad_mode
from ..eager.random import default_generator
from ..eager.tensor import wrap
from . import _dims, _pytree

# Lower for CPU and CUDA at once when possible, so one file runs on either machine.
_PLATFORMS = ("cpu", "cuda")


def state_entries(module):
    """``[(name, tensor, kind)]``: parameters, then buffers (``persistent`` or not)."""
    out = [(n, p, "parameter") for n, p in module.named_parameters()]
    non_persistent = {f"{prefix}{'.' if prefix else ''}{b}"
                      for prefix, m in module.named_modules()
                      for b in m._non_persistent_buffers_set}
    for n, b in module.named_buffers():
        out.append((n, b, "constant" if n in non_persistent else "buffer"))
    for n, t, _ in out:
        if t._chain:
            raise ValueError(f"torch.export: {n} is a view of another tensor; jtorch exports "
                             "parameters and buffers that own their storage")
    return out


def flatten_inputs(fn, args, kwargs):
    """``(spec, [(name, tensor)])`` of ``(args, kwargs)``; names follow forward's
    parameter names as PyTorch's graph signature does."""
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    leaves = []
    pos = [_pytree.flatten(a, leaves, params[i] if i < len(params) else f"args_{i}")
           for i, a in enumerate(args)]
    kw = [_pytree.flatten(v, leaves, k) for k, v in kwargs.items()]
    spec = {"t": "tuple", "c": [{"t": "tuple", "c": pos},
                                {"t": "dict", "k": list(kwargs), "c": kw}]}
    return spec, [(_name(p), t) for p, t in leaves]


def _name(path: str) -> str:
    return re.sub(r"\W+", "_", path).strip("_") or "arg"


DATA_DEPENDENT = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                  GraphBreak)


def data_dependent_message(e, who: str) -> str:
    """What a PyTorch user needs when the traced code reads a tensor's value."""
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if not any(f"{os.sep}{p}{os.sep}" in f.filename
                         for p in ("jtorch", "jax", "jax2onnx", "contextlib"))]
    where = f" at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name}" if frames \
        else ""
    return (f"{who}: the model uses a tensor's value in Python{where} (data-dependent "
            "control flow, .item()/.tolist(), or a shape that depends on values); an "
            "exported program's control flow and shapes depend on input sizes only. "
            f"({type(e).__name__}: {str(e).splitlines()[0]})")


def trace(module, args, kwargs, dynamic_shapes, call=None):
    """``(jax.export.Exported, meta)`` for ``module(*args, **kwargs)``."""
    try:
        return _trace(module, args, kwargs, dynamic_shapes, call)
    except DATA_DEPENDENT as e:
        raise _dims.GuardOnDataDependentSymNode(data_dependent_message(e, "torch.export")) \
            from e


def _trace(module, args, kwargs, dynamic_shapes, call):
    call = call or module
    forward = getattr(module, "forward", call)
    state = state_entries(module)
    in_spec, inputs = flatten_inputs(forward, args, kwargs)
    marked = _dims.bind_dynamic_shapes(forward, args, kwargs, dynamic_shapes)
    tried, error = [], None
    for stage in _dims.stages(marked):
        exprs, constraints, ranges = _dims.symbols(marked, stage)
        if (exprs, constraints) in tried:
            continue
        tried.append((exprs, constraints))
        try:
            return _export(call, state, in_spec, inputs, exprs, constraints, ranges)
        except Exception as e:  # noqa: BLE001 - a size kept symbolic: next stage, or report
            error = e
    if tried[-1][0]:
        # Static sizes decide whether the dynamic ones or the code itself failed.
        _export(call, state, in_spec, inputs, {}, [], {})
        raise _violation(ranges, error) from error
    raise error


def _violation(ranges, e):
    names = ", ".join(ranges)
    return _dims.UserError(
        f"Constraints violated ({names})! The model's code needs a concrete size for a "
        f"dimension marked dynamic: {str(e).splitlines()[0]} Mark it static (None or "
        "Dim.STATIC), use Dim.AUTO, or give the Dim a range that decides the comparison "
        "(for example min=2).")


def _input_specs(inputs, exprs, constraints, ranges):
    scope = jex.SymbolicScope(constraints) if ranges else None
    if ranges:  # declare every root symbol in the scope, bounds included
        jex.symbolic_shape(", ".join(ranges), scope=scope)
    specs, shapes = [], []
    for _, t in inputs:
        marks = exprs.get(id(t), {})
        dims = []
        for d, size in enumerate(t.shape):
            if d in marks:
                (sym,) = jex.symbolic_shape(marks[d], scope=scope)
                dims.append(sym)
            else:
                dims.append(size)
        specs.append(jax.ShapeDtypeStruct(tuple(dims), t._value.dtype))
        shapes.append([str(s) if d in marks else int(s) for d, s in enumerate(dims)])
    return specs, shapes


def _export(call, state, in_spec, inputs, exprs, constraints, ranges):
    specs, shapes = _input_specs(inputs, exprs, constraints, ranges)
    key, counter = default_generator._peek(0)
    key_spec = jax.ShapeDtypeStruct(np.shape(key), np.asarray(key).dtype)
    counter_spec = jax.ShapeDtypeStruct((), np.int64)
    info = {}
    flat = _flat_function(call, state, in_spec, info)
    state_specs = [jax.ShapeDtypeStruct(t.shape, t._value.dtype) for _, t, _ in state]
    all_specs = (*state_specs, key_spec, counter_spec, *specs)
    try:
        exported = jex.export(jax.jit(flat), platforms=_PLATFORMS)(*all_specs)
    except NotImplementedError:  # a lowering that exists for this machine's platform only
        info.clear()
        exported = jex.export(jax.jit(flat))(*all_specs)
    meta = {
        "state": [[n, kind, str(t.dtype).removeprefix("torch.")] for n, t, kind in state],
        "in_spec": in_spec,
        "inputs": [[n, str(t.dtype).removeprefix("torch."), s]
                   for (n, t), s in zip(inputs, shapes)],
        "ranges": {n: [lo, None if hi == _dims._INT_OO else hi]
                   for n, (lo, hi, _) in ranges.items()},
        **info,
    }
    return exported, meta


def _flat_function(call, state, in_spec, info):
    tensors = [t for _, t, _ in state]
    n_state = len(tensors)

    def flat(*arrays):
        key, counter = arrays[n_state], arrays[n_state + 1]
        inputs = arrays[n_state + 2:]
        draws = [0]

        def draw(gen):
            if gen is not default_generator:
                raise RuntimeError("torch.export: the forward draws from a torch.Generator "
                                   "other than the default one; exported programs take "
                                   "their random numbers from torch's default generator")
            draws[0] += 1
            return key, counter + (draws[0] - 1)

        with sandbox(draw) as rec:
            for t, v in zip(tensors, arrays[:n_state]):
                rec.bind(t._storage, v)
            wrapped = [wrap(v) for v in inputs]
            args, kwargs = _pytree.unflatten(in_spec, wrapped)
            with grad_mode.no_grad():
                out = call(*args, **kwargs)
            leaves = []
            out_spec = _pytree.flatten(out, leaves)
            mutated = [i for i, t in enumerate(tensors) if id(t._storage) in rec.written]
            _check_writes(rec, tensors)
            mutated_in = [i for i, t in enumerate(wrapped) if t._storage.value is not inputs[i]]
            results = ([t._value for _, t in leaves] + [tensors[i]._value for i in mutated]
                       + [wrapped[i]._value for i in mutated_in])
        info.update(out_spec=out_spec, n_outputs=len(leaves), mutated_state=mutated,
                    mutated_inputs=mutated_in, draws=draws[0],
                    out_dtypes=[str(t.dtype).removeprefix("torch.") for _, t in leaves])
        return tuple(results)

    return flat


def _check_writes(rec, tensors) -> None:
    """A write to a tensor outside the state (a plain tensor attribute, a global) would be
    lost by the exported program: refuse it, as PyTorch refuses to export it."""
    known = {id(t._storage) for t in tensors}
    if any(i not in known for i in rec.written):
        raise RuntimeError("torch.export: the forward writes in place to a tensor that is "
                           "neither an input, a parameter nor a buffer of the module; "
                           "register it with register_buffer to export the update")
