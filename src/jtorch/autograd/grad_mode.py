"""torch.autograd.grad_mode: the grad-mode context managers under their PyTorch module path."""

from ..eager.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)

__all__ = ["enable_grad", "inference_mode", "no_grad", "set_grad_enabled"]
