"""Normalization kernels (batch/instance norm's running-stat update is in nn.functional)."""

from __future__ import annotations

from .._memory_format import keep_channels_last
from .._registry import op
from ..functional import normalization as N

_NN = dict(method=False, modules=("nn.functional",))
op("_batch_norm", N.batch_norm, static=("training", "eps"), function=False, method=False,
   grad_name="NativeBatchNormBackward0", extra={"layout": keep_channels_last("input")})
# saves="unchecked": the running stats it reads are written back (bumping their versions)
# right after, which must not invalidate the backward, which never reads them.
op("_instance_norm", N.instance_norm, static=("use_input_stats", "eps"), function=False,
   method=False, grad_name="ViewBackward0", saves="unchecked")
op("layer_norm", N.layer_norm, static=("normalized_shape", "eps"),
   grad_name="NativeLayerNormBackward0", **_NN)
op("group_norm", N.group_norm, static=("num_groups", "eps"),
   grad_name="NativeGroupNormBackward0", extra={"layout": keep_channels_last("input")}, **_NN)
op("rms_norm", N.rms_norm, static=("normalized_shape", "eps"), grad_name="MulBackward0", **_NN)
