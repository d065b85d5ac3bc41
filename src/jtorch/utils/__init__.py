"""torch.utils: data loading, activation checkpointing, benchmarking, hooks, hub downloads
(model_zoo) and TensorBoard logging."""

from . import data

_LAZY = frozenset({"benchmark", "checkpoint", "hooks", "model_zoo"})


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
