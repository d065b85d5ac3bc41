"""``jtorch.install_alias()``: make ``import torch`` (and every ``torch.*``) mean jtorch.

A meta-path finder answers ``torch`` and ``torch.X.Y`` with the already-imported
``jtorch`` / ``jtorch.X.Y`` module objects, so ``import torch.nn as nn``,
``from torch.utils.data import DataLoader`` and ``torch.optim.lr_scheduler`` resolve to
jtorch without a program being edited. Each aliased module gets a module ``__getattr__``
(PEP 562) that names any torch API the program uses and jtorch lacks, e.g.
``jtorch does not implement torch.fft (module torch)``, raised as ``MissingTorchAPI`` (an
``AttributeError``, so ``hasattr`` and ``getattr(m, name, default)`` behave as usual).
A missing ``Tensor`` method raises Python's own AttributeError (as PyTorch's does) inside
the program: a ``Tensor.__getattr__`` would make every tensor attribute read about 2x
slower (CPython specialises attribute reads only on classes without one). The runner
(``python -m jtorch``) names it when it ends the program: ``missing_tensor_api``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["MissingTorchAPI", "install_alias"]


class MissingTorchAPI(AttributeError):
    """A torch attribute the program uses that jtorch does not implement."""


def _alias_name(real: str) -> str:
    return "torch" + real[len("jtorch"):]


def _hook_module(module) -> None:
    """Give ``module`` a ``__getattr__`` that imports submodules or names the missing API."""
    if module.__dict__.get("_jtorch_alias_hooked"):
        return
    alias = _alias_name(module.__name__)
    previous = module.__dict__.get("__getattr__")

    def __getattr__(name: str):
        if previous is not None:
            try:
                return previous(name)
            except AttributeError:
                pass
        if name.startswith("__"):  # protocol probes (__path__, __wrapped__, ...)
            raise AttributeError(f"module {alias!r} has no attribute {name!r}")
        try:  # torch imports its public submodules eagerly; a lazy import matches that
            sub = importlib.import_module(f"{module.__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{module.__name__}.{name}":
                raise
        else:
            _hook_module(sub)
            return sub
        raise MissingTorchAPI(f"jtorch does not implement {alias}.{name} (module {alias})")

    module.__getattr__ = __getattr__
    module._jtorch_alias_hooked = True


def missing_tensor_api(error: AttributeError) -> MissingTorchAPI | None:
    """The ``MissingTorchAPI`` to report for ``error`` when it is a public attribute that
    jtorch's Tensor lacks (PyTorch's may have it), else None."""
    from .eager.tensor import Tensor

    name = getattr(error, "name", None)
    if (not isinstance(getattr(error, "obj", None), Tensor) or not isinstance(name, str)
            or name.startswith("_") or hasattr(Tensor, name)):
        return None
    return MissingTorchAPI(f"jtorch does not implement torch.Tensor.{name} (class torch.Tensor)")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module) -> None:
        self.module = module

    def create_module(self, spec):
        return self.module  # the jtorch module object itself: one module, two names

    def exec_module(self, module) -> None:
        pass


class _TorchAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = "j" + fullname
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as e:
            if e.name is None or not (real == e.name or real.startswith(e.name + ".")):
                raise
            parent = fullname.rpartition(".")[0]
            raise ModuleNotFoundError(
                f"jtorch does not implement {fullname} (module {parent or fullname})",
                name=fullname,
            ) from None
        _hook_module(module)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


def install_alias() -> None:
    """Make ``import torch`` and ``import torch.<sub>`` resolve to jtorch in this process.

    Raises RuntimeError when the real torch is already imported (its modules and ours
    cannot share the names).
    """
    existing = sys.modules.get("torch")
    shim = getattr(existing, "__jtorch_shim__", False)
    if existing is not None and not shim and not existing.__name__.startswith("jtorch"):
        raise RuntimeError("install_alias(): the real torch is already imported in this "
                           "process; call jtorch.install_alias() before importing torch")
    if not any(isinstance(f, _TorchAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchAliasFinder())
    for name, module in list(sys.modules.items()):
        public = name == "jtorch" or (name.startswith("jtorch.") and "._" not in name)
        if public and module is not None:
            _hook_module(module)
            sys.modules[_alias_name(name)] = module
    _install_shim()


_SHIM = """# Written by jtorch.install_alias(): processes started with multiprocessing's spawn
# (DataLoader workers) get this directory on sys.path, so their ``import torch`` aliases too.
__jtorch_shim__ = True
import jtorch
jtorch.install_alias()
"""


def _install_shim() -> None:
    """A ``torch`` package on sys.path that installs the alias when imported, for child
    processes that re-run the script's imports before any jtorch code runs in them."""
    global _shim_dir
    if _shim_dir is not None:
        return
    import atexit
    import os
    import shutil
    import tempfile

    _shim_dir = tempfile.mkdtemp(prefix="jtorch-alias-")
    os.mkdir(os.path.join(_shim_dir, "torch"))
    with open(os.path.join(_shim_dir, "torch", "__init__.py"), "w") as f:
        f.write(_SHIM)
    sys.path.insert(0, _shim_dir)
    atexit.register(shutil.rmtree, _shim_dir, True)


_shim_dir = None
