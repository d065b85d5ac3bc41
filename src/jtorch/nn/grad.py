"""Gradients of the convolutions with respect to their input or weight (``torch.nn.grad``),
computed by differentiating the convolution itself."""

from __future__ import annotations

import jtorch

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _conv_grad(n, wrt, size, other, grad_output, stride, padding, dilation, groups):
    """d conv{n}d / d(input or weight), applied to ``grad_output``; differentiable in
    ``other`` and ``grad_output`` as PyTorch's convolution_backward."""
    free = grad_output.new_zeros(tuple(size)).requires_grad_(True)
    x, w = (free, other) if wrt == "input" else (other, free)
    create = jtorch.is_grad_enabled() and (other.requires_grad or grad_output.requires_grad)
    with jtorch.enable_grad():
        y = getattr(jtorch.nn.functional, f"conv{n}d")(x, w, None, stride, padding, dilation,
                                                       groups)
        return jtorch.autograd.grad(y, free, grad_output, create_graph=create)[0]


def _forms(n):
    def input_grad(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        return _conv_grad(n, "input", input_size, weight, grad_output, stride, padding,
                          dilation, groups)

    def weight_grad(input, weight_size, grad_output, stride=1, padding=0, dilation=1,
                    groups=1):
        return _conv_grad(n, "weight", weight_size, input, grad_output, stride, padding,
                          dilation, groups)

    input_grad.__name__ = input_grad.__qualname__ = f"conv{n}d_input"
    weight_grad.__name__ = weight_grad.__qualname__ = f"conv{n}d_weight"
    return input_grad, weight_grad


conv1d_input, conv1d_weight = _forms(1)
conv2d_input, conv2d_weight = _forms(2)
conv3d_input, conv3d_weight = _forms(3)
