"""torch.nn.functional vision ops: interpolate/upsample, pixel and channel shuffle,
unfold/fold, grid_sample and affine_grid (kernels in ``_ops/nn_vision.py``).

Differences from PyTorch: ``interpolate(..., antialias=True)`` is not supported.
"""

from __future__ import annotations

import math
import warnings

from jtorch.eager.bind import bound

from ._pool import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "unfold", "fold",
           "grid_sample", "affine_grid"]

pixel_shuffle = bound("pixel_shuffle")
pixel_unshuffle = bound("pixel_unshuffle")
channel_shuffle = bound("channel_shuffle")
native_channel_shuffle = channel_shuffle

_MODE_DIM = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_ALIGN_MODES = ("linear", "bilinear", "bicubic", "trilinear")
_AREA = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}


def _sizes(input, dim, size, scale_factor):
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, list | tuple):
            if len(size) != dim:
                raise ValueError(
                    f"Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and output "
                    f"size of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                    "format and output size in (o1, o2, ...,oK) format.")
            return [int(s) for s in size], None
        return [int(size)] * dim, None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, list | tuple):
        if len(scale_factor) != dim:
            raise ValueError(
                f"Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {list(input.shape[2:])} and "
                f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
        return None, [float(s) for s in scale_factor]
    return None, [float(scale_factor)] * dim


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize with torch's index math (nearest: floor(dst * in/out), or 1/scale_factor)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size, scales = _sizes(input, dim, size, scale_factor)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(float(input.shape[i + 2]) * scales[i]) for i in range(dim)]
        scales = None
    if antialias:
        if not (mode in ("bilinear", "bicubic") and input.dim() == 4):
            raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes "
                             "and requires a 4-D tensor as input")
        raise NotImplementedError("jtorch: interpolate(antialias=True) is not supported")
    if dim not in (1, 2, 3) or mode not in (*_MODE_DIM, "nearest", "nearest-exact", "area"):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
            "the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
            f"nearest-exact (got {mode})")
    if mode in _MODE_DIM and _MODE_DIM[mode] != dim:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_MODE_DIM[mode] + 2}D input")
    if mode == "area":
        return _AREA[dim](input, tuple(output_size))
    if output_size is None:
        output_size = [int(float(input.shape[i + 2]) * scales[i]) for i in range(dim)]
    return bound("_upsample")(input, tuple(output_size), None if scales is None else tuple(
        scales), mode, bool(align_corners) if mode in _ALIGN_MODES else False)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding blocks: (N, C, H, W) -> (N, C * prod(kernel_size), L)."""
    return bound("im2col")(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding blocks back: (N, C * prod(kernel_size), L) -> (N, C, *output_size)."""
    return bound("col2im")(input, output_size, kernel_size, dilation, padding, stride)


def _align_warning(align_corners):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to "
                      "align_corners=False since 1.3.0. Please specify align_corners=True if "
                      "the old behavior is desired. See the documentation of grid_sample for "
                      "details.", stacklevel=3)
        return False
    return bool(align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align_corners = _align_warning(align_corners)
    return bound("_grid_sample")(input, grid, mode, padding_mode, align_corners)


def affine_grid(theta, size, align_corners=None):
    align_corners = _align_warning(align_corners)
    return bound("affine_grid_generator")(theta, tuple(int(s) for s in size), align_corners)
