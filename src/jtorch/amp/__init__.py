"""torch.amp: ``autocast``, ``custom_fwd``/``custom_bwd`` and ``GradScaler``."""

from . import autocast_mode, grad_scaler
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_fwd", "custom_bwd", "GradScaler", "is_autocast_available",
           "autocast_mode", "grad_scaler"]
