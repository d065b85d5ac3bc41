"""torch.autograd.function: the custom-Function API under its PyTorch module path."""

from ..eager.autograd.function import Function, FunctionCtx, once_differentiable

__all__ = ["Function", "FunctionCtx", "once_differentiable"]
