"""torch.backends.cudnn: flags kept for scripts that set them. XLA picks its own GPU
kernels, so ``benchmark`` and ``deterministic`` change nothing in jtorch; ``is_available``
and ``version`` answer from JAX's GPU backend (False / None without a GPU)."""

from __future__ import annotations

import contextlib

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
    try:
        yield
    finally:
        g.update(old)
