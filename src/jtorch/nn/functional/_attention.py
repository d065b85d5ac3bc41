"""torch.nn.functional attention: ``scaled_dot_product_attention`` and
``multi_head_attention_forward``, PyTorch's signatures over one kernel each
(``functional/attention.py``). Argument checks run here on the host with PyTorch's
exception types and wording; dropout draws its keep-mask here.

Differences from PyTorch: the dropout random streams differ (same distribution and
scaling).
"""

from __future__ import annotations

import warnings

import jtorch
from jtorch.backends import _sdp
from jtorch.eager.bind import bound
from jtorch.eager.random_ops import draw
from jtorch.eager.tensor import wrap
from jtorch.functional import random as FR

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _keep_mask(shape, p: float):
    """True where an attention weight survives dropout of probability ``p``: the mask
    ``F.dropout`` draws (``functional.random.keep_mask``), from the default generator."""
    return wrap(draw("keep_mask", FR.keep_mask, None, (tuple(shape), 1.0 - float(p))))


def _broadcast(*shapes) -> tuple:
    return tuple(jtorch.broadcast_shapes(*shapes))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False):
    """softmax(Q K^T * scale + mask) V; a boolean ``attn_mask`` marks the keys to attend.

    ``is_causal`` with an ``attn_mask`` applies both where PyTorch's CPU flash kernel would
    run (4-D inputs of one head size, equal batch sizes, no dropout), and raises otherwise,
    as PyTorch's math fallback does."""
    flash = _sdp.check_kernel(query.device.type,
                              _flash_usable(query, key, value, dropout_p, enable_gqa))
    if is_causal and attn_mask is not None and not flash:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    kw = dict(is_causal=bool(is_causal), scale=None if scale is None else float(scale),
              enable_gqa=bool(enable_gqa))
    if dropout_p > 0.0:
        batch = _broadcast(tuple(query.shape[:-2]), tuple(key.shape[:-3]) +
                           (query.shape[-3:-2] if enable_gqa else tuple(key.shape[-3:-2])))
        shape = (*batch, query.shape[-2], key.shape[-2])
        kw.update(dropout_mask=_keep_mask(shape, dropout_p), dropout_p=float(dropout_p))
    return bound("_scaled_dot_product_attention")(query, key, value, attn_mask, **kw)


def _flash_usable(query, key, value, dropout_p, enable_gqa) -> bool:
    if dropout_p > 0.0 or not query.dim() == key.dim() == value.dim() == 4:
        return False
    if not query.shape[-1] == key.shape[-1] == value.shape[-1]:
        return False
    heads_ok = enable_gqa or query.shape[1] == key.shape[1]
    return query.shape[0] == key.shape[0] == value.shape[0] and heads_ok and \
        key.shape[1] == value.shape[1]


# ---------------------------------------------------------------------- multi-head attention


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, jtorch.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True):
    """A bool mask (True = masked out) as an additive float mask of ``target_type``."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype != jtorch.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if not is_float:
        mask = jtorch.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    if query.dim() not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    n, what = (3, "batched (3-D)") if batched else (2, "unbatched (2-D)")
    if key.dim() != n or value.dim() != n:
        raise AssertionError(f"For {what} `query`, expected `key` and `value` to be {n}-D but "
                             f"found {key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != n - 1:
        raise AssertionError(f"For {what} `query`, expected `key_padding_mask` to be `None` or "
                             f"{n - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {what} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.dim()}-D tensor instead")
        if not batched and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{attn_mask.shape}")
    return batched


def _check_projections(query, key, value, embed_dim, num_heads, use_separate_proj_weight,
                       in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight,
                       in_proj_bias) -> None:
    if query.shape[-1] != embed_dim:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim}, but got "
                             f"{query.shape[-1]}")
    if (embed_dim // num_heads) * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     "is None")
        e = embed_dim
        for what, w, want in (("query", q_proj_weight, (e, e)),
                              ("key", k_proj_weight, (e, key.shape[-1])),
                              ("value", v_proj_weight, (e, value.shape[-1]))):
            if tuple(w.shape) != want:
                raise AssertionError(f"expecting {what} weights shape of {want}, but got "
                                     f"{w.shape}")
        return
    if key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if in_proj_weight is None:
        raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")


def _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads) -> None:
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
    elif attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * num_heads, tgt_len, src_len)}.")
    else:
        raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _check_static(static, name, bsz, num_heads, head_dim) -> None:
    if static is None:
        return
    if static.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got "
                             f"{static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                             f"{static.size(2)}")


def multi_head_attention_forward(
        query, key, value, embed_dim_to_check: int, num_heads: int, in_proj_weight,
        in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float, out_proj_weight,
        out_proj_bias, training: bool = True, key_padding_mask=None, need_weights: bool = True,
        attn_mask=None, use_separate_proj_weight: bool = False, q_proj_weight=None,
        k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None,
        average_attn_weights: bool = True, is_causal: bool = False):
    """Multi-head attention on (L, N, E) inputs (or unbatched (L, E)); returns
    ``(output, weights)`` with weights None unless ``need_weights``."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    causal = bool(is_causal and key_padding_mask is None and not need_weights)
    if causal:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
    _check_projections(query, key, value, embed_dim_to_check, num_heads,
                       use_separate_proj_weight, in_proj_weight, q_proj_weight, k_proj_weight,
                       v_proj_weight, in_proj_bias)
    if attn_mask is not None:
        _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)
    if (bias_k is None) != (bias_v is None):
        which = "bias_k is set but bias_v" if bias_k is not None else "bias_v is set but bias_k"
        raise AssertionError(f"{which} is None")
    if bias_k is not None and (static_k is not None or static_v is not None):
        what = "key" if static_k is not None else "value"
        raise AssertionError(f"bias cannot be added to static {what}.")
    head_dim = embed_dim // num_heads
    _check_static(static_k, "static_k", bsz, num_heads, head_dim)
    _check_static(static_v, "static_v", bsz, num_heads, head_dim)
    total = (static_k.size(1) if static_k is not None else src_len + (bias_k is not None))
    total += bool(add_zero_attn)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        width = key_padding_mask.shape[1] + (bias_k is not None) + bool(add_zero_attn)
        if width != total:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {total}, but got "
                                 f"{width}")
    kw = dict(num_heads=num_heads, add_zero_attn=bool(add_zero_attn),
              need_weights=bool(need_weights), average_attn_weights=bool(average_attn_weights),
              is_causal=causal)
    if training and dropout_p > 0.0:
        kw.update(dropout_mask=_keep_mask((bsz * num_heads, tgt_len, total), dropout_p),
                  dropout_p=float(dropout_p))
    if use_separate_proj_weight:
        kw.update(q_proj_weight=q_proj_weight, k_proj_weight=k_proj_weight,
                  v_proj_weight=v_proj_weight)
    else:
        kw.update(in_proj_weight=in_proj_weight)
    out = bound("_multi_head_attention")(
        query, key, value, in_proj_bias=in_proj_bias, bias_k=bias_k, bias_v=bias_v,
        out_proj_weight=out_proj_weight, out_proj_bias=out_proj_bias,
        key_padding_mask=key_padding_mask, attn_mask=attn_mask, static_k=static_k,
        static_v=static_v, **kw)
    output, weights = out if need_weights else (out, None)
    if not batched:
        output = output.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return output, weights
