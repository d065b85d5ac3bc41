"""Convolutions: torch.convNd / torch.conv_transposeNd, also in torch.nn.functional."""

from __future__ import annotations

from .._memory_format import keep_channels_last
from .._registry import op
from ..functional import conv as C

_NN = dict(method=False, modules=("nn.functional",), grad_name="ConvolutionBackward0")
# PyTorch's CPU 2-d convolutions allocate a channels_last output when the input or weight is
# channels_last; its 3-d ones do so only on the oneDNN path (picked by size heuristics), so
# conv3d outputs here stay contiguous, as PyTorch's slow_conv3d gives them.
_CL = {2: {"extra": {"layout": keep_channels_last("input", "weight")}}}
for _n in (1, 2, 3):
    op(f"conv{_n}d", getattr(C, f"conv{_n}d"), static=("stride", "padding", "dilation", "groups"),
       **_NN, **_CL.get(_n, {}))
    op(f"conv_transpose{_n}d", getattr(C, f"conv_transpose{_n}d"),
       static=("stride", "padding", "output_padding", "groups", "dilation"), **_NN,
       **_CL.get(_n, {}))
