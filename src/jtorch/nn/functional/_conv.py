"""torch.nn.functional convolutions: the registry ops of ``_ops/nn_conv.py``."""

from __future__ import annotations

from jtorch.eager.bind import bound

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d"]

conv1d = bound("conv1d")
conv2d = bound("conv2d")
conv3d = bound("conv3d")
conv_transpose1d = bound("conv_transpose1d")
conv_transpose2d = bound("conv_transpose2d")
conv_transpose3d = bound("conv_transpose3d")
