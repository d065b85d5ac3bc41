"""Adafactor, SparseAdam and swa_utils against PyTorch: parameters and state_dict (layout
included) after several steps from identical starts, averaged models, SWALR's schedule,
update_bn, and the errors PyTorch raises."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import check
from test_optim import B0, TOL, W0, params, train

RNG = np.random.default_rng(11)
TABLE = RNG.standard_normal((5, 3))
X4 = RNG.standard_normal((4, 3))
Y4 = RNG.standard_normal((4, 2))
SPARSE_STEPS = [  # (rows, values) of three sparse gradients, one with a repeated row
    (np.array([0, 3]), RNG.standard_normal((2, 3))),
    (np.array([1, 3, 1]), RNG.standard_normal((3, 3))),
    (np.array([4]), RNG.standard_normal((1, 3))),
]


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.05, weight_decay=0.1, maximize=True),
                                dict(eps=(1e-4, 1e-2), d=1.5, beta2_decay=-0.5)],
                         ids=["default", "decay-maximize", "eps-d"])
def test_adafactor_steps_and_state_dict(kw):
    def program(tm):
        w, b = params(tm)
        opt = tm.optim.Adafactor([w, b], **kw)
        train(tm, opt, w, b, 6)
        return w, b, opt.state_dict()

    check(program, **TOL)


def test_adafactor_batched_matrix_and_float64():
    """A 3-d parameter factors over its last two dims (row_var (2,3,1), col_var (2,1,4))."""
    w0 = RNG.standard_normal((2, 3, 4))

    def program(tm):
        w = tm.tensor(w0, requires_grad=True)
        opt = tm.optim.Adafactor([w], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (w.sin() * w).sum().backward()
            opt.step()
        return w, opt.state_dict()

    check(program)


@pytest.mark.parametrize("bad", [dict(lr=-1.0), dict(beta2_decay=0.5), dict(eps=(-1, 1e-3)),
                                 dict(d=0.5), dict(weight_decay=-0.1)])
def test_adafactor_errors(bad):
    check(lambda tm: tm.optim.Adafactor(params(tm), **bad), raises=ValueError)


def _sparse_grad(tm, rows, values):
    return tm.sparse_coo_tensor(tm.tensor(rows[None]), tm.tensor(values, dtype=tm.float32),
                                (5, 3))


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.1, betas=(0.8, 0.9), eps=1e-4,
                                             maximize=True)], ids=["default", "options"])
def test_sparse_adam_steps_and_state_dict(kw):
    def program(tm):
        table = tm.tensor(TABLE, dtype=tm.float32, requires_grad=True)
        opt = tm.optim.SparseAdam([table], **kw)
        for rows, values in SPARSE_STEPS:
            table.grad = _sparse_grad(tm, rows, values)
            opt.step()
        return table, opt.state_dict()

    check(program, **TOL)


@pytest.mark.parametrize("bad", ["dense_grad", "lr", "eps", "complex"])
def test_sparse_adam_errors(bad):
    def program(tm):
        if bad == "lr":
            return tm.optim.SparseAdam(params(tm), lr=0.0)
        if bad == "eps":
            return tm.optim.SparseAdam(params(tm), eps=0.0)
        if bad == "complex":
            return tm.optim.SparseAdam([tm.zeros(2, dtype=tm.complex64, requires_grad=True)])
        w, b = params(tm)
        opt = tm.optim.SparseAdam([w, b])
        train(tm, opt, w, b, 1)

    check(program, raises=RuntimeError if bad == "dense_grad" else ValueError)


# ------------------------------------------------------------------ swa_utils


def _averaged(tm, kind):
    swa = tm.optim.swa_utils
    if kind == "swa":
        return {}
    if kind == "ema":
        return dict(multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    if kind == "ema_fn":
        return dict(avg_fn=swa.get_ema_avg_fn(0.8), use_buffers=True)
    # the SWA running mean over integer buffers (BatchNorm's num_batches_tracked) hits
    # addcdiv's integer division, which PyTorch refuses: only "swa_multi_buffers" averages them
    return dict(multi_avg_fn=swa.get_swa_multi_avg_fn(), use_buffers=kind == "swa_multi_buffers")


@pytest.mark.parametrize("kind", ["swa", "ema", "ema_fn", "swa_multi", "swa_multi_buffers"])
def test_averaged_model_matches_torch(kind):
    """Train a Linear+BatchNorm model, averaging after every step; the averaged copy's
    parameters, buffers (n_averaged, running stats) and outputs match PyTorch's."""

    def program(tm):
        tm.manual_seed(0)
        model = tm.nn.Sequential(tm.nn.Linear(3, 2), tm.nn.BatchNorm1d(2)).double()
        with tm.no_grad():
            for p, v in zip(model.parameters(), (W0.T, B0, np.ones(2), np.zeros(2))):
                p.copy_(tm.tensor(v))
        avg = tm.optim.swa_utils.AveragedModel(model, **_averaged(tm, kind))
        opt = tm.optim.SGD(model.parameters(), lr=0.1)
        x, y = tm.tensor(X4), tm.tensor(Y4)
        for _ in range(4):
            opt.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            opt.step()
            avg.update_parameters(model)
        return dict(avg.state_dict()), avg(x)

    check(program, raises=RuntimeError if kind == "swa_multi_buffers" else None)


def test_update_bn_matches_torch():
    def program(tm):
        model = tm.nn.Sequential(tm.nn.Linear(3, 2), tm.nn.BatchNorm1d(2, momentum=0.3))
        model.double().eval()
        with tm.no_grad():
            model[0].weight.copy_(tm.tensor(W0.T))
            model[0].bias.copy_(tm.tensor(B0))
        loader = [(tm.tensor(X4[:2]), 0), (tm.tensor(X4[2:]), 1)]
        tm.optim.swa_utils.update_bn(loader, model)
        return dict(model.state_dict()), model.training, model[1].momentum

    check(program)


@pytest.mark.parametrize("kw", [dict(swa_lr=0.05), dict(swa_lr=[0.01], anneal_epochs=3,
                                                         anneal_strategy="linear"),
                                dict(swa_lr=0.02, anneal_epochs=0)])
def test_swalr_schedule_matches_torch(kw):
    def program(tm):
        w, b = params(tm)
        opt = tm.optim.SGD([w, b], lr=0.5)
        sched = tm.optim.swa_utils.SWALR(opt, **kw)
        lrs = []
        for _ in range(6):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        state = sched.state_dict()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lrs, {k: v for k, v in state.items() if not k.startswith("_get_lr")}

    check(program)


@pytest.mark.parametrize("bad", [dict(swa_lr=0.1, anneal_strategy="exp"),
                                 dict(swa_lr=0.1, anneal_epochs=-1), dict(swa_lr=[0.1, 0.2])])
def test_swalr_errors(bad):
    check(lambda tm: tm.optim.swa_utils.SWALR(tm.optim.SGD(params(tm), lr=0.1), **bad),
          raises=ValueError)


def test_ema_decay_error():
    check(lambda tm: tm.optim.swa_utils.get_ema_multi_avg_fn(1.5), raises=ValueError)

