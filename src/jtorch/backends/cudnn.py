"""torch.backends.cudnn: flags kept for scripts that set them; ``is_available`` and
``version`` answer from JAX's GPU backend (False / None without a GPU).

Setting ``deterministic = True`` asks XLA for deterministic GPU kernels, as
``torch.use_deterministic_algorithms`` does. Differences from PyTorch: ``benchmark``,
``enabled`` and ``allow_tf32`` change nothing, since XLA picks (and autotunes) its own
GPU kernels and convolution precision follows ``torch.set_float32_matmul_precision``."""

from __future__ import annotations

import contextlib
import sys
import types

from . import _flags

__all__ = ["enabled", "benchmark", "deterministic", "allow_tf32", "is_available", "version",
           "flags"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return _flags.has_gpu()


def version():
    """The cuDNN version JAX was built with, or None without a GPU."""
    if not is_available():
        return None
    try:
        from jax._src.lib import cuda_versions

        return cuda_versions.cudnn_get_version()
    except (ImportError, AttributeError):
        return None


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=True):
    """Set the flags inside a ``with`` block, restoring them after (as PyTorch's)."""
    g = globals()
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    old = {n: g[n] for n in names}
    g.update(zip(names, (enabled, benchmark, deterministic, allow_tf32)))
    if deterministic:
        _flags.require_determinism("torch.backends.cudnn.flags(deterministic=True)")
    try:
        yield
    finally:
        g.update(old)


class _Module(types.ModuleType):
    def __setattr__(self, name, value):
        if name == "deterministic" and value:
            _flags.require_determinism("torch.backends.cudnn.deterministic = True")
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Module
