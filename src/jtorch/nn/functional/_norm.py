"""torch.nn.functional normalization over the kernels of ``_ops/nn_norm.py``.

Batch norm writes its updated running statistics into the given buffers in place WITHOUT
bumping their version counters (PyTorch's kernel updates them inside the op, so
``running_mean._version`` stays put); instance norm's are a ``copy_`` in PyTorch, which
bumps them once.
"""

from __future__ import annotations

import math

import jtorch
from jtorch.eager import views
from jtorch.eager.bind import bound

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm",
           "local_response_norm"]

layer_norm = bound("layer_norm")
group_norm = bound("group_norm")
rms_norm = bound("rms_norm")


def _update(buffer, new, bump=False) -> None:
    views.write(buffer, new._value)
    if not bump:
        buffer._vc.version -= 1


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if training:
        size = tuple(input.shape)
        if math.prod(size[:1] + size[2:]) == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got "
                             f"input size {input.shape}")
    outs = bound("_batch_norm")(input, weight, bias, running_mean, running_var, bool(training),
                                0.0 if momentum is None else momentum, eps)
    if len(outs) == 3:
        node = outs[0].grad_fn
        for buffer, new in ((running_mean, outs[1]), (running_var, outs[2])):
            _update(buffer, new)
            if node is not None:  # the op's own write: its saved buffer follows, unchecked
                node.inplace_written(buffer._vc, buffer._vc.version)
    return outs[0]


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    if use_input_stats and math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")
    outs = bound("_instance_norm")(input, weight, bias, running_mean, running_var,
                                   bool(use_input_stats), momentum, eps)
    if len(outs) == 3:
        _update(running_mean, outs[1], bump=True)
        _update(running_var, outs[2], bump=True)
    return outs[0]


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """PyTorch's composition: average of squares over ``size`` neighbouring channels."""
    F = jtorch.nn.functional
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = F.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = F.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = F.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
