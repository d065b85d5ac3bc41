"""torch-level forms of the conv/pool/norm/padding kernels that PyTorch exposes directly
(``torch.max_pool2d``, ``torch.batch_norm``, ``torch.constant_pad_nd``, ...): thin
wrappers over ``torch.nn.functional``, imported lazily (nn loads after this module).
The convolutions, ``layer_norm``, ``group_norm``, ``rms_norm``, the shuffles and
``affine_grid_generator`` are registry ops already bound in the torch namespace."""

from __future__ import annotations

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
           "adaptive_avg_pool1d", "adaptive_max_pool1d", "batch_norm", "instance_norm",
           "constant_pad_nd"]


def _F():
    from ..nn import functional

    return functional


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    return _F().max_pool1d_with_indices(input, kernel_size, stride or None, padding, dilation,
                                        ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    return _F().avg_pool1d(input, kernel_size, stride or None, padding, ceil_mode,
                           count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    return _F().adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    return _F().adaptive_max_pool1d_with_indices(input, output_size)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                           eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                              momentum, eps)


def constant_pad_nd(input, pad, value=0):
    return _F().pad(input, tuple(pad), "constant", value)
