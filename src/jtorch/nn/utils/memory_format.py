"""Convert the weights of every (transposed) convolution of a module to a memory format."""

from __future__ import annotations

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        weight_data = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = weight_data.resize_(weight_data.size(),
                                                 memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give every Conv2d/ConvTranspose2d weight ``memory_format`` (e.g. channels_last)."""
    from .. import Conv2d, ConvTranspose2d

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Give every Conv3d/ConvTranspose3d weight ``memory_format`` (e.g. channels_last_3d)."""
    from .. import Conv3d, ConvTranspose3d

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
