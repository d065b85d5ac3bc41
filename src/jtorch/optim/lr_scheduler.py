"""torch.optim.lr_scheduler: learning-rate schedules (defined in ``_lr_*.py``)."""

from ._lr_base import (
    EPOCH_DEPRECATION_WARNING,
    ConstantLR,
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    LRScheduler,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)
from ._lr_compose import ChainedScheduler, ReduceLROnPlateau, SequentialLR
from ._lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR

_LRScheduler = LRScheduler

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "PolynomialLR", "LRScheduler", "EPOCH_DEPRECATION_WARNING"]
