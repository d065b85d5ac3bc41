"""Conv and pooling layers against PyTorch: outputs, gradients w.r.t. input and
parameters, initialization and module errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from conftest import check

import jtorch


def ok(prog, **tol):
    """``check`` for a program that must succeed (not merely fail alike)."""
    check(prog, **tol)


def raises(prog):
    """``check`` for a program that must raise (the same class in both libraries)."""
    check(prog, raises=Exception)


def _twin(name, *args, **kwargs):
    """The torch module and a jtorch one holding the same state: backend -> module."""
    tm = getattr(torch.nn, name)(*args, **kwargs).double()
    jm = getattr(jtorch.nn, name)(*args, **kwargs).double()
    jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in
                        tm.state_dict().items()})
    return {torch: tm, jtorch: jm}


def _run(mods, shape, seed=0, **fwd):
    data = np.random.default_rng(seed).standard_normal(shape)

    def prog(t):
        m = mods[t]
        x = t.tensor(data, requires_grad=True)
        y = m(x, **fwd)
        y0 = y[0] if isinstance(y, tuple) else y
        w = t.tensor(np.linspace(0.5, 1.5, y0.numel()).reshape(tuple(y0.shape)))
        (y0 * w).sum().backward()
        grads = [p.grad for p in m.parameters()]
        for p in m.parameters():
            p.grad = None
        return y, x.grad, grads

    return prog


CONVS = [
    ("Conv1d", (3, 4, 3), dict(stride=2, padding=1), (2, 3, 7)),
    ("Conv1d", (2, 4, 3), dict(padding="same", padding_mode="circular"), (2, 2, 5)),
    ("Conv2d", (4, 6, (3, 2)), dict(padding="same", padding_mode="reflect", groups=2,
                                   dilation=(1, 2)), (2, 4, 5, 6)),
    ("Conv2d", (3, 2, 3), dict(padding=2, padding_mode="replicate", bias=False), (2, 3, 4, 4)),
    ("ConvTranspose1d", (3, 4, 3), dict(stride=2, output_padding=1), (2, 3, 4)),
    ("ConvTranspose2d", (4, 2, 3), dict(stride=2, padding=1, groups=2, dilation=2),
     (2, 4, 3, 3)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", CONVS, ids=[c[0] for c in CONVS])
def test_conv_layer(name, args, kwargs, shape):
    ok(_run(_twin(name, *args, **kwargs), shape), rtol=1e-6, atol=1e-8)


def test_conv_transpose_output_size():
    mods = _twin("ConvTranspose2d", 2, 1, 3, stride=2, padding=1)
    ok(_run(mods, (1, 2, 6, 6), output_size=(12, 11)), rtol=1e-6, atol=1e-8)
    raises(_run(mods, (1, 2, 6, 6), output_size=(13, 11)))  # out of range: ValueError

    def shapes(t):  # 12x12, kernel 3, stride 2 -> 25x25; with padding 1 -> 23x23
        x = t.ones(1, 1, 12, 12)
        m = t.nn.ConvTranspose2d(1, 1, 3, stride=2, bias=False)
        m1 = t.nn.ConvTranspose2d(1, 1, 3, stride=2, padding=1, bias=False)
        return m(x).shape, m1(x).shape, m1(x, output_size=[1, 1, 24, 24]).shape

    ok(shapes)


@pytest.mark.parametrize("name,args", [("Conv2d", (6, 4, (3, 2))), ("Conv1d", (3, 5, 4)),
                                       ("ConvTranspose2d", (4, 6, 3, 1, 0, 0, 2))])
def test_conv_init_bounds(name, args):
    """kaiming_uniform(a=sqrt(5)) gives |w| <= 1/sqrt(fan_in); the bias shares the bound."""
    jtorch.manual_seed(0)
    m = getattr(jtorch.nn, name)(*args)
    tm = getattr(torch.nn, name)(*args)
    assert m.weight.shape == tm.weight.shape and m.bias.shape == tm.bias.shape
    fan_in = math.prod(tm.weight.shape[1:])
    bound = 1 / math.sqrt(fan_in)
    w, b = np.asarray(m.weight._value), np.asarray(m.bias._value)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.7 * bound
    assert np.abs(b).max() <= bound
    assert len(np.unique(w)) == w.size
    assert m.weight.requires_grad and m.weight.dtype == jtorch.float32


@pytest.mark.parametrize("kwargs", [dict(groups=4), dict(padding="full"),
                                    dict(padding="same", stride=2), dict(padding_mode="edge")])
def test_conv_module_errors(kwargs):
    raises(lambda t: t.nn.Conv2d(6, 4, 3, **kwargs))


def test_conv_transpose_padding_mode_error():
    raises(lambda t: t.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"))


def test_conv_repr():
    def prog(t):
        return [repr(t.nn.Conv3d(2, 4, (1, 2, 1), padding="same", dilation=2, groups=2,
                                 bias=False)),
                repr(t.nn.ConvTranspose1d(2, 4, 1, output_padding=1, stride=2))]

    ok(prog)


def test_torch_namespace_convs():
    def prog(t):
        x = t.ones(1, 2, 4, 4)
        w = t.ones(2, 2, 3, 3)
        return (t.conv2d(x, w, padding=1), t.conv_transpose2d(x, w, stride=2),
                t.conv1d(x[0, :, 0], w[:, :, 0]))

    ok(prog)


# ------------------------------------------------------------------ pooling layers

POOLS = [
    ("MaxPool1d", (3, 2, 1), {}, (2, 3, 7)),
    ("MaxPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 2, 5, 6)),
    ("AvgPool1d", (3,), dict(ceil_mode=True, count_include_pad=False, padding=1), (2, 3, 7)),
    ("AvgPool2d", ((3, 2),), dict(stride=2, padding=1, divisor_override=5), (2, 2, 5, 6)),
    ("AdaptiveAvgPool2d", ((None, 4),), {}, (2, 2, 5, 6)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 7)),
    ("AdaptiveMaxPool2d", ((3, 4),), dict(return_indices=True), (2, 2, 5, 6)),
    ("LPPool2d", (1.5, 2), dict(stride=1), (2, 2, 5, 6)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", POOLS, ids=[p[0] for p in POOLS])
def test_pool_layer(name, args, kwargs, shape):
    ok(_run(_twin(name, *args, **kwargs), shape))


def test_max_pool_gradient_goes_to_first_max_and_indices():
    data = np.array([[[[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 3.0, 3.0], [0.0, 0.0, 1.0, 1.0],
                       [0.0, 0.0, 1.0, 1.0]]]])

    def prog(t):
        x = t.tensor(data, requires_grad=True)
        y, i = t.nn.functional.max_pool2d(x, 2, return_indices=True)
        y.sum().backward()
        y1, i1 = t.nn.functional.max_pool1d(x[0], 3, 1, return_indices=True)
        return y, i, x.grad, y1, i1

    ok(prog)


def test_max_unpool_roundtrip():
    data = np.random.default_rng(1).standard_normal((2, 2, 4, 6))

    def prog(t):
        x = t.tensor(data, requires_grad=True)
        y, i = t.nn.MaxPool2d(2, return_indices=True)(x)
        u = t.nn.MaxUnpool2d(2)(y, i)
        u2 = t.nn.MaxUnpool2d(2)(y, i, output_size=(5, 7))
        (u * 2 + u2.sum()).sum().backward()
        y1, i1 = t.nn.MaxPool1d(2, return_indices=True)(x[0])
        return u, u2, x.grad, t.nn.MaxUnpool1d(2)(y1, i1)

    ok(prog)


@pytest.mark.parametrize("case", ["pad_too_big", "too_small", "bad_unpool_size", "bad_dim"])
def test_pool_errors(case):
    def prog(t):
        F = t.nn.functional
        x = t.ones(1, 1, 4, 4)
        if case == "pad_too_big":
            return F.max_pool2d(x, 2, padding=2)
        if case == "too_small":
            return F.avg_pool2d(x, 5)
        if case == "bad_unpool_size":
            y, i = F.max_pool2d(x, 2, return_indices=True)
            return F.max_unpool2d(y, i, 2, output_size=(9, 9))
        return F.max_pool1d(t.ones(1, 1, 2, 4, 4), 2)

    raises(prog)


def test_pool_float32_and_nan():
    def prog(t):
        x = t.tensor([[[[float("nan"), 1.0], [float("nan"), 2.0]], [[1.0, 5.0], [2.0, 3.0]]]])
        return t.nn.functional.max_pool2d(x, 2, return_indices=True), \
            t.nn.functional.avg_pool2d(x.float(), 1)

    ok(prog)


def test_small_cnn_float32_train_step():
    """Conv -> BatchNorm -> ReLU -> MaxPool -> AdaptiveAvgPool in float32, as a model runs."""
    def build(t):
        t.manual_seed(0)
        return t.nn.Sequential(t.nn.Conv2d(3, 4, 3, padding=1), t.nn.BatchNorm2d(4),
                               t.nn.ReLU(), t.nn.MaxPool2d(2), t.nn.Conv2d(4, 2, 1),
                               t.nn.AdaptiveAvgPool2d(1))

    tm, jm = build(torch), build(jtorch)
    jm.load_state_dict({k: jtorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    mods = {torch: tm, jtorch: jm}
    data = np.random.default_rng(3).standard_normal((2, 3, 6, 6)).astype(np.float32)

    def prog(t):
        m = mods[t]
        x = t.tensor(data, requires_grad=True)
        y = m(x)
        y.sum().backward()
        m.eval()
        return y, x.grad, [p.grad for p in m.parameters()], dict(m.state_dict()), m(x)

    ok(prog, rtol=1e-4, atol=1e-5)


def test_torch_namespace_pool_norm_pad():
    data = np.random.default_rng(6).standard_normal((2, 3, 4, 4))

    def prog(t):
        x = t.tensor(data)
        return (t.max_pool2d(x, 2), t.max_pool1d(x[0], 2, 1), t.max_pool1d_with_indices(x[0], 2),
                t.avg_pool1d(x[0], 3, 1, 1), t.adaptive_avg_pool1d(x[0], 3),
                t.adaptive_max_pool1d(x[0], 3), t.constant_pad_nd(x, [1, 0, 0, 2], 2.0),
                t.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
                t.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False))

    ok(prog)


# The CPU lowering of conv{1,2,3}d with stride 1 sums over kernel taps where a group has
# one input channel (functional/_conv_taps.py); every other case is XLA's convolution.
# The cases go through both, with paddings, dilations and groups that change the windows.
_TAP_CASES = [  # n, batch, C_in, C_out, spatial, kernel, stride, padding, dilation, groups
    (2, 4, 3, 8, (10, 9), (3, 3), 1, 1, 1, 1),
    (2, 4, 1, 8, (10, 10), (3, 3), 1, 0, 1, 1),
    (2, 2, 6, 6, (9, 11), (3, 2), 1, (1, 0), 1, 3),
    (2, 2, 6, 6, (9, 11), (3, 2), 2, (1, 0), 1, 3),  # strided: XLA's
    (2, 2, 4, 8, (12, 12), (3, 3), 1, 2, 2, 4),
    (2, 2, 4, 4, (8, 8), (3, 3), 1, "same", 1, 1),
    (2, 2, 4, 4, (8, 8), (1, 1), 1, 0, 1, 1),
    (1, 3, 5, 7, (20,), (4,), 1, 2, 1, 1),
    (3, 2, 4, 6, (6, 5, 7), (3, 3, 3), 1, 1, 1, 2),
    (2, 2, 2, 4, (7, 7), (5, 6), 1, 0, 1, 2),  # 30 taps: XLA's
    (2, 2, 2, 2, (7, 7), (5, 6), 1, 0, 1, 2),  # one channel a group, 30 taps: XLA's
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", _TAP_CASES, ids=str)
def test_conv_tap_lowering_values_and_grads(case, dtype):
    n, batch, c_in, c_out, sp, k, stride, pad, dil, groups = case
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, c_in) + sp).astype(dtype)
    w = rng.standard_normal((c_out, c_in // groups) + k).astype(dtype)
    b = rng.standard_normal(c_out).astype(dtype)

    def prog(t):
        xt, wt, bt = (t.tensor(a, requires_grad=True) for a in (x, w, b))
        y = getattr(t.nn.functional, f"conv{n}d")(xt, wt, bt, stride, pad, dil, groups)
        (y * y.detach().cos()).sum().backward()
        return y, xt.grad, wt.grad, bt.grad

    ok(prog, rtol=1e-4 if dtype == "float32" else 1e-10, atol=1e-4 if dtype == "float32"
       else 1e-10)


def test_conv_tap_lowering_forward_mode_and_double_backward():
    rng = np.random.default_rng(2)
    x, w, tx, tw = (rng.standard_normal(s) for s in ((2, 3, 6, 6), (4, 3, 3, 3)) * 2)
    x1, w1 = rng.standard_normal((2, 1, 6, 6)), rng.standard_normal((4, 1, 3, 3))

    def prog(t):
        T = t.tensor
        conv = t.nn.functional.conv2d
        jvp = t.func.jvp(lambda a, v: conv(a, v, padding=1), (T(x), T(w)), (T(tx), T(tw)))[1]
        outs = [jvp]
        for xa, wa in ((x, w), (x1, w1)):  # XLA's convolution; the taps
            X, W = T(xa, requires_grad=True), T(wa, requires_grad=True)
            gw, = t.autograd.grad((conv(X, W, padding=1) ** 2).sum(), W, create_graph=True)
            outs.append(t.autograd.grad((gw ** 2).sum(), X)[0])
        return outs

    ok(prog, rtol=1e-9, atol=1e-9)
