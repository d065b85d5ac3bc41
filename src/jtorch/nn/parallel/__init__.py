"""torch.nn.parallel: DataParallel on one device."""

from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
