"""torch.compile and torch.compiler: imperative PyTorch code traced into one XLA program.

``torch.compile(fn)`` traces a call of ``fn`` by running jtorch's own eager code on JAX
tracers, so what gets compiled is exactly what eager mode would run, a whole training
step included (forward, ``loss.backward()``, ``optimizer.step()``, ``zero_grad()``).

**State discovery.** Nothing is declared: while a trace runs, every read of a tensor
storage that existed before the call is recorded; storages read but not yet bound become
inputs of the next trace (so parameters, buffers, ``.grad``, optimizer state, closures and
globals are found), and the trace repeats until it binds everything it reads. Random
generators and optimizer hyperparameters (``param_groups``' Python numbers) are lifted to
traced scalars, so new seeds, counters and learning rates (schedulers) never retrace.

**Write-back.** A trace has no effects of its own (everything it touched is undone).
Each run of the program, the first included, writes its results into the same Storage
objects (so views, aliases and tied weights see them), replays the version-counter bumps
and random draws the trace made, and replays slot changes: a ``.grad`` or optimizer state
that the step creates or replaces is written into the tensor already there, or created.

**Guards.** A call's key holds its arguments' shapes, dtypes, grad flags and view
structure, Python scalars passed, grad/autocast modes, the default dtype, and Python
numbers the function reads from its closure and globals. Structural changes made anywhere
move two epochs (``jtorch.eager.hooks``): a changed slot (a ``.grad`` cleared, optimizer
state created) is checked against the slots the program touched; a changed Python state
(module attributes, ``train()``/``eval()``, ``requires_grad``, new parameter groups,
``load_state_dict``) retraces. Past ``torch._dynamo.config.recompile_limit`` programs, or
when a call cannot be traced (``.item()``, printing a value, a branch on a value,
data-dependent shapes), the call runs eagerly with one warning; with ``fullgraph=True``
it raises ``Unsupported`` naming the operation and the line.

**Regions.** A call that does not run backward but returns tensors needing grad becomes
ONE autograd node whose backward is one jitted VJP program (``torch.compile(model)``).
"""

from __future__ import annotations

from ..eager import hooks
from ._function import CompiledFunction, Unsupported, reset, stats
from ._module import OptimizedModule
from .config import config

__all__ = ["compile", "reset", "disable", "is_compiling", "is_dynamo_compiling",
           "allow_in_graph", "stats", "assume_constant_result", "Unsupported",
           "OptimizedModule", "config"]

_BACKENDS = ("inductor", "eager", "aot_eager", "cudagraphs", "openxla", "tvm", "onnxrt",
             "xla", "jax", "ipex", "tensorrt")
_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor",
            mode=None, options=None, disable: bool = False):
    """Compile ``model`` (a function or an ``nn.Module``) into XLA programs.

    Every backend and mode PyTorch accepts is accepted and means XLA. Differences from
    PyTorch: see the module docstring (``.grad`` and optimizer state tensors a compiled
    step replaces are updated in place; a graph break runs the whole call eagerly).
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                           f"{', '.join(m for m in _MODES if m)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise RuntimeError(f"invalid backend {backend!r}: jtorch compiles every backend "
                           f"to XLA; known names: {', '.join(_BACKENDS)}")
    if options is not None and not isinstance(options, dict):
        raise RuntimeError(f"options must be a dict, got {type(options).__name__}")
    if model is None:
        def decorator(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                           mode=mode, options=options, disable=disable)

        return decorator
    if not callable(model):
        raise RuntimeError("compile: expected a callable (a function or an nn.Module)")
    if disable:
        return model
    from ..nn.modules.module import Module

    if isinstance(model, Module):
        return OptimizedModule(model, fullgraph=fullgraph, dynamic=dynamic)
    return CompiledFunction(model, fullgraph=fullgraph, dynamic=dynamic)


def disable(fn=None, recursive: bool = True, *, reason: str | None = None):
    """Mark ``fn`` to run eagerly: called from compiled code, it makes that call eager."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    import functools

    @functools.wraps(fn)
    def eager_only(*args, **kwargs):
        if hooks.RECORDER is not None:
            from ._record import GraphBreak

            raise GraphBreak(f"a call to {getattr(fn, '__qualname__', fn)}, marked "
                             "torch.compiler.disable" + (f" ({reason})" if reason else ""))
        return fn(*args, **kwargs)

    eager_only._torchdynamo_disable = True
    return eager_only


def is_compiling() -> bool:
    """True while jtorch traces a compiled function."""
    return hooks.RECORDER is not None


is_dynamo_compiling = is_compiling


def allow_in_graph(fn):
    """Everything is traced here, so every function is already allowed in the graph."""
    return fn


def assume_constant_result(fn):
    """Accepted for PyTorch compatibility: the trace calls ``fn`` and keeps what it returns
    as a constant of the program, which is what this decorator asks for."""
    return fn
