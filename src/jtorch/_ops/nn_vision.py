"""Padding, upsampling, shuffles, im2col/col2im, grid sampling."""

from __future__ import annotations

from .._registry import op
from ..functional import grid_sample as G
from ..functional import padding as P
from ..functional import vision as V

_HIDDEN = dict(function=False, method=False)
_NN = dict(method=False, modules=("nn.functional",))


def _pad_name(statics, operands):
    mode, k = statics["mode"], len(statics["pad"]) // 2
    if mode == "constant":
        return "ConstantPadNdBackward0"
    if mode == "circular":  # PyTorch builds it from slice copies
        return "torch::autograd::CopySlices"
    return f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{k}DBackward0"


op("pad", P.pad, static=("pad", "mode", "value"), grad_name=_pad_name, saves="none",
   function=False, **_NN)

_UPSAMPLE = {"nearest": "Nearest", "nearest-exact": "NearestExact", "linear": "Linear",
             "bilinear": "Bilinear", "bicubic": "Bicubic", "trilinear": "Trilinear"}


def _upsample_name(statics, operands):
    n = len(statics["output_size"])
    return f"Upsample{_UPSAMPLE[statics['mode']]}{n}DBackward0"


op("_upsample", V.upsample, static=("output_size", "scales", "mode", "align_corners"),
   grad_name=_upsample_name, saves="none", **_HIDDEN)
op("pixel_shuffle", V.pixel_shuffle, static=("upscale_factor",), saves="none", **_NN)
op("pixel_unshuffle", V.pixel_unshuffle, static=("downscale_factor",), saves="none", **_NN)
op("channel_shuffle", V.channel_shuffle, static=("groups",), saves="none", **_NN)
op("im2col", V.im2col, static=("kernel_size", "dilation", "padding", "stride"),
   grad_name="Im2ColBackward0", saves="none", **_HIDDEN)
op("col2im", V.col2im, static=("output_size", "kernel_size", "dilation", "padding", "stride"),
   grad_name="Col2ImBackward0", saves="none", **_HIDDEN)
op("_grid_sample", G.grid_sample, static=("mode", "padding_mode", "align_corners"),
   grad_name=lambda s, o: f"GridSampler{o['input'].dim() - 2}DBackward0", **_HIDDEN)
op("affine_grid_generator", G.affine_grid_generator, static=("size", "align_corners"),
   saves="none", method=False)
