"""Pooling kernels, in torch.nn.functional (1-d forms are compositions in nn.functional)."""

from __future__ import annotations

import math

import numpy as np

from .._memory_format import keep_channels_last
from .._registry import op
from ..functional import pooling as P
from ..functional import pooling_fractional as PF

_NN = dict(function=False, method=False, modules=("nn.functional",))
# Outputs are channels_last(_3d) for such an input, except avg_pool3d's (PyTorch's CPU kernel
# for it has no channels_last_3d path).
_CL = dict(_NN, extra={"layout": keep_channels_last("input")})
_POOL = ("kernel_size", "stride", "padding")
for _n in (2, 3):
    op(f"max_pool{_n}d_with_indices", getattr(P, f"max_pool{_n}d_with_indices"),
       static=(*_POOL, "dilation", "ceil_mode"), grad_name=f"MaxPool{_n}DWithIndicesBackward0",
       **_CL)
    # Without indices (F.max_pool2d's default): values alone compile much faster. Bound in
    # no namespace: nn.functional's max_pool{n}d picks this or the above by return_indices.
    op(f"max_pool{_n}d", getattr(P, f"max_pool{_n}d"), static=(*_POOL, "dilation", "ceil_mode"),
       grad_name=f"MaxPool{_n}DWithIndicesBackward0", function=False, method=False,
       extra=_CL["extra"])
    op(f"avg_pool{_n}d", getattr(P, f"avg_pool{_n}d"),
       static=(*_POOL, "ceil_mode", "count_include_pad", "divisor_override"),
       grad_name=f"AvgPool{_n}DBackward0", saves="none", **(_CL if _n == 2 else _NN))
    op(f"adaptive_avg_pool{_n}d", getattr(P, f"adaptive_avg_pool{_n}d"), static=("output_size",),
       grad_name=f"AdaptiveAvgPool{_n}DBackward0", saves="none", **_CL)
    op(f"adaptive_max_pool{_n}d_with_indices", getattr(P, f"adaptive_max_pool{_n}d_with_indices"),
       static=("output_size",), grad_name=f"AdaptiveMaxPool{_n}DBackward0", **_CL)


def _check_unpool(operands, statics):
    idx = np.asarray(operands["indices"]._value)
    total = math.prod(statics["output_size"])
    bad = idx[(idx < 0) | (idx >= total)]
    if bad.size:
        sizes = "x".join(map(str, statics["output_size"]))
        raise RuntimeError(f"Found an invalid max index: {int(bad.flat[0])} (output volumes "
                           f"are of size {sizes}")


for _n in (2, 3):
    op(f"_max_unpool{_n}d", P.max_unpool, static=("output_size",),
       grad_name=f"MaxUnpool{_n}DBackward0", saves="none", extra={"check": _check_unpool},
       function=False, method=False)
for _n in (2, 3):
    op(f"fractional_max_pool{_n}d", getattr(PF, f"fractional_max_pool{_n}d"),
       static=("kernel_size", "output_size"), grad_name=f"FractionalMaxPool{_n}DBackward0",
       function=False, method=False)
