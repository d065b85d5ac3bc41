"""torch.autograd.graph: the autograd graph's node type."""

from ..eager.autograd.node import Node

__all__ = ["Node"]
