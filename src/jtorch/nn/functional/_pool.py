"""torch.nn.functional pooling: F's signatures over the kernels of ``_ops/nn_pool.py``.

The 1-d forms run the 2-d kernels on an unsqueezed input, as PyTorch does (so their
``grad_fn`` is ``SqueezeBackward1`` there too).
"""

from __future__ import annotations

import math

import jtorch
from jtorch.eager.bind import bound
from jtorch.functional.conv import ntuple

__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
    "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices", "max_unpool1d", "max_unpool2d", "lp_pool1d",
    "lp_pool2d", "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "max_unpool3d",
    "lp_pool3d", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d", "fractional_max_pool3d_with_indices",
]

max_pool2d_with_indices = bound("max_pool2d_with_indices")
max_pool3d_with_indices = bound("max_pool3d_with_indices")
_max_pool2d = bound("max_pool2d")  # values alone (see functional/pooling.max_pool)
_max_pool3d = bound("max_pool3d")
avg_pool2d = bound("avg_pool2d")
avg_pool3d = bound("avg_pool3d")
adaptive_avg_pool2d = bound("adaptive_avg_pool2d")
adaptive_avg_pool3d = bound("adaptive_avg_pool3d")
adaptive_max_pool2d_with_indices = bound("adaptive_max_pool2d_with_indices")
_adaptive_max_pool3d = bound("adaptive_max_pool3d_with_indices")


def _one(x, name):
    return ntuple(x, 1, name)[0]


def _check_1d(input, name):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"{name}() Expected 2D or 3D input tensor, but got "
                           f"{list(input.shape)}")


def _as_2d(input, kernel_size, stride, padding, dilation):
    """A 1-d max pooling's arguments as the 2-d kernel's, on an unsqueezed input."""
    _check_1d(input, "max_pool1d")
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None or stride == [] or stride == () else _one(stride, "stride")
    return (input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, "padding")),
            (1, _one(dilation, "dilation")))


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    args = _as_2d(input, kernel_size, stride, padding, dilation)
    out, idx = max_pool2d_with_indices(*args, ceil_mode)
    return out.squeeze(-2), idx.squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation,
                                       ceil_mode)
    args = _as_2d(input, kernel_size, stride, padding, dilation)
    return _max_pool2d(*args, ceil_mode).squeeze(-2)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    pool = max_pool2d_with_indices if return_indices else _max_pool2d
    return pool(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    pool = max_pool3d_with_indices if return_indices else _max_pool3d
    return pool(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    _check_1d(input, "avg_pool1d")
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None or stride == [] or stride == () else _one(stride, "stride")
    return avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding, "padding")),
                      ceil_mode, count_include_pad).squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    _check_1d(input, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _one(output_size, "output_size"))
                               ).squeeze(-2)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    _check_1d(input, "adaptive_max_pool1d")
    out, idx = adaptive_max_pool2d_with_indices(
        input.unsqueeze(-2), (1, _one(output_size, "output_size")))
    return out.squeeze(-2), idx.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max_pool3d(input, output_size)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out = _adaptive_max_pool3d(input, output_size)
    return out if return_indices else out[0]


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    n = len(kernel_size)
    sizes = list(input.shape[-n:])
    default = [(sizes[d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return tuple(default)
    output_size = [int(s) for s in output_size]
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{lo} and {hi})")
    return tuple(output_size)


def _max_unpool(n, input, indices, kernel_size, stride, padding, output_size):
    k = ntuple(kernel_size, n, "kernel_size")
    s = k if stride is None else ntuple(stride, n, "stride")
    size = _unpool_output_size(input, k, s, ntuple(padding, n, "padding"), output_size)
    return bound(f"_max_unpool{n}d")(input, indices, size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    k = ntuple(kernel_size, 1, "kernel_size")
    s = k if stride is None else ntuple(stride, 1, "stride")
    size = _unpool_output_size(input, k, s, ntuple(padding, 1, "padding"), output_size)
    return bound("_max_unpool2d")(input.unsqueeze(-1), indices.unsqueeze(-1),
                                  (size[0], 1)).squeeze(-1)


def _lp_pool(n, input, norm_type, kernel_size, stride, ceil_mode):
    k = ntuple(kernel_size, n, "kernel_size")
    if isinstance(norm_type, int | float) and abs(norm_type) == float("inf"):
        pool = (max_pool1d, max_pool2d, max_pool3d)[n - 1]
        if norm_type > 0:
            return pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    avg = (avg_pool1d, avg_pool2d, avg_pool3d)[n - 1]
    out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    # PyTorch's formula, whose relu gives a zero gradient where a window sums to 0.
    relu = jtorch.nn.functional.relu
    return (jtorch.sign(out) * relu(jtorch.abs(out))).mul(math.prod(k)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def _fractional(n, input, kernel_size, output_size, output_ratio, _random_samples):
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is None:
        if n == 2 and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or "
                             "tuple of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, list | tuple) else (
            (output_ratio,) * n)
        output_size = [int(input.size(d - n) * ratio[d]) for d in range(n)]
    if _random_samples is None:
        batch = 1 if input.dim() == n + 1 else input.size(0)
        _random_samples = jtorch.rand(batch, input.size(-n - 1), n, dtype=input.dtype,
                                      device=input.device)
    return bound(name)(input, kernel_size, output_size, _random_samples)


def _fractional_forms(n):
    """F.fractional_max_pool{n}d_with_indices and F.fractional_max_pool{n}d."""

    def with_indices(input, kernel_size, output_size=None, output_ratio=None,
                     return_indices=False, _random_samples=None):
        return _fractional(n, input, kernel_size, output_size, output_ratio, _random_samples)

    def pool(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
             _random_samples=None):
        out = _fractional(n, input, kernel_size, output_size, output_ratio, _random_samples)
        return out if return_indices else out[0]

    for f, suffix in ((with_indices, "_with_indices"), (pool, "")):
        f.__name__ = f.__qualname__ = f"fractional_max_pool{n}d{suffix}"
    return with_indices, pool


fractional_max_pool2d_with_indices, fractional_max_pool2d = _fractional_forms(2)
fractional_max_pool3d_with_indices, fractional_max_pool3d = _fractional_forms(3)
