"""Scaled dot-product attention, MultiheadAttention and the Transformer modules against
PyTorch: parameters copied from the torch module, then outputs and gradients with respect
to inputs and parameters compared (eval mode, and train mode with dropout 0); masks of
every kind, PyTorch's nested-tensor zeros in eval mode, dropout statistics, parameter
layout and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from conftest import check

import jtorch

RNG = np.random.default_rng(0)
SRC = RNG.standard_normal((2, 3, 4))  # batch_first (N, S, E); time-major reads (S=2, N=3)
TGT = RNG.standard_normal((2, 2, 4))
Q, K, V = (RNG.standard_normal((3, 2, 4)), RNG.standard_normal((4, 2, 4)),
           RNG.standard_normal((4, 2, 4)))
KPM = np.array([[False, False, False, True], [False, True, False, False]])
KPM3 = np.array([[False, False, False], [False, False, True]])  # right-padded, for SRC
TOL = dict(rtol=1e-6, atol=1e-8)
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*(mismatched key_padding_mask|nested tensors is in prototype|enable_nested_tensor"
    " is True):UserWarning")


def _copy(tm, jm):
    jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})


def _arg(t, a):
    if isinstance(a, np.ndarray):
        return t.tensor(a, requires_grad=a.dtype.kind == "f")
    return a


def _program(make, inputs, kwargs=None, train=False, grad=True):
    """Run ``make(t)`` (torch's parameters copied into jtorch's) on ``inputs``; return the
    output(s), and with ``grad`` the input and parameter gradients of a weighted sum."""
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = make(torch)

    def prog(t):
        if t is torch:
            m = reference
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = make(t)
            _copy(reference, m)
        m.train(train)
        xs = [_arg(t, a) if grad else t.tensor(a) for a in inputs]
        kw = {k: t.tensor(v) if isinstance(v, np.ndarray) else v
              for k, v in (kwargs or {}).items()}
        if not grad:
            with t.no_grad():
                return m(*xs, **kw)
        y = m(*xs, **kw)
        outs = [o for o in (y if isinstance(y, tuple) else (y,)) if o is not None]
        sum((o * t.tensor(np.linspace(0.5, 1.5, o.numel()).reshape(tuple(o.shape)))).sum()
            for o in outs).backward()
        return y, [x.grad for x in xs if isinstance(x, t.Tensor) and x.requires_grad], \
            {n: p.grad for n, p in m.named_parameters()}

    return prog


def _causal(n, m=None):
    return np.triu(np.full((n, m or n), -np.inf), 1)


# ---------------------------------------------------------------------- scaled dot product


def test_sdpa_dropout_statistics():
    """Kept weights are scaled by 1/(1-p): with uniform weights and V = 1 the mean is 1."""
    q = jtorch.zeros(4, 64, 8)
    v = jtorch.ones(4, 64, 8)
    out = jtorch.nn.functional.scaled_dot_product_attention(q, q, v, dropout_p=0.25)
    vals = np.asarray(out._value)
    assert abs(vals.mean() - 1.0) < 0.05 and vals.std() > 0.01
    same = jtorch.nn.functional.scaled_dot_product_attention(q, q, v)
    np.testing.assert_allclose(np.asarray(same._value), 1.0)


def test_sdpa_fully_masked_rows_give_zero_and_zero_grad():
    def prog(t):
        q = t.tensor(Q.transpose(1, 0, 2).copy(), requires_grad=True)
        mask = t.tensor([[True, True, False, True], [False] * 4, [True] * 4])
        out = t.nn.functional.scaled_dot_product_attention(q, t.tensor(K.transpose(1, 0, 2)),
                                                          t.tensor(V.transpose(1, 0, 2)), mask)
        out.sum().backward()
        return out, q.grad

    check(prog, **TOL)


# ---------------------------------------------------------------------- MultiheadAttention

MHA_CASES = [
    ("default", dict(), dict()),
    ("batch_first_no_weights", dict(batch_first=True), dict(need_weights=False)),
    ("bias_kv_zero_attn", dict(add_bias_kv=True, add_zero_attn=True),
     dict(average_attn_weights=False, key_padding_mask=KPM)),
    ("kdim_vdim", dict(kdim=3, vdim=5), dict(attn_mask=RNG.random((3, 4)) > 0.7)),
    ("no_bias_masks", dict(bias=False), dict(key_padding_mask=KPM, need_weights=False,
                                             attn_mask=RNG.standard_normal((4, 3, 4)))),
    ("causal", dict(), dict(attn_mask=_causal(3, 4), is_causal=True, need_weights=False)),
]


@pytest.mark.parametrize("case", MHA_CASES, ids=[c[0] for c in MHA_CASES])
def test_multihead_attention(case):
    _, mk, kw = case
    q, k, v = Q, K, V
    if "kdim" in mk:
        k, v = K[..., :3].copy(), np.concatenate([V, V[..., :1]], -1)
    if mk.get("batch_first"):
        q, k, v = (a.transpose(1, 0, 2).copy() for a in (q, k, v))
    make = lambda t: t.nn.MultiheadAttention(4, 2, dtype=t.float64, **mk)  # noqa: E731
    check(_program(make, [q, k, v], kw), **TOL)


def test_multihead_attention_unbatched_self_attention():
    make = lambda t: t.nn.MultiheadAttention(4, 2, dtype=t.float64)  # noqa: E731
    check(_program(make, [Q[:, 0], Q[:, 0], Q[:, 0]], dict(key_padding_mask=KPM[0, :3])),
          **TOL)


def test_multihead_attention_eval_without_grad():
    """PyTorch's inference fast path gives the same values."""
    make = lambda t: t.nn.MultiheadAttention(4, 2, batch_first=True, dtype=t.float64)  # noqa
    check(_program(make, [SRC, SRC, SRC], dict(key_padding_mask=KPM3), grad=False), **TOL)


def test_multihead_attention_dropout():
    m = jtorch.nn.MultiheadAttention(4, 2, dropout=0.5, dtype=jtorch.float64)
    q = jtorch.tensor(Q)
    a, b = m(q, q, q)[0], m(q, q, q)[0]
    assert not bool((a == b).all())
    m.eval()
    assert bool((m(q, q, q)[0] == m(q, q, q)[0]).all())


def test_multihead_attention_parameters():
    def prog(t):
        t.manual_seed(0)
        a = t.nn.MultiheadAttention(4, 2, add_bias_kv=True)
        b = t.nn.MultiheadAttention(4, 2, kdim=3, vdim=5, bias=False)
        names = [[(n, tuple(p.shape)) for n, p in m.named_parameters()] for m in (a, b)]
        return names, a.in_proj_bias, a.out_proj.bias, repr(a), list(b.state_dict())

    check(prog)


@pytest.mark.parametrize("bad", [
    lambda t: t.nn.MultiheadAttention(5, 2),
    lambda t: t.nn.MultiheadAttention(4, 2)(*(t.ones(3, 2, 4),) * 3, attn_mask=t.ones(2, 2)),
    lambda t: t.nn.MultiheadAttention(4, 2)(*(t.ones(3, 2, 4),) * 3, is_causal=True),
    lambda t: t.nn.MultiheadAttention(4, 2)(*(t.ones(3, 2, 4),) * 3,
                                            attn_mask=t.ones(3, 3, dtype=t.int64)),
    lambda t: t.nn.MultiheadAttention(4, 2)(t.ones(3, 2, 4), t.ones(3, 2), t.ones(3, 2)),
    lambda t: t.nn.functional.scaled_dot_product_attention(t.ones(2, 3, 4), t.ones(2, 3, 4),
                                                           t.ones(2, 3, 4, dtype=t.float64)),
])
def test_attention_errors(bad):
    check(bad, raises=Exception)


# ---------------------------------------------------------------------- Transformer


def _enc_layer(**kw):
    return lambda t: t.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, dtype=t.float64, **kw)


@pytest.mark.parametrize("case", [
    ("post_norm_relu", _enc_layer(), [SRC], {}),
    ("pre_norm_gelu_mask", _enc_layer(norm_first=True, activation="gelu"), [SRC],
     dict(src_mask=_causal(2), is_causal=True)),
    ("batch_first_callable", _enc_layer(batch_first=True, activation=torch.tanh), [SRC],
     dict(src_key_padding_mask=KPM3)),
], ids=lambda c: c[0])
def test_encoder_layer(case):
    _, make, inputs, kw = case
    if case[0] == "batch_first_callable":  # the activation must be each library's own
        make = lambda t: t.nn.TransformerEncoderLayer(  # noqa: E731
            4, 2, 6, dropout=0.0, batch_first=True, activation=t.tanh, dtype=t.float64)
    check(_program(make, inputs, kw, train=True), **TOL)


def _encoder(t, norm=True):
    layer = t.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, batch_first=True,
                                         dtype=t.float64)
    return t.nn.TransformerEncoder(layer, 2, t.nn.LayerNorm(4, dtype=t.float64) if norm
                                   else None)


def test_encoder_with_padding_mask():
    check(_program(_encoder, [SRC], dict(src_key_padding_mask=KPM3)), **TOL)


def test_encoder_eval_nested_zeros():
    """Eval mode without grad: PyTorch returns 0 at padded positions (before the norm)."""
    _, out = check(_program(lambda t: _encoder(t, norm=False), [SRC],
                            dict(src_key_padding_mask=KPM3), grad=False), **TOL)
    assert not np.asarray(out._value)[1, 2].any()


def test_encoder_causal_detection():
    check(_program(_encoder, [SRC], dict(mask=_causal(3))), **TOL)


def test_decoder_layer():
    make = lambda t: t.nn.TransformerDecoderLayer(  # noqa: E731
        4, 2, 6, dropout=0.0, batch_first=True, norm_first=True, dtype=t.float64)
    check(_program(make, [TGT, SRC], dict(tgt_mask=_causal(2), memory_key_padding_mask=KPM3),
                   train=True), **TOL)


def test_transformer():
    make = lambda t: t.nn.Transformer(4, 2, 1, 2, 6, dropout=0.0, dtype=t.float64)  # noqa
    src, tgt = SRC.transpose(1, 0, 2).copy(), TGT.transpose(1, 0, 2).copy()
    check(_program(make, [src, tgt], dict(tgt_mask=_causal(2), src_key_padding_mask=KPM3,
                                          memory_key_padding_mask=KPM3)), **TOL)


def test_transformer_batch_first_eval():
    make = lambda t: t.nn.Transformer(4, 2, 1, 1, 6, dropout=0.0, batch_first=True,  # noqa
                                      norm_first=True, dtype=t.float64)
    check(_program(make, [SRC, TGT], dict(src_key_padding_mask=KPM3), grad=False), **TOL)


def test_transformer_structure():
    def prog(t):
        t.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = t.nn.Transformer(4, 2, 1, 1, 6)
        names = [(n, tuple(p.shape)) for n, p in m.named_parameters()]
        mask = t.nn.Transformer.generate_square_subsequent_mask(3)
        return names, mask, repr(m), [str(w.message) for w in caught]

    check(prog)


@pytest.mark.parametrize("bad", [
    lambda t: t.nn.Transformer(4, 2, 1, 1, 6)(t.ones(3, 2, 4), t.ones(3, 1, 4)),
    lambda t: t.nn.Transformer(4, 2, 1, 1, 6)(t.ones(3, 2, 4), t.ones(3, 2, 3)),
    lambda t: t.nn.TransformerEncoderLayer(4, 2, activation="tanh"),
])
def test_transformer_errors(bad):
    check(bad, raises=Exception)
