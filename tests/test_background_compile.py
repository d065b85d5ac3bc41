"""Compiling ahead of need on a background thread (``_kernels.ahead``): a node's backward
kernel is queued when its forward meets new types, an optimizer's first step when it is
built, a fused backward when its graph qualifies. The main thread then traces nothing for
them, and results are the same as PyTorch's."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
import torch
from conftest import assert_same

import jtorch
from jtorch import _kernels
from jtorch.eager.autograd import fused


def _traced_by(fn) -> int:
    """How many JAX traces the calling thread makes while ``fn`` runs."""
    before = _kernels.TRACES[0]
    fn()
    return _kernels.TRACES[0] - before


def _forward(t, n):
    """Each value used once, so the backward only runs nodes (no gradient sums)."""
    rng = np.random.default_rng(n)
    w = t.tensor(rng.standard_normal((3, n)), requires_grad=True)
    x = t.tensor(rng.standard_normal((3, n)), requires_grad=True)
    v = t.tensor(rng.standard_normal((2, n)))
    return w, x, (t.sin(w * x) @ v.T).exp().sum()


@pytest.mark.parametrize("ahead", [True, False])
def test_backward_kernels_compile_while_the_forward_runs(ahead, monkeypatch):
    monkeypatch.setattr(_kernels, "BACKGROUND", ahead)
    _kernels.wait_ahead()
    n = 23 if ahead else 29  # shapes no other test uses: the kernels are new here
    w, x, loss = _forward(jtorch, n)
    _kernels.wait_ahead()
    traced = _traced_by(loss.backward)
    # Ahead: every backward kernel is ready, so the backward traces nothing itself.
    assert (traced == 0) if ahead else (traced > 0)
    tw, tx, tloss = _forward(torch, n)
    tloss.backward()
    assert_same((tloss, tw.grad, tx.grad), (loss, w.grad, x.grad), rtol=1e-12, atol=1e-12)


def test_a_backward_that_comes_before_its_compile_waits_for_it(background):
    for n in (31, 37):
        w, x, loss = _forward(jtorch, n)
        loss.backward()  # at once: the main thread meets the queued compiles in flight
        tw, tx, tloss = _forward(torch, n)
        tloss.backward()
        assert_same((tw.grad, tx.grad), (w.grad, x.grad), rtol=1e-12, atol=1e-12)


def _model(t, width):
    m = t.nn.Sequential(t.nn.Linear(5, width), t.nn.Tanh(), t.nn.Linear(width, 2))
    rng = np.random.default_rng(width)
    with t.no_grad():
        for p in m.parameters():
            p.copy_(t.tensor(rng.standard_normal(tuple(p.shape)) * 0.3, dtype=p.dtype))
    return m


def test_an_optimizers_first_step_compiles_when_it_is_built(background):
    m = _model(jtorch, 41)
    opt = jtorch.optim.Adam(m.parameters(), lr=1e-2, weight_decay=0.1)
    x = jtorch.randn(6, 5)
    m(x).square().mean().backward()
    _kernels.wait_ahead()
    assert _traced_by(opt.step) == 0
    # a second step (state from the first) needs nothing new either
    opt.zero_grad()
    m(x).square().mean().backward()
    assert _traced_by(opt.step) == 0


def test_an_optimizer_with_frozen_and_unused_parameters_still_steps(background):
    def run(t):
        m = _model(t, 43)
        m[0].weight.requires_grad_(False)
        extra = t.nn.Parameter(t.ones(3))  # never gets a gradient: the step skips it
        opt = t.optim.SGD([*m.parameters(), extra], lr=0.1, momentum=0.9)
        x = t.linspace(-1, 1, 30).reshape(6, 5)
        for _ in range(2):
            opt.zero_grad()
            m(x).square().mean().backward()
            opt.step()
        return [p.detach() for p in m.parameters()]

    assert_same(run(torch), run(jtorch), rtol=1e-6, atol=1e-7)


def _pending() -> int:
    """Fused programs whose background compile the graph is still walking around."""
    return sum(1 for e in fused._SEEN.values() if type(e) is list and e[3] is not None)


def test_a_fused_backward_walks_while_its_program_compiles(background, monkeypatch):
    """Queued at the AFTER-th sighting (2), walked until the AFTER + AFTER // 2-th (3),
    which runs the program (see ``lazy._left``)."""
    fused._SEEN.clear()
    fused._PROGRAMS.clear()
    monkeypatch.setattr(fused, "AFTER", 2)

    def steps(t, wait):
        m = _model(t, 47)
        opt = t.optim.SGD(m.parameters(), lr=0.1)
        x = t.linspace(-1, 1, 30).reshape(6, 5)
        losses = []
        for i in range(4):
            opt.zero_grad()
            loss = m(x).tanh().square().mean()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
            if wait and i == 1:
                # The second sighting queued the program; this step walked the graph.
                assert _pending() == 1
                _kernels.wait_ahead()
        return losses, [p.detach() for p in m.parameters()]

    expected = steps(torch, False)
    assert_same(expected, steps(jtorch, True), rtol=1e-6, atol=1e-7)
    assert _pending() == 0  # the third step ran the program
    ((program, _, _),) = fused._PROGRAMS.values()  # (program, its recorded forms, order)
    assert program._cache_size() == 1
    fused._SEEN.clear()
    fused._PROGRAMS.clear()


def test_the_queue_runs_newest_first_once_per_signature_and_drops_errors():
    ahead = _kernels._Ahead()
    gate, ran = threading.Event(), []

    def job(name):
        def run():
            if name == "bad":
                raise ValueError("dropped: the kernel's own call reports it")
            ran.append(name)
        return run

    started = threading.Event()
    first = ahead.submit("first", lambda: (started.set(), gate.wait(), ran.append("first")))
    assert started.wait(10)  # the thread took it and waits
    events = [ahead.submit(n, job(n)) for n in ("a", "bad", "b")]
    assert ahead.submit("a", job("again")) is events[0]  # one compile per signature
    gate.set()
    for e in (first, *events):
        assert e.wait(10)
    assert ran == ["first", "b", "a"]  # newest first: a backward needs its last op first
    ran.clear()
    gate3, started3 = threading.Event(), threading.Event()
    ahead.submit("busy3", lambda: (started3.set(), gate3.wait()))
    assert started3.wait(10)
    late = [ahead.submit(n, job(n), later=True) for n in ("late1", "late2")]
    soon = ahead.submit("soon", job("soon"))
    gate3.set()
    for e in (*late, soon):
        assert e.wait(10)
    assert ran == ["soon", "late2", "late1"]  # a later job only when no other waits
    gate2, started2 = threading.Event(), threading.Event()
    busy = ahead.submit("busy", lambda: (started2.set(), gate2.wait()))
    assert started2.wait(10)
    dropped = ahead.submit("later", job("later"))
    threading.Timer(0.2, gate2.set).start()
    ahead.close()  # waits for the job in progress, drops the queued one
    assert busy.is_set() and dropped.is_set() and "later" not in ran
    assert ahead.submit("after", job("after")).is_set()  # closed: nothing queues


def _conv_grads(t, x, w, **kw):
    xt, wt = (t.tensor(a, requires_grad=True) for a in (x, w))
    t.nn.functional.conv2d(xt, wt, **kw).square().sum().backward()
    return [a.grad.detach() for a in (xt, wt)]


@pytest.mark.parametrize("kw", [{"padding": 1}, {"stride": 2}, {"dilation": 2},
                                {"groups": 2, "padding": 1}])
def test_a_convolution_gradient_moves_to_full_optimisation_bit_for_bit(background, kw,
                                                                      monkeypatch):
    """A convolution's gradient kernel starts at LLVM level 1 (compiled several times
    faster), queues the default level's compile at its ``TIER_AFTER``-th call and moves to
    it ``TIER_AFTER // 2`` calls later (``_kernels.jit(tiered=True)``); both give
    PyTorch's values (the levels may differ in the last bit: a bias gradient's sum)."""
    monkeypatch.setattr(_kernels, "TIER_AFTER", 1)  # queued at the first call, moved at the second
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 9, 9)).astype(np.float32)
    w = rng.standard_normal((6, 4 // kw.get("groups", 1), 3, 3)).astype(np.float32)
    first = _conv_grads(jtorch, x, w, **kw)
    node_kernels = [k for key, k in jtorch.eager.dispatch._BWD.items()
                    if key[0][0] == "conv2d" and key[0][3][2] == kw.get("dilation", 1)]
    assert node_kernels
    before = [k.jitted() for k in node_kernels]
    second = _conv_grads(jtorch, x, w, **kw)  # takes the full level on this call
    assert [k.jitted() for k in node_kernels] != before
    expected = _conv_grads(torch, x, w, **kw)
    assert_same(expected, first, rtol=1e-4, atol=1e-4)
    assert_same(expected, second, rtol=1e-4, atol=1e-4)


def test_a_tiered_kernel_without_the_thread_is_full_from_the_start(monkeypatch):
    monkeypatch.setattr(_kernels, "BACKGROUND", False)
    seen = []
    real = _kernels.jax.jit

    def spy(fn, **kw):
        seen.append(kw.get("compiler_options"))
        return real(fn, **kw)

    monkeypatch.setattr(_kernels.jax, "jit", spy)
    k = _kernels.jit(lambda a: a * 2, full_opt=True, tiered=True)
    np.testing.assert_array_equal(np.asarray(k(np.ones(3, np.float32))), np.full(3, 2.0))
    if _kernels.options():  # the CPU: its top-level jit without the level-1 option
        assert "xla_backend_optimization_level" not in seen[-1]
    assert _kernels.tiered(("conv2d",)) and not _kernels.tiered(("conv_transpose2d",))
    monkeypatch.setattr(_kernels, "BACKGROUND", True)
    monkeypatch.setattr(_kernels, "TIER_AFTER", 4)
    late = _kernels.jit(lambda a: a * 3, full_opt=True, tiered=True)
    x = np.ones(3, np.float32)
    late(x)
    low = late.jitted()
    for _ in range(4):  # calls 2-5 at level 1 (the 4th queues the full level's compile)
        late(x)
        assert late.jitted() is low
    late(x)  # the 6th (4 + 4 // 2) waits for that compile and takes it
    if _kernels.options():
        assert late.jitted() is not low


def test_a_tiered_kernel_moves_inside_a_users_jax_jit(background, monkeypatch):
    """Calls with traced operands count too: the full level's compile is queued for
    their types (a tracer has no value to compile for)."""
    monkeypatch.setattr(_kernels, "TIER_AFTER", 2)
    k = _kernels.jit(lambda a: a * 2, full_opt=True, tiered=True)

    @_kernels.jax.jit
    def five(x):
        for _ in range(5):  # queued at the 2nd call, taken at the 3rd
            x = k(x)
        return x

    np.testing.assert_array_equal(np.asarray(five(np.ones(3, np.float32))), np.full(3, 32.0))
    np.testing.assert_array_equal(np.asarray(k(np.ones(3, np.float32))), np.full(3, 2.0))


@pytest.mark.parametrize("flag, expected", [("0", False), ("1", True)])
def test_the_environment_switch(flag, expected):
    env = {**os.environ, "JTORCH_BACKGROUND_COMPILE": flag}
    out = subprocess.run(
        [sys.executable, "-c", "from jtorch import _kernels; print(_kernels.BACKGROUND)"],
        env=env, capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == str(expected)


def test_a_shuffling_loader_compiles_its_first_epoch_when_built(monkeypatch):
    """Its base seed (an int64 ``random_``), its sampler's seed and generator key and
    ``randperm(n)`` compile when the loader is built; the batches are the same."""
    def epoch(ahead, n):
        monkeypatch.setattr(_kernels, "BACKGROUND", ahead)
        jtorch.manual_seed(0)
        data = jtorch.utils.data.TensorDataset(jtorch.arange(n))
        loader = jtorch.utils.data.DataLoader(data, batch_size=4, shuffle=True)
        _kernels.wait_ahead()
        before = _kernels.TRACES[0]
        order = [i for (batch,) in loader for i in batch.tolist()]
        return order, _kernels.TRACES[0] - before

    order, traced = epoch(True, 53)
    assert traced == 0  # every program of the epoch was ready
    assert sorted(order) == list(range(53))
    assert epoch(False, 53) == (order, 0)  # the same permutation without compiling ahead
    assert epoch(False, 59)[1] > 0  # randperm(59) was not compiled ahead: a trace



def _sums(t, n, dtype, traces=None):
    """Gradient sums on a first backward: ``y`` used twice, then a leaf ``v`` accumulated.
    ``traces`` (jtorch) collects the JAX traces each backward makes on this thread, once
    its nodes' own kernels are compiled (``wait_ahead``): the sums' adds are new."""
    rng = np.random.default_rng(n)
    dt = getattr(t, dtype)
    w = t.tensor(rng.standard_normal((2, n)), dtype=dt, requires_grad=True)
    v = t.tensor(rng.standard_normal((3, n)), dtype=dt, requires_grad=True)
    x = t.tensor(rng.standard_normal((2, n)), dtype=dt)
    (v * 2).sum().backward()  # v's first gradient: stored, not added
    losses = [((w * x).sin() + (w * x).cos()).sum(), (v * 3).sum()]
    for loss in losses:
        if traces is None:
            loss.backward()
        else:
            _kernels.wait_ahead()
            traces.append(_traced_by(loss.backward))
    return w.grad, v.grad


@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_gradient_sums_of_a_new_shape_wait_for_no_compile(background, dtype):
    """While the add program of a new gradient shape compiles on the background thread,
    the sums are NumPy's (no trace on the main thread); afterwards the program's. Both
    give PyTorch's gradients."""
    n = 37 if dtype == "float64" else 41  # shapes no other test sums
    traces: list = []
    expected = _sums(torch, n, dtype)
    assert_same(expected, _sums(jtorch, n, dtype, traces), rtol=0, atol=0)
    assert traces == [0, 0]
    _kernels.wait_ahead()
    assert_same(expected, _sums(jtorch, n, dtype), rtol=0, atol=0)  # the programs now
    assert _kernels._READY[("add", (2, n), np.dtype(dtype))] is True
    assert _kernels._READY[("add", (3, n), np.dtype(dtype))] is True


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_numpy_and_xla_add_gradients_alike(dtype):
    from jtorch import _dtypes
    from jtorch.eager.autograd import engine

    np_dtype = getattr(_dtypes, dtype).np
    rng = np.random.default_rng(0)
    a, b = (_kernels.device_array(rng.standard_normal(10_000).astype(np_dtype) * 1e3)
            for _ in range(2))
    host = np.add(np.asarray(a), np.asarray(b))
    assert np.array_equal(host.view(np.uint8), np.asarray(engine._add(a, b)).view(np.uint8))


def _many_uses(t, dtype, steps=19):
    """One weight used ``steps`` times (an RNN cell stepped through time): its node's input
    gets ``steps`` gradients, the hidden state's two per step."""
    rng = np.random.default_rng(steps)
    dt = getattr(t, dtype)
    w = t.tensor(rng.standard_normal((4, 4)) * 0.5, dtype=dt, requires_grad=True)
    h = t.tensor(rng.standard_normal((3, 4)), dtype=dt, requires_grad=True)
    total = 0
    for _ in range(steps):
        h = (h @ w).tanh() + h * 0.5
        total = total + h.sum()
    total.backward()
    return w.grad


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("bg", [True, False])
def test_many_gradients_of_one_input_sum_in_order(dtype, bg, monkeypatch):
    """A weight's 19 gradients are summed 8 at a time (one program each, NumPy's while it
    compiles): the same bits as summing them one by one, and PyTorch's values."""
    from jtorch.eager.autograd import engine

    monkeypatch.setattr(_kernels, "BACKGROUND", bg)
    _kernels.wait_ahead()
    calls = []
    parts = engine._add_parts

    def counted(*xs):
        calls.append(len(xs))
        return parts(*xs)

    counted.compile_ahead = parts.compile_ahead
    monkeypatch.setattr(engine, "_add_parts", counted)
    batched = _many_uses(jtorch, dtype)
    monkeypatch.setattr(engine, "_PARTS", 10**9)  # one add per gradient, as before
    one_by_one = _many_uses(jtorch, dtype)
    assert np.array_equal(batched.numpy().view(np.uint8), one_by_one.numpy().view(np.uint8))
    tol = {"float16": 1e-2, "float32": 1e-5, "float64": 1e-12}[dtype]
    assert_same(_many_uses(torch, dtype), batched, rtol=tol, atol=tol)
    # float16 is summed one add at a time (a program of adds could skip the roundings).
    if dtype == "float16":
        assert calls == []
    elif not bg:  # (with the thread, NumPy's sums while the program compiles)
        assert calls == [8, 8]  # w: 19 = 8 + (7 more) + 4 left, added pairwise
