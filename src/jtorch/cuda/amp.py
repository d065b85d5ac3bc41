"""torch.cuda.amp: PyTorch's deprecated spellings of ``torch.amp.autocast("cuda")`` and
``torch.amp.GradScaler("cuda")``."""

from __future__ import annotations

import warnings

from .. import _dtypes as D
from ..amp import autocast as _autocast
from ..amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_autocast):  # noqa: N801 - PyTorch's name
    def __init__(self, enabled: bool = True, dtype=D.float16, cache_enabled: bool = True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Accepted for ``autograd.Function.forward``; runs ``fwd`` as is (no autocast change)."""
    if fwd is None:
        return lambda f: f
    return fwd


def custom_bwd(bwd):
    return bwd
