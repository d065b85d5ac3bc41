"""torch.nn.parallel: DataParallel and DistributedDataParallel on JAX device meshes."""

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "data_parallel", "DistributedDataParallel"]
