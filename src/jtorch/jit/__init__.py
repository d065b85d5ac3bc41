"""torch.jit on torch.compile: ``trace`` and ``script`` compile, ``save``/``load`` use
torch.export's file, and the TorchScript annotations behave as in eager PyTorch code.

Differences from PyTorch: nothing is compiled to TorchScript. ``trace`` and ``script``
return modules and functions that run through ``torch.compile`` (so Python control flow
keeps working and is re-traced when it changes, where TorchScript's trace would freeze
it); there is no ``.graph``/``.code``. Saved files are jtorch's export format, not
TorchScript archives, and a loaded module runs in the mode (train/eval) it was saved in.
"""

from __future__ import annotations

import builtins
import contextlib

from ..nn.modules.module import Module
from ._annotations import (
    Attribute,
    Final,
    annotate,
    export,
    ignore,
    interface,
    is_scripting,
    is_tracing,
    isinstance,
    script_if_tracing,
    script_method,
    unused,
)
from ._script import (
    RecursiveScriptModule,
    ScriptFunction,
    ScriptModule,
    TopLevelTracedModule,
    load,
    save,
)

__all__ = ["trace", "trace_module", "script", "save", "load", "ignore", "unused", "export",
           "is_scripting", "is_tracing", "Final", "annotate", "Attribute", "ScriptModule",
           "ScriptFunction", "RecursiveScriptModule", "TopLevelTracedModule",
           "script_method", "freeze", "optimize_for_inference", "fork", "wait", "Future",
           "interface", "isinstance", "Error", "enable_onednn_fusion",
           "onednn_fusion_enabled", "set_fusion_strategy", "fuser", "script_if_tracing"]

_is_instance = builtins.isinstance  # this module's `isinstance` is torch.jit.isinstance


class Error(RuntimeError):
    """``torch.jit.Error``: what TorchScript raises for a failed ``raise``/``assert``."""


def trace(func, example_inputs=None, optimize=None, check_trace: bool = True,
          check_inputs=None, check_tolerance: float = 1e-5, strict: bool = True,
          _force_outplace: bool = False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs: bool = True):
    """Compile ``func`` (a module or function) for calls like ``example_inputs``.

    The example call runs once (as PyTorch's trace does). Differences from PyTorch: the
    result re-traces on new shapes or changed control flow instead of freezing the
    recorded path; ``check_trace`` compares nothing since compiled calls equal eager ones.
    """
    if example_inputs is None and example_kwarg_inputs is None:  # PyTorch's two errors
        if _is_instance(func, Module) or _is_instance(getattr(func, "__self__", None), Module):
            raise RuntimeError("example_kwarg_inputs should be a dict")
        raise TypeError("'NoneType' object is not iterable")
    args = example_inputs if _is_instance(example_inputs, tuple) else (
        () if example_inputs is None else (example_inputs,))
    kwargs = dict(example_kwarg_inputs or {})
    if _is_instance(func, ScriptModule | ScriptFunction):
        return func
    if _is_instance(func, Module):
        out = TopLevelTracedModule(func, (args, kwargs) if _store_inputs else None)
    elif callable(func):
        out = ScriptFunction(func, (args, kwargs) if _store_inputs else None)
    else:
        raise RuntimeError(f"trace: expected a module or a function, got {type(func)}")
    out(*args, **kwargs)
    return out


def trace_module(mod, inputs: dict, **kwargs):
    """``trace`` for a module's ``forward``."""
    if set(inputs) != {"forward"}:
        raise ValueError("trace_module: jtorch traces a module's forward only; give "
                         "inputs={'forward': example_inputs}")
    return trace(mod, inputs["forward"], **kwargs)


def script(obj, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """Compile a module or function; classes and other objects are returned unchanged
    (their code runs as Python)."""
    if _is_instance(obj, ScriptModule | ScriptFunction):
        return obj
    if _is_instance(obj, Module):
        return RecursiveScriptModule(obj)
    if _is_instance(obj, type) or not callable(obj):
        return obj
    return ScriptFunction(obj)


def freeze(mod, preserved_attrs=None, optimize_numerics: bool = True):
    """Returns ``mod``: a compiled program already holds its weights as inputs that XLA
    folds as it sees fit. Raises as PyTorch does for an unscripted or training module."""
    if not _is_instance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use "
                           "torch.jit.script or torch.jit.trace to script your "
                           "'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval "
                           "mode. Please call .eval() on your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    """``freeze`` (scripting the module first if needed); XLA optimises the program."""
    if not _is_instance(mod, ScriptModule):
        mod = script(mod)
    return freeze(mod)


class Future:
    """``torch.jit.Future``: the result of ``fork`` (computed when forked)."""

    def __init__(self, value=None, error=None):
        self._value, self._error = value, error

    def wait(self):
        if self._error is not None:
            raise self._error
        return self._value

    value = wait

    def done(self) -> bool:
        return True

    def then(self, callback):
        return Future(callback(self))


def fork(func, *args, **kwargs) -> Future:
    """Runs ``func`` now (eager PyTorch runs forked calls synchronously too)."""
    try:
        return Future(func(*args, **kwargs))
    except Exception as e:  # raised by wait(), as PyTorch does
        return Future(error=e)


def wait(future: Future):
    return future.wait()


_fusion = {"onednn": False, "strategy": [("STATIC", 2), ("DYNAMIC", 10)]}


def enable_onednn_fusion(enabled: bool) -> None:
    """Recorded only: XLA decides fusion."""
    _fusion["onednn"] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    return _fusion["onednn"]


def set_fusion_strategy(strategy):
    """Recorded only (XLA decides fusion); returns the previous strategy."""
    old, _fusion["strategy"] = _fusion["strategy"], list(strategy)
    return old


@contextlib.contextmanager
def fuser(name):
    """Accepted for any fuser name; XLA fuses."""
    if name not in ("fuser0", "fuser1", "fuser2", "fuser3", "none"):
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002
    yield
