"""Op database entries: attention kernels through ``F.scaled_dot_product_attention`` and
``F.multi_head_attention_forward`` (module behaviour and dropout are tested in
test_nn_transformer.py)."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
TOL = dict(rtol=1e-5, atol=1e-6)


def _sdpa(t, *a, **k):
    return t.nn.functional.scaled_dot_product_attention(*a, **k)


def _mha(t, *a, **k):
    """F.multi_head_attention_forward without its None weights (need_weights=False)."""
    return tuple(o for o in t.nn.functional.multi_head_attention_forward(*a, **k)
                 if o is not None)


_Q = tensor((2, 2, 3, 4), "float64")
_K = tensor((2, 2, 4, 4), "float64")
_V = tensor((2, 2, 4, 2), "float64")
_BOOL = T(np.array([[True, False, True, True], [False, False, False, False],
                    [True, True, True, False]]), "bool")

OPS += [
    OpInfo("_scaled_dot_product_attention", lambda: [
        S(_Q, _K, _V), S(_Q, _K, _V, _BOOL), S(_Q, _K, _V, tensor((2, 1, 3, 4), "float64")),
        S(_Q, _K, _V, is_causal=True, scale=0.3),
        S(_Q, _K, _K, _BOOL, is_causal=True),
        S(tensor((2, 4, 3, 4), "float64"), _K, _V, enable_gqa=True),
        S(tensor((3, 4)), tensor((4, 4)), tensor((4, 2))),
    ], lambda: [
        S(_Q, tensor((2, 2, 4, 4)), _V),
        S(_Q, _K, _V, T(np.ones((3, 4), np.int64), "int64")),
        S(tensor((2, 4, 3, 4)), tensor((2, 2, 4, 4)), tensor((2, 2, 4, 2))),
        S(_Q, _K, _V, _BOOL, is_causal=True),
    ], call=_sdpa, tol=TOL, grad_samples=3),
]

_E, _NH, _L, _S, _N = 4, 2, 3, 4, 2


def _mha_args(dtype="float64", bias=True, bias_kv=False):
    q, k, v = (tensor((_L, _N, _E), dtype), tensor((_S, _N, _E), dtype),
               tensor((_S, _N, _E), dtype))
    w = tensor((3 * _E, _E), dtype)
    b = tensor((3 * _E,), dtype) if bias else None
    bk = (tensor((1, 1, _E), dtype), tensor((1, 1, _E), dtype)) if bias_kv else (None, None)
    out_w, out_b = tensor((_E, _E), dtype), (tensor((_E,), dtype) if bias else None)
    return (q, k, v, _E, _NH, w, b, *bk, False, 0.0, out_w, out_b)


_KPM = T(np.array([[False, False, False, True], [False, True, False, False]]), "bool")
_MASK = T(np.array([[False, True, False, False], [False, False, False, True],
                    [True, False, False, False]]), "bool")

OPS += [
    OpInfo("_multi_head_attention", lambda: [
        S(*_mha_args(), training=False),
        S(*_mha_args(bias_kv=True), key_padding_mask=_KPM, average_attn_weights=False),
        S(*_mha_args(bias=False), attn_mask=_MASK, key_padding_mask=_KPM, need_weights=False),
        S(*_mha_args("float32"), attn_mask=tensor((_L, _S)), need_weights=False),
    ], lambda: [
        S(*_mha_args(), attn_mask=tensor((2, 2), "float64")),
        S(*_mha_args(), is_causal=True),
        S(*_mha_args(), key_padding_mask=T(np.zeros((2, 3), bool), "bool")),
    ], call=_mha, tol=TOL),
]
