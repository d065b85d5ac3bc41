"""Normalization layers against PyTorch: outputs, gradients w.r.t. input and parameters,
running statistics (values, version counters, num_batches_tracked) in train and eval."""

from __future__ import annotations

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
    tm = getattr(torch.nn, name)(*args, **kwargs).double()
    jm = getattr(jtorch.nn, name)(*args, **kwargs).double()
    state = {k: v.detach().numpy() for k, v in tm.state_dict().items()}
    rng = np.random.default_rng(5)
    for k in ("weight", "bias"):  # non-trivial affine parameters, same on both sides
        if k in state:
            state[k] = state[k] + rng.standard_normal(state[k].shape)
    tm.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    jm.load_state_dict({k: jtorch.tensor(v) for k, v in state.items()})
    return {torch: tm, jtorch: jm}


def _steps(mods, shape, modes=("train", "train", "eval")):
    datas = [np.random.default_rng(i).standard_normal(shape) * 2 + 1 for i in range(len(modes))]

    def prog(t):
        m = mods[t]
        out = []
        for data, mode in zip(datas, modes):
            m.train(mode == "train")
            x = t.tensor(data, requires_grad=True)
            y = m(x)
            w = t.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)))
            (y * w).sum().backward()
            out.append((y, x.grad, [p.grad.clone() for p in m.parameters()],
                        [b.clone() for b in m.buffers()]))
            for p in m.parameters():
                p.grad = None
        versions = [b._version for b in m.buffers()]
        return out, versions

    return prog


BATCHNORMS = [
    ("BatchNorm1d", (3,), {}, (4, 3)),
    ("BatchNorm1d", (3,), dict(momentum=None), (2, 3, 4)),
    ("BatchNorm2d", (3,), {}, (2, 3, 3, 2)),
    ("BatchNorm2d", (3,), dict(track_running_stats=False, affine=False, eps=1e-3),
     (2, 3, 3, 2)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", BATCHNORMS,
                         ids=[f"{b[0]}-{i}" for i, b in enumerate(BATCHNORMS)])
def test_batchnorm_layer(name, args, kwargs, shape):
    ok(_steps(_twin(name, *args, **kwargs), shape), rtol=1e-6, atol=1e-8)


def test_batchnorm_initial_state():
    def prog(t):
        m = t.nn.BatchNorm2d(3)
        return dict(m.state_dict()), [n for n, _ in m.named_parameters()], repr(m)

    ok(prog)


# The samples both libraries reject, by test id, and the exception class.
_BATCHNORM_ERRORS = {
    'bad_dim': ValueError, 'bad_dim1d': ValueError, 'one_value': ValueError,
}


@pytest.mark.parametrize("case", ["one_value", "bad_dim", "bad_dim1d", "eval_ok"])
def test_batchnorm_errors(case, request):
    def prog(t):
        if case == "one_value":
            return t.nn.BatchNorm1d(3)(t.ones(1, 3))
        if case == "bad_dim":
            return t.nn.BatchNorm2d(3)(t.ones(2, 3))
        if case == "bad_dim1d":
            return t.nn.BatchNorm1d(3)(t.ones(2, 3, 2, 2))
        return t.nn.BatchNorm1d(3).eval()(t.ones(1, 3))

    check(prog, raises=_BATCHNORM_ERRORS.get(request.node.callspec.id))


def test_functional_batch_norm_running_stats_in_place():
    """F.batch_norm updates the buffers in place (aliases see it) without version bumps."""
    data = np.random.default_rng(0).standard_normal((4, 3, 2))

    def prog(t):
        rm, rv = t.zeros(3, dtype=t.float64), t.ones(3, dtype=t.float64)
        alias = rm.view(3)
        y = t.nn.functional.batch_norm(t.tensor(data), rm, rv, training=True, momentum=0.2)
        return y, rm, rv, alias, rm._version, rv._version

    ok(prog)


INSTANCE = [
    ("InstanceNorm1d", (3,), dict(affine=True), (2, 3, 4)),
    ("InstanceNorm2d", (3,), dict(track_running_stats=True), (2, 3, 2, 3)),
    ("InstanceNorm2d", (3,), dict(affine=True, track_running_stats=True), (3, 2, 3)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", INSTANCE,
                         ids=[f"{b[0]}-{i}" for i, b in enumerate(INSTANCE)])
def test_instancenorm_layer(name, args, kwargs, shape):
    ok(_steps(_twin(name, *args, **kwargs), shape), rtol=1e-6, atol=1e-8)


def test_instancenorm_errors():
    raises(lambda t: t.nn.InstanceNorm1d(3)(t.ones(2, 3, 1)))
    raises(lambda t: t.nn.InstanceNorm1d(3, affine=True)(t.ones(2, 4, 3)))
    raises(lambda t: t.nn.InstanceNorm2d(3)(t.ones(2, 3)))


OTHERS = [
    ("LayerNorm", ((3, 2),), {}, (2, 4, 3, 2)),
    ("LayerNorm", (2,), dict(bias=False), (3, 2)),
    ("LayerNorm", (2,), dict(elementwise_affine=False), (3, 2)),
    ("GroupNorm", (2, 4), {}, (2, 4, 3)),
    ("RMSNorm", ((3,),), {}, (2, 4, 3)),
    ("LocalResponseNorm", (3,), {}, (2, 5, 3)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", OTHERS,
                         ids=[f"{b[0]}-{i}" for i, b in enumerate(OTHERS)])
def test_norm_layer(name, args, kwargs, shape):
    ok(_steps(_twin(name, *args, **kwargs), shape, ("train",)), rtol=1e-6, atol=1e-8)


def test_norm_reprs_and_errors():
    ok(lambda t: [repr(t.nn.LayerNorm([2, 3])), repr(t.nn.GroupNorm(2, 4, affine=False)),
                     repr(t.nn.RMSNorm(3, 1e-3)), repr(t.nn.LocalResponseNorm(2)),
                     repr(t.nn.InstanceNorm2d(3, affine=True))])
    raises(lambda t: t.nn.GroupNorm(3, 4))
    raises(lambda t: t.nn.LayerNorm(3)(t.ones(2, 4)))


def test_layer_norm_float32():
    data = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    ok(lambda t: (t.nn.functional.layer_norm(t.tensor(data), (5,)),
                     t.nn.functional.rms_norm(t.tensor(data), (5,)),
                     t.layer_norm(t.tensor(data), [5]), t.group_norm(t.tensor(data), 1)))


def test_sync_batchnorm_without_process_group():
    def prog(t):
        net = t.nn.Sequential(t.nn.Conv2d(1, 2, 1), t.nn.BatchNorm2d(2))
        with t.no_grad():
            net[0].weight.copy_(t.tensor([0.5, -2.0]).reshape(2, 1, 1, 1))
            net[0].bias.fill_(0.1)
        sync = t.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        x = t.arange(16.0).reshape(2, 1, 2, 4)
        out = sync(x)
        out.sum().backward()
        return (repr(sync), type(sync[1]).__name__, out, sync[1].running_mean,
                sync[1].weight.grad, sorted(sync.state_dict()), sync.eval()(x))

    check(prog)
    check(lambda t: t.nn.SyncBatchNorm(2)(t.ones(2)), raises=ValueError)
