"""torch.nn.functional convolutions: the registry ops of ``_ops/nn_conv.py``, and
``conv_tbc`` over them."""

from __future__ import annotations

from jtorch.eager.bind import bound

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "conv_tbc"]

conv1d = bound("conv1d")
conv2d = bound("conv2d")
conv3d = bound("conv3d")
conv_transpose1d = bound("conv_transpose1d")
conv_transpose2d = bound("conv_transpose2d")
conv_transpose3d = bound("conv_transpose3d")


def conv_tbc(input, weight, bias, pad: int = 0):
    """1-d convolution of a (time, batch, channels) sequence; ``weight`` is (kernel width,
    in channels, out channels).

    Differences from PyTorch: computed as conv1d between permutes, so the grad_fn is
    PermuteBackward0 rather than ConvTbcBackward0.
    """
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.size(2) != weight.size(1):
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.size(2) != bias.size(0):
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)
