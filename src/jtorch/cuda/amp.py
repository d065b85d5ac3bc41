"""torch.cuda.amp: PyTorch's deprecated spellings of ``torch.amp.autocast("cuda")`` and
``torch.amp.GradScaler("cuda")``."""

from __future__ import annotations

import warnings

from .. import _dtypes as D
from ..amp import autocast as _autocast
from ..amp import autocast_mode as _amp
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
    """Deprecated: ``torch.amp.custom_fwd(fwd, device_type="cuda", cast_inputs=...)``."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated: ``torch.amp.custom_bwd(bwd, device_type="cuda")``."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return _amp.custom_bwd(bwd, device_type="cuda")
