"""``nn.DataParallel``; importing it also makes ``jtorch.nn.parallel`` reachable."""

from ..parallel import DataParallel

__all__ = ["DataParallel"]
