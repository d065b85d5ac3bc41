"""torch.autograd: backward, grad, Function, grad mode and numerical gradient checks."""

from ..eager.autograd.engine import backward, grad
from ..eager.autograd.function import Function, FunctionCtx
from ..eager.autograd.grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled,
)
from ..eager.autograd.node import Node
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "Function", "FunctionCtx", "GradcheckError", "Node", "backward", "enable_grad", "grad",
    "gradcheck", "gradgradcheck", "inference_mode", "is_grad_enabled", "no_grad",
    "set_grad_enabled",
]


class _Graph:
    Node = Node


graph = _Graph()
