"""The torch-namespace (ATen) forms of nn functions against PyTorch: integer reductions,
convolution, grid_sampler and the native_* kernels with their saved statistics."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check


def _t(t, shape, seed=0, dtype="float64", grad=False):
    data = np.random.default_rng(seed).standard_normal(shape)
    return t.tensor(data, dtype=getattr(t, dtype), requires_grad=grad)


LOSSES = {
    "bce_logits": lambda t, r: t.binary_cross_entropy_with_logits(
        _t(t, (3, 4), grad=True), _t(t, (3, 4), 1).sigmoid(), None, _t(t, (4,), 2).abs(), r),
    "cosine_embedding": lambda t, r: t.cosine_embedding_loss(
        _t(t, (3, 4), grad=True), _t(t, (3, 4), 1), t.tensor([1.0, -1.0, 1.0],
                                                             dtype=t.float64), 0.1, r),
    "hinge_embedding": lambda t, r: t.hinge_embedding_loss(
        _t(t, (3, 4), grad=True), t.tensor([[1.0, -1.0, 1.0, -1.0]] * 3, dtype=t.float64), 0.5,
        r),
    "kl_div": lambda t, r: t.kl_div(_t(t, (3, 4), grad=True).log_softmax(1),
                                    _t(t, (3, 4), 1).softmax(1), r),
    "kl_div_log_target": lambda t, r: t.kl_div(_t(t, (3, 4), grad=True).log_softmax(1),
                                               _t(t, (3, 4), 1).log_softmax(1), r,
                                               log_target=True),
    "margin_ranking": lambda t, r: t.margin_ranking_loss(
        _t(t, (4,), grad=True), _t(t, (4,), 1), t.tensor([1.0, -1.0, 1.0, 1.0],
                                                         dtype=t.float64), 0.2, r),
    "poisson_nll": lambda t, r: t.poisson_nll_loss(_t(t, (3, 4), grad=True),
                                                   _t(t, (3, 4), 1).abs(), True, False, 1e-8, r),
    "poisson_nll_full": lambda t, r: t.poisson_nll_loss(
        _t(t, (3, 4), grad=True).abs() + 0.1, _t(t, (3, 4), 1).abs() * 3, False, True, 1e-8, r),
    "triplet_margin": lambda t, r: t.triplet_margin_loss(
        _t(t, (3, 4), grad=True), _t(t, (3, 4), 1), _t(t, (3, 4), 2), 1.0, 2, 1e-6, True, r),
    "ctc": lambda t, r: t.ctc_loss(_t(t, (6, 2, 4), grad=True).log_softmax(2),
                                   t.tensor([[1, 2, 1], [3, 1, 0]]), [6, 5], [3, 2], 0, r),
}


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("name", LOSSES)
def test_losses(name, reduction):
    def prog(t):
        loss = LOSSES[name](t, reduction)
        loss.sum().backward()
        return loss

    check(prog, rtol=1e-6)


def test_bad_reduction():
    check(lambda t: t.kl_div(t.zeros(2), t.zeros(2), 3))


@pytest.mark.parametrize("case", ["conv1d", "conv2d-stride", "conv2d-groups", "conv3d",
                                  "transposed2d"])
def test_convolution(case):
    def prog(t):
        if case == "conv1d":
            args = (_t(t, (2, 3, 8)), _t(t, (4, 3, 3), 1), _t(t, (4,), 2), [1], [1], [1], False,
                    [0], 1)
        elif case == "conv2d-stride":
            args = (_t(t, (1, 2, 6, 6)), _t(t, (3, 2, 3, 3), 1), None, [2, 1], [1, 0], [1, 2],
                    False, [0, 0], 1)
        elif case == "conv2d-groups":
            args = (_t(t, (1, 4, 5, 5)), _t(t, (4, 2, 3, 3), 1), None, [1, 1], [1, 1], [1, 1],
                    False, [0, 0], 2)
        elif case == "conv3d":
            args = (_t(t, (1, 2, 4, 4, 4)), _t(t, (2, 2, 2, 2, 2), 1), None, [1, 1, 1],
                    [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 1)
        else:
            args = (_t(t, (1, 2, 4, 4)), _t(t, (2, 3, 3, 3), 1), _t(t, (3,), 2), [2, 2], [1, 1],
                    [1, 1], True, [1, 1], 1)
        return t.convolution(*args)

    check(prog)


@pytest.mark.parametrize("name", ["grid_sampler", "grid_sampler_2d"])
@pytest.mark.parametrize("modes", [(0, 0, False), (1, 1, True), (2, 2, False)])
def test_grid_sampler(name, modes):
    def prog(t):
        grid = _t(t, (1, 3, 3, 2), 1).tanh()
        return getattr(t, name)(_t(t, (1, 2, 4, 4)), grid, *modes)

    check(prog)


def test_grid_sampler_3d_and_dim_check():
    check(lambda t: t.grid_sampler_3d(_t(t, (1, 1, 3, 3, 3)), _t(t, (1, 2, 2, 2, 3), 1).tanh(),
                                      0, 0, True))
    check(lambda t: t.grid_sampler_3d(_t(t, (1, 2, 4, 4)), _t(t, (1, 3, 3, 2), 1), 0, 0, True),
          raises=RuntimeError)


def test_native_channel_shuffle():
    check(lambda t: t.native_channel_shuffle(t.arange(24.0).reshape(1, 6, 2, 2), 3))


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm(training):
    def prog(t):
        x = _t(t, (2, 3, 4), grad=True)
        rm, rv = t.zeros(3, dtype=t.float64), t.ones(3, dtype=t.float64)
        out, mean, invstd = t.native_batch_norm(x, _t(t, (3,), 1), _t(t, (3,), 2), rm, rv,
                                                training, 0.1, 1e-5)
        out.sum().backward()
        return out, mean, invstd, rm, rv, x.grad

    check(prog)


def test_native_layer_and_group_norm():
    def prog(t):
        x = _t(t, (2, 3, 4), grad=True)
        ln = t.native_layer_norm(x, [3, 4], _t(t, (3, 4), 1), None, 1e-5)
        gn = t.native_group_norm(x, _t(t, (3,), 2), _t(t, (3,), 3), 2, 3, 4, 1, 1e-5)
        (ln[0].sum() + gn[0].sum()).backward()
        return ln, gn, x.grad

    check(prog)


def test_native_dropout():
    def prog(t):
        x = t.ones(1000)
        out, mask = t.native_dropout(x, 0.3, True)
        kept = float(mask.float().mean())
        plain, everything = t.native_dropout(x, 0.3, False)
        return (mask.dtype, out[mask].unique(), out[~mask].unique(), abs(kept - 0.7) < 0.06,
                plain, everything)

    check(prog)


def _params(t, mode, layers, dirs, inp=3, hid=4, bias=True):
    gates = {"lstm": 4, "gru": 3}.get(mode, 1)
    out, k = [], 10
    for layer in range(layers):
        for _ in range(dirs):
            size = inp if layer == 0 else hid * dirs
            out += [_t(t, (gates * hid, size), k), _t(t, (gates * hid, hid), k + 1)]
            out += [_t(t, (gates * hid,), k + 2), _t(t, (gates * hid,), k + 3)] if bias else []
            k += 4
    return out


@pytest.mark.parametrize("mode,layers,dirs,bias,batch_first", [
    ("lstm", 1, 1, True, False), ("gru", 1, 1, True, False), ("rnn_tanh", 1, 1, True, False),
    ("rnn_relu", 1, 1, True, False), ("lstm", 2, 2, False, True),
])
def test_rnn_kernels(mode, layers, dirs, bias, batch_first):
    def prog(t):
        x = _t(t, (2, 5, 3) if batch_first else (5, 2, 3), 1, grad=True)
        h = _t(t, (layers * dirs, 2, 4), 2)
        hx = [h, _t(t, (layers * dirs, 2, 4), 3)] if mode == "lstm" else h
        out = getattr(t, mode)(x, hx, _params(t, mode, layers, dirs, bias=bias), bias, layers,
                               0.0, False, dirs == 2, batch_first)
        out[0].sum().backward()
        return out, x.grad

    check(prog)


@pytest.mark.parametrize("mode", ["lstm"])
def test_rnn_kernels_packed(mode):
    def prog(t):
        data = _t(t, (7, 3), 1)
        batch_sizes = t.tensor([3, 2, 1, 1])
        h = _t(t, (1, 3, 4), 2)
        hx = [h, _t(t, (1, 3, 4), 3)] if mode == "lstm" else h
        return getattr(t, mode)(data, batch_sizes, hx, _params(t, mode, 1, 1), True, 1, 0.0,
                                False, False)

    check(prog)


def test_rnn_kernel_dropout_between_layers():
    def prog(t):
        x, h = _t(t, (5, 2, 3), 1), _t(t, (2, 2, 4), 2)
        out, hn = t.gru(x, h, _params(t, "gru", 2, 1), True, 2, 1.0, True, False, False)
        return out.shape, hn.shape, hn[1].abs().sum() > 0

    check(prog)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("extra", ["plain", "last-offset", "padding", "weights", "float32"])
def test_embedding_bag(mode, extra):
    def prog(t):
        dtype = t.float32 if extra == "float32" else t.float64
        w = t.arange(12.0, dtype=dtype).view(6, 2).requires_grad_()
        idx = t.tensor([0, 2, 4, 5, 1])
        off = t.tensor([0, 2, 5]) if extra == "last-offset" else t.tensor([0, 2, 2])
        psw = t.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=t.float64) if extra == "weights" else None
        r = t.embedding_bag(w, idx, off, False, mode, False, psw, extra == "last-offset",
                            2 if extra == "padding" else None)
        r[0].sum().backward()
        return r, w.grad

    # per_sample_weights only with mode 0 (sum)
    check(prog, raises=RuntimeError if extra == "weights" and mode != 0 else None)
