"""The rest of torch.nn against PyTorch: gumbel_softmax (statistics and straight-through
gradient), AdaptiveLogSoftmaxWithLoss, BatchNorm fusion, CrossMapLRN2d, conv_tbc,
torch.nn.grad, linear_cross_entropy, stateless.functional_call, nn.attention's kernel
choice and the small helpers (factory_kwargs, modules.utils, overrides)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from conftest import check

import jtorch

RNG = np.random.default_rng(9)
X4 = RNG.standard_normal((2, 6, 3, 3))
X2 = RNG.standard_normal((4, 6))
W56 = RNG.standard_normal((5, 6))
X523 = RNG.standard_normal((5, 2, 3))
W334 = RNG.standard_normal((3, 3, 4))
B4 = RNG.standard_normal(4)
W4322 = RNG.standard_normal((4, 3, 2, 2))
GO = RNG.standard_normal((2, 4, 2, 1))
Q = RNG.standard_normal((1, 2, 3, 4))
MEAN4, VAR4 = RNG.uniform(-1, 1, 4), RNG.uniform(0.5, 2, 4)


def _copy(src, dst):
    dst.load_state_dict({k: jtorch.tensor(v.detach().numpy())
                         for k, v in src.state_dict().items()})


def _same_module(make):
    """``make(t)`` on both sides, the jtorch one holding the torch one's state."""
    torch.manual_seed(0)
    ref = make(torch)

    def build(t):
        if t is torch:
            return ref
        m = make(t)
        _copy(ref, m)
        return m

    return build


# ------------------------------------------------------------------ gumbel_softmax


def test_gumbel_softmax_statistics():
    """Hard samples pick class i with probability softmax(logits)_i (the Gumbel-max trick);
    soft samples average to the same mean as PyTorch's."""
    logits = np.log(np.array([0.1, 0.2, 0.7]))
    n = 20000
    means = {}
    for t in (torch, jtorch):
        t.manual_seed(0)
        x = t.tensor(np.tile(logits, (n, 1)))
        hard = t.nn.functional.gumbel_softmax(x, tau=0.5, hard=True)
        soft = t.nn.functional.gumbel_softmax(x, tau=2.0)
        means[t.__name__] = (hard.numpy().mean(0), soft.numpy().mean(0))
        assert set(np.unique(hard.numpy())) == {0.0, 1.0}
        np.testing.assert_array_equal(hard.numpy().sum(1), np.ones(n))
    np.testing.assert_allclose(means["jtorch"][0], [0.1, 0.2, 0.7], atol=0.015)
    np.testing.assert_allclose(means["jtorch"][1], means["torch"][1], atol=0.01)


def test_gumbel_softmax_straight_through_gradient():
    """With one seed, a hard sample is the one-hot argmax of the soft one and its gradient
    is the soft sample's (y_hard - y_soft.detach() + y_soft)."""

    def prog(t):
        g = t.tensor(W56[:4])
        out = []
        for hard in (False, True):
            x = t.tensor(X2, requires_grad=True)
            t.manual_seed(3)
            y = t.nn.functional.gumbel_softmax(x, tau=0.7, hard=hard, dim=-1)
            (y * g).sum().backward()
            out.append((y, x.grad))
        (soft, g_soft), (hard, g_hard) = out
        one_hot = t.nn.functional.one_hot(soft.argmax(-1), 6).to(hard.dtype)
        return (bool((hard == one_hot).all()), bool(t.allclose(g_soft, g_hard)),
                hard.grad_fn.name(), soft.grad_fn.name())

    check(prog)


# ------------------------------------------------------------------ modules


def test_adaptive_log_softmax_matches_torch():
    build = _same_module(lambda t: t.nn.AdaptiveLogSoftmaxWithLoss(
        6, 8, [4], div_value=2.0, head_bias=True, dtype=t.float64))

    def prog(t):
        m = build(t)
        x = t.tensor(X2, requires_grad=True)
        out, loss = m(x, t.tensor([0, 4, 7, 2]))
        loss.backward()
        grads = {n: p.grad for n, p in m.named_parameters()}
        return (out, loss, x.grad, grads, m.log_prob(x.detach()), m.predict(x.detach()),
                list(m.state_dict()), repr(m))

    check(prog)


@pytest.mark.parametrize("bad", ["cutoffs", "target_range", "target_dim"])
def test_adaptive_log_softmax_errors(bad):
    def prog(t):
        if bad == "cutoffs":
            return t.nn.AdaptiveLogSoftmaxWithLoss(6, 10, [6, 3])
        m = t.nn.AdaptiveLogSoftmaxWithLoss(6, 10, [3])
        if bad == "target_range":
            return m(t.zeros(2, 6), t.tensor([1, 10]))
        return m(t.zeros(2, 6), t.zeros(2, 1, dtype=t.long))

    check(prog, raises=ValueError if bad == "cutoffs" else RuntimeError)


def test_fuse_conv_bn_and_linear_bn():
    def make(t):
        t.manual_seed(0)
        conv, bn = t.nn.Conv2d(6, 4, 3, padding=1).double(), t.nn.BatchNorm2d(4).double()
        lin, bn1 = t.nn.Linear(6, 4).double(), t.nn.BatchNorm1d(4).double()
        return t.nn.ModuleList([conv, bn, lin, bn1])

    build = _same_module(make)

    def prog(t):
        conv, bn, lin, bn1 = build(t)
        with t.no_grad():  # non-trivial running statistics, the same on both sides
            bn.running_mean.copy_(t.tensor(MEAN4)), bn.running_var.copy_(t.tensor(VAR4))
            bn1.running_mean.copy_(bn.running_mean), bn1.running_var.copy_(bn.running_var)
        for m in (conv, bn, lin, bn1):
            m.eval()
        fc = t.nn.utils.fuse_conv_bn_eval(conv, bn)
        fl = t.nn.utils.fuse_linear_bn_eval(lin, bn1)
        x = t.tensor(X4)
        return (fc(x), bn(conv(x)), fl(t.tensor(X2)), type(fc.weight).__name__,
                fc.weight.requires_grad, t.nn.utils.fuse_conv_bn_weights(
                    conv.weight.transpose(0, 1), None, bn.running_mean, bn.running_var, 1e-3,
                    None, None, transpose=True))  # a transposed conv's (in, out, ...) weight

    check(prog)
    check(lambda t: t.nn.utils.fuse_conv_bn_eval(t.nn.Conv2d(2, 2, 1), t.nn.BatchNorm2d(2)),
          raises=AssertionError)  # fusion only for eval


def test_cross_map_lrn2d_matches_torch():
    def prog(t):
        x = t.tensor(X4, requires_grad=True)
        y = t.nn.CrossMapLRN2d(3, 0.1, 0.75, 1.5)(x)
        y.backward(t.tensor(np.linspace(-1, 1, y.numel()).reshape(y.shape)))
        return y, x.grad, y.grad_fn.name(), repr(t.nn.CrossMapLRN2d(3))

    check(prog)
    check(lambda t: t.nn.CrossMapLRN2d(3)(t.zeros(2, 3, 4)), raises=ValueError)


def test_deprecated_modules_warn_and_work():
    def prog(t):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            c = t.nn.Container(a=t.nn.ReLU())
            loss = t.nn.NLLLoss2d()(t.tensor(X2).log_softmax(1), t.tensor([0, 5, 2, 1]))
        return [type(x.message).__name__ for x in w], list(c._modules), loss

    check(prog)


# ------------------------------------------------------------------ functions


def test_conv_tbc_and_nn_grad_match_torch():
    def prog(t):
        x = t.tensor(X523, requires_grad=True)
        w = t.tensor(W334, requires_grad=True)
        y = t.nn.functional.conv_tbc(x, w, t.tensor(B4), 1)
        y.sum().backward()
        xi = t.tensor(X4)
        wi = t.tensor(W4322)
        go = t.tensor(GO)
        return (y, x.grad, w.grad,
                t.nn.grad.conv2d_input(xi.shape, wi, go, stride=(1, 2), groups=2),
                t.nn.grad.conv2d_weight(xi, wi.shape, go, stride=(1, 2), groups=2))

    check(prog)


@pytest.mark.parametrize("kw", [dict(), dict(reduction="none", ignore_index=2),
                                dict(label_smoothing=0.1, linear_bias=True, weight=True)])
def test_linear_cross_entropy_matches_torch(kw):
    def prog(t):
        k = dict(kw)
        x = t.tensor(X2, requires_grad=True)
        w = t.tensor(W56, requires_grad=True)
        if k.pop("linear_bias", False):
            k["linear_bias"] = t.tensor(np.linspace(-1, 1, 5))
        if k.pop("weight", False):
            k["weight"] = t.tensor(np.linspace(0.5, 1.5, 5))
        loss = t.nn.functional.linear_cross_entropy(x, w, t.tensor([0, 2, 4, 2]), **k)
        loss.sum().backward()
        return loss, x.grad, w.grad

    check(prog)


def test_linear_cross_entropy_module():
    build = _same_module(lambda t: t.nn.LinearCrossEntropyLoss(6, 5, bias=True,
                                                                dtype=t.float64))
    check(lambda t: (build(t)(t.tensor(X2), t.tensor([0, 2, 4, 2])), repr(build(t))))


def test_stateless_functional_call():
    build = _same_module(lambda t: t.nn.Linear(6, 3, dtype=t.float64))

    def prog(t):
        m = build(t)
        w = t.ones(3, 6, dtype=t.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            y = t.nn.utils.stateless.functional_call(m, {"weight": w}, (t.tensor(X2),))
        return y, m.weight  # the module's own weight is back afterwards

    check(prog)
    check(lambda t: t.nn.utils.stateless._functional_call(
        t.nn.Linear(2, 2), {"weight": t.ones(2, 2), "nope": t.ones(1)}, (t.ones(1, 2),),
        strict=True), raises=RuntimeError)


@pytest.mark.parametrize("backends", [["MATH"], ["FLASH_ATTENTION"], ["EFFICIENT_ATTENTION"],
                                      []])
def test_sdpa_kernel_choice_matches_torch(backends):
    """On the CPU only the math and flash kernels exist; flash takes no dropout but allows
    an explicit mask with is_causal."""

    def prog(t):
        from importlib import import_module

        attention = import_module(f"{t.__name__}.nn.attention")
        chosen = [getattr(attention.SDPBackend, b) for b in backends]
        q = t.tensor(Q)
        mask = t.ones(3, 3, dtype=t.bool).tril()
        out = []
        with attention.sdpa_kernel(chosen):
            out.append([t.backends.cuda.flash_sdp_enabled(), t.backends.cuda.math_sdp_enabled()])
            for kw in (dict(), dict(attn_mask=mask, is_causal=True), dict(dropout_p=0.5)):
                try:
                    y = t.nn.functional.scaled_dot_product_attention(q, q, q, **kw)
                    out.append(tuple(y.shape))
                except RuntimeError as e:
                    out.append(str(e))
        out.append(t.backends.cuda.flash_sdp_enabled())  # restored
        return out, str(attention.SDPBackend.MATH), int(attention.SDPBackend.FLASH_ATTENTION)

    check(prog)


def test_small_helpers_match_torch():
    def prog(t):
        from importlib import import_module

        utils = import_module(f"{t.__name__}.nn.modules.utils")
        sd = {"module.a": 1, "module.b.c": 2, "d": 3}
        utils.consume_prefix_in_state_dict_if_present(sd, "module.")
        return (t.nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": t.float64}}),
                utils._pair(3), utils._triple((1, 2, 3)), utils._reverse_repeat_tuple((1, 2), 2),
                utils._list_with_default([None, 4], [1, 2, 3]), sd,
                t.nn.functional.GRID_SAMPLE_PADDING_MODES)

    check(prog)
    check(lambda t: t.nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"device": "cpu"}}),
          raises=TypeError)


def test_overrides_protocol():
    """handle_torch_function calls a duck type's __torch_function__, subclasses first."""

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("duck", func.__name__, len(args))

    class Refuses(Duck):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    def prog(t):
        o = t.overrides
        d = Duck()
        first = (o.has_torch_function((t.ones(1),)), o.has_torch_function((t.ones(1), d)),
                 o.is_tensor_like(d), o.is_tensor_like(t.ones(1)))
        handled = o.handle_torch_function(t.add, (d,), d, 1)
        try:
            o.handle_torch_function(t.add, (Refuses(),), Refuses())
        except TypeError as e:
            refused = "no implementation found for 'torch.add'" in str(e)
        return first, handled, refused

    check(prog)


def test_inplace_after_inplace_that_saved_self():
    """An in-place op's node holds ``self`` as the value before its write (PyTorch saves a
    clone), so later in-place writes do not invalidate it (AdaptiveLogSoftmax does this)."""

    def prog(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.clone()
        y.mul_(x)
        y.add_(1)
        out = t.zeros(3, dtype=t.float64)
        out.index_copy_(0, t.tensor([0, 2]), x.double()[:2] * 2)
        out += 1
        (y.sum() + out.sum()).backward()
        return x.grad

    check(prog)
