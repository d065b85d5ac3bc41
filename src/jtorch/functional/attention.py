"""Attention as pure functions: scaled dot-product attention and the multi-head attention
forward of ``nn.MultiheadAttention`` (projections, masks, heads, output projection).

Randomness stays outside: dropout arrives as a boolean keep-mask drawn by the caller.
A query row whose keys are all masked gives zeros (and zero gradients) in scaled
dot-product attention, as PyTorch's CPU kernels do; in multi-head attention with
``need_weights=True`` it gives NaN, as PyTorch's explicit softmax there does.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from .. import _dtypes as D
from ._util import broadcast_shapes, dtype_of

__all__ = ["scaled_dot_product_attention", "multi_head_attention"]


def _check_sdpa(query, key, value, attn_mask) -> None:
    dq, dk, dv = dtype_of(query), dtype_of(key), dtype_of(value)
    if not (dq is dk is dv):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cname(dq)} key.dtype: {_cname(dk)} and value.dtype: {_cname(dv)} instead.")
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if not dq.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {D.legacy_name(dq)}")
    if attn_mask is not None:
        dm = dtype_of(attn_mask)
        if dm is not D.bool and not dm.is_floating_point:
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                f"attn_mask.dtype: {_cname(dm)} and  query.dtype: {_cname(dq)} instead.")


def _cname(d) -> str:
    """The C++ scalar type name PyTorch prints in these messages (float, double, long int)."""
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "float16": "c10::Half", "bfloat16": "c10::BFloat16", "bool": "bool"}.get(d.name,
                                                                                    d.name)


def _bias(mask, dtype):
    """A boolean mask (True = attend) or an additive float mask, as an additive bias."""
    if mask.dtype == jnp.bool_:
        return jnp.where(mask, jnp.zeros((), dtype), jnp.asarray(-jnp.inf, dtype))
    return mask.astype(dtype)


def _safe_softmax(scores):
    """Softmax over the last axis; an all ``-inf`` row gives zeros with zero gradient."""
    dead = jnp.all(scores == -jnp.inf, axis=-1, keepdims=True)
    w = jax.nn.softmax(jnp.where(dead, jnp.zeros((), scores.dtype), scores), axis=-1)
    return jnp.where(dead, jnp.zeros((), scores.dtype), w)


def _apply_dropout(w, keep, p):
    scale = 1.0 / (1.0 - p) if p < 1 else 0.0
    return jnp.where(keep, w * jnp.asarray(scale, w.dtype), jnp.zeros((), w.dtype))


def _compute_dtype(dtype):
    return jnp.float32 if dtype in (jnp.float16, jnp.bfloat16) else dtype


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_mask=None,
                                 dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v over the last two axes, batch axes broadcast.

    ``is_causal`` together with ``attn_mask`` applies both, as PyTorch 2.13's CPU kernel
    does; ``dropout_mask`` (True = keep) scales the kept weights by 1 / (1 - dropout_p)."""
    _check_sdpa(query, key, value, attn_mask)
    out_dtype = query.dtype
    ct = _compute_dtype(out_dtype)
    q, k, v = query.astype(ct), key.astype(ct), value.astype(ct)
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        groups = q.shape[-3] // k.shape[-3]
        k = jnp.repeat(k, groups, axis=-3)
        v = jnp.repeat(v, groups, axis=-3)
    broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    L, S = q.shape[-2], k.shape[-2]
    factor = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = jnp.matmul(q, jnp.swapaxes(k, -1, -2)) * jnp.asarray(factor, ct)
    if is_causal:
        causal = jnp.tril(jnp.ones((L, S), bool))
        scores = jnp.where(causal, scores, jnp.asarray(-jnp.inf, ct))
    if attn_mask is not None:
        broadcast_shapes(scores.shape, attn_mask.shape)
        scores = scores + _bias(attn_mask, ct)
    w = _safe_softmax(scores)
    if dropout_mask is not None:
        w = _apply_dropout(w, dropout_mask, dropout_p)
    return jnp.matmul(w, v).astype(out_dtype)


def _linear(x, w, b):
    y = jnp.matmul(x, w.T)
    return y if b is None else y + b


def _project(query, key, value, in_proj_weight, in_proj_bias, q_proj_weight, k_proj_weight,
             v_proj_weight):
    if in_proj_weight is not None:
        wq, wk, wv = jnp.split(in_proj_weight, 3)
    else:
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = jnp.split(in_proj_bias, 3)
    return _linear(query, wq, bq), _linear(key, wk, bk), _linear(value, wv, bv)


def _pad_col(mask):
    return None if mask is None else jnp.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, 1)])


def multi_head_attention(query, key, value, in_proj_weight=None, in_proj_bias=None,
                         bias_k=None, bias_v=None, out_proj_weight=None, out_proj_bias=None,
                         key_padding_mask=None, attn_mask=None, q_proj_weight=None,
                         k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None,
                         dropout_mask=None, num_heads=1, add_zero_attn=False, dropout_p=0.0,
                         need_weights=True, average_attn_weights=True, is_causal=False):
    """F.multi_head_attention_forward on time-major batched inputs (L, N, E), masks already
    additive floats of the query's dtype. Returns ``(output, weights)`` with
    ``need_weights``, else the output alone. ``is_causal`` here means the causal mask
    replaces ``attn_mask`` (the caller decides that, as PyTorch does)."""
    tgt_len, bsz, embed_dim = query.shape
    head_dim = embed_dim // num_heads
    dt = query.dtype
    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias, q_proj_weight,
                       k_proj_weight, v_proj_weight)
    if attn_mask is not None:
        attn_mask = attn_mask.astype(dt)
        attn_mask = attn_mask[None] if attn_mask.ndim == 2 else attn_mask
    if key_padding_mask is not None:
        key_padding_mask = key_padding_mask.astype(dt)
    if bias_k is not None:
        k = jnp.concatenate([k, jnp.tile(bias_k, (1, bsz, 1))])
        v = jnp.concatenate([v, jnp.tile(bias_v, (1, bsz, 1))])
        attn_mask, key_padding_mask = _pad_col(attn_mask), _pad_col(key_padding_mask)
    bh = bsz * num_heads
    q = jnp.swapaxes(q.reshape(tgt_len, bh, head_dim), 0, 1)
    k = static_k if static_k is not None else jnp.swapaxes(k.reshape(-1, bh, head_dim), 0, 1)
    v = static_v if static_v is not None else jnp.swapaxes(v.reshape(-1, bh, head_dim), 0, 1)
    if add_zero_attn:
        k = jnp.concatenate([k, jnp.zeros((bh, 1, head_dim), k.dtype)], axis=1)
        v = jnp.concatenate([v, jnp.zeros((bh, 1, head_dim), v.dtype)], axis=1)
        attn_mask, key_padding_mask = _pad_col(attn_mask), _pad_col(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        kpm = jnp.broadcast_to(key_padding_mask.reshape(bsz, 1, 1, src_len),
                               (bsz, num_heads, 1, src_len)).reshape(bh, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if need_weights:
        scores = jnp.matmul(q * jnp.asarray(math.sqrt(1.0 / head_dim), dt),
                            jnp.swapaxes(k, -1, -2))
        if attn_mask is not None:
            scores = scores + attn_mask
        w = jax.nn.softmax(scores, axis=-1)
    else:
        scores = jnp.matmul(q, jnp.swapaxes(k, -1, -2)) * jnp.asarray(1 / math.sqrt(head_dim),
                                                                        dt)
        if is_causal:
            scores = jnp.where(jnp.tril(jnp.ones((tgt_len, src_len), bool)), scores,
                               jnp.asarray(-jnp.inf, dt))
        if attn_mask is not None:
            scores = scores + attn_mask
        w = _safe_softmax(scores)
    if dropout_mask is not None:
        w = _apply_dropout(w, dropout_mask, dropout_p)
    out = jnp.matmul(w, v)  # (bh, tgt, head_dim)
    out = jnp.swapaxes(out, 0, 1).reshape(tgt_len * bsz, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if not need_weights:
        return out
    w = w.reshape(bsz, num_heads, tgt_len, src_len)
    return out, (w.mean(axis=1) if average_attn_weights else w)
