"""Attention kernels, reached through ``F.scaled_dot_product_attention`` and
``F.multi_head_attention_forward`` (``nn/functional/_attention.py``), which check their
arguments on the host and draw the dropout masks."""

from __future__ import annotations

from .._registry import op
from ..functional import attention as A

# The gradient reads the attention weights: kept, not recomputed (OpSpec.residuals).
_F = dict(function=False, method=False, residuals=True)

op("_scaled_dot_product_attention", A.scaled_dot_product_attention,
   static=("dropout_p", "is_causal", "scale", "enable_gqa"),
   grad_name="ScaledDotProductFlashAttentionForCpuBackward0", **_F)
op("_multi_head_attention", A.multi_head_attention,
   static=("num_heads", "add_zero_attn", "dropout_p", "need_weights", "average_attn_weights",
           "is_causal"),
   grad_name="ViewBackward0", **_F)
