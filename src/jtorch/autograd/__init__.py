"""torch.autograd: backward, grad, Function, grad mode and numerical gradient checks."""

from ..eager.autograd.engine import backward
from ..eager.autograd.function import Function, FunctionCtx, once_differentiable
from ..eager.autograd.grad_mode import (
    detect_anomaly,
    enable_grad,
    inference_mode,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_grad_enabled,
    no_grad,
    set_detect_anomaly,
    set_grad_enabled,
)
from ..eager.autograd.node import Node
from . import function, functional, grad_mode, graph, profiler
from ._grad import grad
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "Function", "FunctionCtx", "GradcheckError", "Node", "backward", "detect_anomaly",
    "enable_grad", "function", "functional", "grad", "grad_mode", "gradcheck", "gradgradcheck",
    "graph", "inference_mode", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
    "is_grad_enabled", "no_grad", "once_differentiable", "profiler", "set_detect_anomaly",
    "set_grad_enabled",
]
