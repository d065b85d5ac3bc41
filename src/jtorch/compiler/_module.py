"""OptimizedModule: what ``torch.compile(model)`` returns for an ``nn.Module``."""

from __future__ import annotations

from ..nn.modules.module import Module
from ._function import CompiledFunction


class OptimizedModule(Module):
    """Wraps a module (``_orig_mod``, registered as a submodule, so ``state_dict`` keys
    start with ``_orig_mod.`` as in PyTorch); calling it runs the original module's call,
    hooks included, as compiled programs. Attributes it lacks come from ``_orig_mod``."""

    _OPT_ATTRS = ("_orig_mod", "_compiled", "dynamo_ctx")

    def __init__(self, mod: Module, *, fullgraph: bool = False, dynamic=None):
        super().__init__()
        self._orig_mod = mod
        call = mod._call_impl  # the module's own call, hooks included, never its compiled one
        object.__setattr__(self, "_compiled", CompiledFunction(
            call, fullgraph=fullgraph, dynamic=dynamic,
            name=f"{type(mod).__name__}.forward"))

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name in OptimizedModule._OPT_ATTRS or name.startswith("__"):
                raise
            return getattr(self._orig_mod, name)

    def __reduce__(self):
        return (OptimizedModule, (self._orig_mod,))

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_compiled", None)
        return state

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        mod = self._orig_mod
        object.__setattr__(self, "_compiled", CompiledFunction(
            mod._call_impl, name=f"{type(mod).__name__}.forward"))
