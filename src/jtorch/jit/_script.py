"""ScriptModule and ScriptFunction: modules and functions compiled through torch.compile.

``torch.jit.trace``/``script`` wrap a module so that it keeps its interface (the same
parameters, buffers, submodules and ``state_dict`` keys, shared with the original) while
its calls run as XLA programs from ``torch.compile``. ``save`` writes the
``torch.export`` file; ``torch.jit.load`` reads it back as a module.
"""

from __future__ import annotations

import os

from .. import compiler
from ..eager.tensor import Tensor
from ..export import Dim, export
from ..export import load as _load_program
from ..export import save as _save_program
from ..nn.modules.module import Module

__all__ = ["ScriptModule", "RecursiveScriptModule", "TopLevelTracedModule", "ScriptFunction",
           "save", "load"]

_tracing = [0]  # calls of traced modules in progress (torch.jit.is_tracing)


class ScriptModule(Module):
    """Base class of scripted and traced modules; subclassing it (old TorchScript code)
    gives an ordinary module that can also ``save``.

    ``save`` needs example inputs for the program's shapes: those given to
    ``torch.jit.trace``, else those of the module's last call (all sizes of at least 2
    become dynamic where the code allows, as a traced TorchScript graph accepts them).
    """

    def __call__(self, *args, **kwargs):
        if not compiler.is_compiling():
            object.__setattr__(self, "_last_inputs", (args, kwargs))
        return super().__call__(*args, **kwargs)

    def __setattr__(self, name: str, value) -> None:
        from ._annotations import Attribute

        if isinstance(value, Attribute):
            value = value.value
        super().__setattr__(name, value)

    def _export_target(self) -> Module:
        return self

    def save(self, f, _extra_files=None, **kwargs) -> None:
        """Write this module as a ``torch.export`` program file (jtorch's format)."""
        inputs = self.__dict__.get("_example_inputs") or self.__dict__.get("_last_inputs")
        if inputs is None:
            raise RuntimeError(
                f"{type(self).__name__}.save: jtorch saves a compiled program, which needs "
                "the input shapes: call the module once (or use torch.jit.trace with "
                "example inputs) before saving")
        args, kw = inputs
        target = self._export_target()
        ep = export(target, tuple(args), kw, dynamic_shapes=_auto_dims(args, kw))
        _save_program(ep, f, extra_files=_extra_files)

    def save_to_buffer(self, _extra_files=None) -> bytes:
        import io

        buf = io.BytesIO()
        self.save(buf, _extra_files=_extra_files)
        return buf.getvalue()

    @property
    def original_name(self) -> str:
        return type(self._export_target()).__name__


def _auto_dims(args, kwargs):
    def spec(v):
        if isinstance(v, Tensor):
            return {d: Dim.AUTO for d in range(v.dim())}
        if isinstance(v, tuple | list):
            return type(v)(spec(x) for x in v)
        if isinstance(v, dict):
            return {k: spec(x) for k, x in v.items()}
        return None

    return tuple(spec(v) for v in (*args, *kwargs.values()))


class _WrapsModule(ScriptModule):
    """A module sharing ``mod``'s parameter, buffer and submodule tables (so its
    ``state_dict`` keys and attributes are ``mod``'s), whose calls run compiled."""

    def __init__(self, mod: Module, example_inputs=None):
        super().__init__()
        d = self.__dict__
        d["_parameters"], d["_buffers"], d["_modules"] = (mod._parameters, mod._buffers,
                                                           mod._modules)
        d["_non_persistent_buffers_set"] = mod._non_persistent_buffers_set
        d["_orig_mod"] = mod
        d["_example_inputs"] = example_inputs
        d["_compiled"] = compiler.compile(mod._call_impl)
        d["training"] = mod.training

    def _export_target(self) -> Module:
        return self._orig_mod

    def forward(self, *args, **kwargs):
        _tracing[0] += 1
        try:
            return self._compiled(*args, **kwargs)
        finally:
            _tracing[0] -= 1

    def train(self, mode: bool = True):
        self._orig_mod.train(mode)
        object.__setattr__(self, "training", mode)
        return self

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name.startswith("__") or name in ("_orig_mod", "_compiled"):
                raise
            return getattr(self.__dict__["_orig_mod"], name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(original_name={self.original_name})"


class RecursiveScriptModule(_WrapsModule):
    """What ``torch.jit.script(module)`` returns."""


class TopLevelTracedModule(_WrapsModule):
    """What ``torch.jit.trace(module, example_inputs)`` returns."""


class ScriptFunction:
    """A compiled function (``torch.jit.script``/``trace`` of a function)."""

    def __init__(self, fn, example_inputs=None):
        self._fn = fn
        self._compiled = compiler.compile(fn)
        self._example_inputs = example_inputs
        self.__name__ = getattr(fn, "__name__", "fn")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn

    def __call__(self, *args, **kwargs):
        if not compiler.is_compiling():
            self._last_inputs = (args, kwargs)
        return self._compiled(*args, **kwargs)

    @property
    def name(self) -> str:
        return self.__name__

    def save(self, f, _extra_files=None) -> None:
        """Write the function as a ``torch.export`` program file (jtorch's format)."""
        holder = _FunctionModule(self._fn)
        holder._example_inputs = self._example_inputs or getattr(self, "_last_inputs", None)
        ScriptModule.save(holder, f, _extra_files=_extra_files)

    def __repr__(self) -> str:
        return f"<torch.jit.ScriptFunction object {self.__qualname__}>"


class _FunctionModule(ScriptModule):
    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def forward(self, *args, **kwargs):
        return self._fn(*args, **kwargs)


class LoadedScriptModule(RecursiveScriptModule):
    """What ``torch.jit.load`` returns: the saved program as a module (same
    ``state_dict`` keys). It runs in the mode it was saved in: call ``eval()`` before
    saving a module meant for inference."""

    def __init__(self, program):
        inner = program.module()
        ScriptModule.__init__(self)
        d = self.__dict__
        d["_parameters"], d["_buffers"], d["_modules"] = (inner._parameters, inner._buffers,
                                                           inner._modules)
        d["_non_persistent_buffers_set"] = inner._non_persistent_buffers_set
        d["_orig_mod"], d["_program"] = inner, program
        d["training"] = program._meta.get("training", False)

    def forward(self, *args, **kwargs):
        saved = self._program._meta.get("training", False)
        if self.training != saved:
            raise RuntimeError(
                f"this module was saved in {'training' if saved else 'eval'} mode and jtorch "
                f"saves one program per file; call .{'train' if saved else 'eval'}() on "
                "it, or save the module in the mode you need")
        return self._orig_mod.forward(*args, **kwargs)

    def train(self, mode: bool = True):
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def save(self, f, _extra_files=None, **kwargs) -> None:
        _save_program(self._program, f, extra_files=_extra_files)

    @property
    def original_name(self) -> str:
        return "LoadedScriptModule"


def save(m, f, _extra_files=None) -> None:
    """``torch.jit.save``: ``m.save(f)`` for a scripted or traced module."""
    if isinstance(f, str | os.PathLike):
        f = os.fspath(f)
    m.save(f, _extra_files=_extra_files)


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Read a file written by ``torch.jit.save`` (or ``torch.export.save``)."""
    module = LoadedScriptModule(_load_program(f, extra_files=_extra_files))
    for name, value in (_extra_files or {}).items():
        if isinstance(value, str):  # TorchScript's extra files come back as bytes
            _extra_files[name] = value.encode()
    if map_location is not None and not callable(map_location):
        module.to(map_location if not isinstance(map_location, dict) else "cpu")
    return module
