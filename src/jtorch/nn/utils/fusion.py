"""Fold an eval-mode BatchNorm into the preceding convolution or linear layer."""

from __future__ import annotations

import copy

import jtorch

from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _check_eval(layer, bn) -> None:
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")


def _check_stats(bn) -> None:
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of ``conv`` computing ``bn(conv(x))`` (both in eval mode)."""
    _check_eval(conv, bn)
    fused_conv = copy.deepcopy(conv)
    _check_stats(bn)
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b,
                         transpose: bool = False):
    """The (weight, bias) Parameters of a convolution with the BatchNorm folded in."""
    conv_weight_dtype = conv_w.dtype
    conv_bias_dtype = conv_b.dtype if conv_b is not None else conv_weight_dtype
    conv_b = jtorch.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = jtorch.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = jtorch.zeros_like(bn_rm) if bn_b is None else bn_b
    bn_var_rsqrt = jtorch.rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (len(conv_w.shape) - 2)
    fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=conv_weight_dtype)
    fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=conv_bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` computing ``bn(linear(x))`` (both in eval mode)."""
    _check_eval(linear, bn)
    fused_linear = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    _check_stats(bn)
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The (weight, bias) Parameters of a linear layer with the BatchNorm folded in."""
    linear_weight_dtype = linear_w.dtype
    linear_bias_dtype = linear_b.dtype if linear_b is not None else linear_weight_dtype
    linear_b = jtorch.zeros_like(bn_rm) if linear_b is None else linear_b
    bn_scale = bn_w * jtorch.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=linear_weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=linear_bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b,
                                                                 linear_b.requires_grad)
