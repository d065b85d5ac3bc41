"""torch.utils.tensorboard: ``SummaryWriter`` writing TensorBoard event files.

It needs the ``tensorboard`` package, as PyTorch's does: without it, importing this module
raises the same ModuleNotFoundError.
"""

import tensorboard  # noqa: F401 - PyTorch's module fails here too when it is missing

from .writer import SummaryWriter

__all__ = ["SummaryWriter"]
