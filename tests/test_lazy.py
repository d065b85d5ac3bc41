"""Lazy eager ops (``eager/lazy.py``): recorded ops give PyTorch's values, whatever reads
them and whenever, op by op or as one fused segment program."""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest
from conftest import check

import jtorch
from jtorch.eager import lazy
from jtorch.eager.storage import LazyStorage


@pytest.fixture(params=["op by op", "fused"])
def fuse(request, monkeypatch):
    """Segments run op by op, or fused from their second sighting."""
    monkeypatch.setattr(lazy, "FUSE_AFTER", 0 if request.param == "op by op" else 2)
    monkeypatch.setattr(lazy, "ON", True)
    return request.param


def _polynomial(t, steps=12):
    x = t.linspace(-math.pi, math.pi, 200, dtype=t.float32)
    y = t.sin(x)
    a, b, c, d = (t.tensor(v, requires_grad=True) for v in (0.1, -0.4, 0.25, 0.7))
    losses = []
    for _ in range(steps):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with t.no_grad():
            for p in (a, b, c, d):
                p -= 1e-5 * p.grad
                p.grad = None
    return losses, a, b, c, d


def test_training_loop_matches_torch(fuse):
    check(_polynomial, rtol=1e-5, atol=1e-6)


def test_loss_read_before_each_backward_for_many_steps(fuse):
    # ``loss.item()`` runs the forward's segment before ``backward`` records its fused
    # program: a value only the graph's nodes hold (an ``add``'s operand) must leave the
    # segment's program. It once did not where the grad lane's Pending and node shared
    # their operand list: the fused backward (recorded once a graph repeats) read None.
    check(lambda t: _polynomial(t, steps=300), rtol=1e-4, atol=1e-4)


def test_ops_are_recorded_and_run_when_read():
    x = jtorch.arange(6.0)
    for _ in range(3):  # a type's first call runs; later ones are recorded
        y = x * 2 + 1
    assert type(y._storage) is LazyStorage
    assert y.tolist() == [1.0, 3.0, 5.0, 7.0, 9.0, 11.0]
    assert type(y._storage) is not LazyStorage


def test_device_and_like_factories_do_not_run_the_segment():
    """A tensor's device is known without its value (the CPU until something is placed
    on an accelerator), so ``randn_like`` & co. of a recorded result leave it recorded."""
    x = jtorch.arange(6.0)
    for _ in range(3):
        y = (x * 2).exp()
    assert type(y._storage) is LazyStorage
    assert y.device == jtorch.device("cpu") and y.is_cuda is False
    z = jtorch.randn_like(y) + jtorch.zeros_like(y)
    assert type(y._storage) is LazyStorage
    assert z.shape == y.shape and z.device.type == "cpu"
    np.testing.assert_allclose(y.numpy(), np.exp(np.arange(6.0) * 2), rtol=1e-6)


def test_large_results_run_at_once():
    """A segment keeps every result until it runs: large ones are not recorded, so peak
    memory stays eager's."""
    x = jtorch.ones(lazy.MAX_BYTES // 4 + 1)  # float32: one element past the limit
    for _ in range(3):
        y = x * 2 + 1
    assert type(y._storage) is not LazyStorage
    assert y[:2].tolist() == [3.0, 3.0]
    small = jtorch.ones(lazy.MAX_BYTES // 4)
    for _ in range(3):
        y = small * 2 + 1
    assert type(y._storage) is LazyStorage


def test_lazy_off_gives_the_same_bits(monkeypatch):
    monkeypatch.setattr(lazy, "FUSE_AFTER", 0)
    on = _polynomial(jtorch)
    monkeypatch.setattr(lazy, "ON", False)
    off = _polynomial(jtorch)
    assert on[0] == off[0]
    for p, q in zip(on[1:], off[1:], strict=True):
        assert p.item() == q.item()


def _writes_after_capture(t):
    a = t.arange(4.0)
    out = []
    for _ in range(3):
        a += 1  # recorded: a's storage holds the pending sum
        b = a * 2  # captures a's value now
        a.mul_(10)  # a later write must not reach b
        v = a.view(2, 2)[1]  # a view of a pending tensor
        a.sub_(5)
        out += [b.clone(), v.clone(), a.clone()]
    return out


def test_values_are_captured_at_the_op(fuse):
    check(_writes_after_capture)


def _reads(t):
    x = t.linspace(0, 1, 5)
    res = []
    for _ in range(4):
        y = (x + 0.5).exp()
        res.append(float(y.sum()))  # a host read mid-loop
        res.append(y.numpy().tolist() if t is jtorch else y.numpy().tolist())
        res.append(repr(y * 3))
        z = y - 1
        res.append(z.max().item())
    return res


def test_host_reads_run_the_segment(fuse):
    check(_reads)


def _long_chain(t):
    x = t.linspace(-1, 1, 7)
    for i in range(3 * lazy.MAX_OPS):
        x = x * 0.99 + 0.01 * i
    return x


def test_segments_longer_than_the_cap(fuse):
    check(_long_chain, rtol=1e-5)


def _saved_output_modified(t):
    x = t.ones(3, requires_grad=True)
    for _ in range(3):
        y = (x * 2).exp()  # exp saves its output
    y.add_(1)
    y.sum().backward()


def test_modified_saved_output_still_raises():
    check(_saved_output_modified, raises=RuntimeError)


def _shape_error(t):
    a, b = t.ones(3), t.ones(3)
    for _ in range(3):
        c = a + b
    return c + t.ones(4)


def test_shape_errors_raise_at_the_op():
    check(_shape_error, raises=RuntimeError)


def _grads(t):
    w = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
    x = t.tensor([1.0, 2.0, 3.0])
    out = []
    for _ in range(4):
        loss = ((w * x).exp() * 0.1 + w.pow(2)).sum()
        g, = t.autograd.grad(loss, [w])
        out.append(g)
        with t.no_grad():
            w.data = w.data - 0.01 * g  # a write through .data
    return out


def test_autograd_grad_and_data_writes(fuse):
    check(_grads, rtol=1e-5)


def test_read_from_another_thread():
    x = jtorch.arange(4.0)
    for _ in range(3):
        y = x * 3 - 1
    assert type(y._storage) is LazyStorage
    seen = []
    th = threading.Thread(target=lambda: seen.append(y.tolist()))
    th.start()
    th.join()
    assert seen == [[-1.0, 2.0, 5.0, 8.0]]


def test_another_thread_computes_without_running_the_segment():
    """A thread other than the main one computes the value it reads from the op's own
    record; the main thread's segment stays pending and runs as usual."""
    x = jtorch.arange(4.0)
    for _ in range(3):
        y = x * 3 - 1
        z = y * y
    assert type(z._storage) is LazyStorage
    seen = []
    th = threading.Thread(target=lambda: seen.append(z.tolist()))
    th.start()
    th.join()
    assert seen == [[1.0, 4.0, 25.0, 64.0]]
    assert type(y._storage) is LazyStorage  # still recorded: the thread ran z alone
    assert (y + z).tolist() == [0.0, 6.0, 30.0, 72.0]


def test_read_inside_a_jax_trace():
    """A pending value read inside ``torch.func`` and ``torch.compile`` traces runs as
    concrete arrays: no tracer reaches the tensor that holds it."""
    x = jtorch.arange(3.0)
    for _ in range(3):
        c = x * 2 + 1
    assert type(c._storage) is LazyStorage

    def f(w):
        return (w * c).sum()

    g = jtorch.func.grad(f)(jtorch.ones(3))
    assert g.tolist() == [1.0, 3.0, 5.0]
    assert c.tolist() == [1.0, 3.0, 5.0]
    for _ in range(3):
        d = x * 2 + 1
    compiled = jtorch.compile(lambda w: w * d)
    assert compiled(jtorch.ones(3)).tolist() == [1.0, 3.0, 5.0]
    assert d.tolist() == [1.0, 3.0, 5.0]


def _programs() -> int:
    """How many fused segment programs exist (one per signature and set of live results)."""
    return sum(len(v.programs) for v in lazy._SEEN.values() if type(v) is lazy._Fused)


def test_fused_segment_compiles_once(monkeypatch):
    """A repeated segment runs as one program keyed by its ops, wiring and types."""
    monkeypatch.setattr(lazy, "FUSE_AFTER", 2)
    x = jtorch.linspace(0, 1, 11)
    before = _programs()
    results = []
    for _ in range(5):
        y = (x * 1.5 + 0.25) * x - 0.125
        results.append(y.numpy())
    assert _programs() == before + 1
    expected = (np.linspace(0, 1, 11, dtype=np.float32) * 1.5 + 0.25) * np.linspace(
        0, 1, 11, dtype=np.float32) - 0.125
    for r in results:
        np.testing.assert_allclose(r, expected, rtol=1e-6)


def test_a_repeated_operand_is_one_argument_of_its_program(monkeypatch):
    """An operand from outside that several ops of a fused segment read is one argument of
    its program; when the repeats change (the same tensor at those places no longer) the
    segment gets a program for that pattern, and every run gives the values."""
    monkeypatch.setattr(lazy, "FUSE_AFTER", 2)
    xs = np.linspace(0, 1, 11, dtype=np.float32)
    x = jtorch.tensor(xs)
    before = {id(f) for f in lazy._SEEN.values()}
    out, fused = [], []
    for i in range(10):
        w = x if i < 6 else jtorch.tensor(xs * i)  # x read four times, then twice
        y = x * w + w * 2.0 - x
        out.append((y.numpy(), xs * (1.0 if i < 6 else i)))
        fused += [f for f in lazy._SEEN.values() if type(f) is lazy._Fused
                  and id(f) not in before and f not in fused]
    for got, ws in out:
        np.testing.assert_allclose(got, xs * ws + ws * 2.0 - xs, rtol=1e-6)
    (f,) = fused
    patterns = sorted(len(dups) for _, dups in f.aliased)
    assert patterns == [2, 3]  # operands x, w, w, 2.0, x: (x, w again) and (x thrice again)
    entry = next(iter(f.programs.values()))
    assert entry[4](list(range(5))) == (0, 3)  # the first pattern's program takes x, 2.0


def test_equal_types_from_distinct_arrays_share_a_key(monkeypatch):
    """Recording keys operand types by number, per aval identity then value: a fresh host
    array each step (a new aval object, as a DataLoader batch has) is the same type, so its
    ops are recorded and its segment fuses, as with one array reused."""
    monkeypatch.setattr(lazy, "FUSE_AFTER", 2)
    before = _programs()
    rows = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = []
    for i in range(6):
        x = jtorch.tensor(rows + i)  # its own array, its own aval object
        y = (x * 2 + 1).sin()
        if i >= 2:
            assert type(y._storage) is LazyStorage
        out.append(y.numpy())
    assert _programs() == before + 1
    for i, r in enumerate(out):
        np.testing.assert_allclose(r, np.sin((rows + i) * 2 + 1), rtol=1e-6)


def _version_of_recorded_results(t):
    x = t.arange(4.0)
    out = []
    for _ in range(3):
        y = x * 2  # recorded in jtorch: its counter is made when first read
    v = y[1:]
    out.append((y._version, v._version))
    v.add_(1)  # a view's write bumps the counter it shares with its base
    out.append((y._version, v._version))
    y.mul_(2)
    out.append((y._version, v._version, y.tolist()))
    w = x * 3
    w.zero_()
    out.append(w._version)
    return out


def test_recorded_results_version_counters():
    check(_version_of_recorded_results)
    x = jtorch.arange(4.0)
    for _ in range(3):
        y = x + 1
    assert type(y._storage) is LazyStorage and "_vc" not in vars(y)
    assert y._version == 0 and "_vc" in vars(y)


def test_storage_pointers_made_when_asked():
    a, b = jtorch.zeros(3), jtorch.zeros(3)
    pa = a.data_ptr()
    assert pa == a.data_ptr() != b.data_ptr()
    assert a[1:].data_ptr() == pa + 4


def test_fused_segment_returns_only_results_still_held(monkeypatch):
    """A temporary that nothing outside the segment holds stays inside its program."""
    monkeypatch.setattr(lazy, "FUSE_AFTER", 2)
    x = jtorch.linspace(0, 1, 7)
    kept = []
    for _ in range(4):
        y = x * 1.5 + 0.25  # x * 1.5 is read only by the add
        z = y * 2.0
        kept.append((y.numpy(), z.numpy()))
    masks = [live for sig, f in lazy._SEEN.items() if type(f) is lazy._Fused
             and len(sig) == 3 for live in f.programs]
    assert (False, True, True) in masks
    want = np.linspace(0, 1, 7, dtype=np.float32) * 1.5 + 0.25
    for y, z in kept:
        np.testing.assert_allclose(y, want, rtol=1e-6)
        np.testing.assert_allclose(z, want * 2, rtol=1e-6)


def test_the_update_after_a_recorded_backward_joins_its_segment(monkeypatch):
    """A recorded backward's segment runs at the next step's first op making a node: the
    update between joins it, so the gradients it reads and frees (``grad = None``) never
    leave the program, which returns the parameters and the loss only; the values are
    PyTorch's."""
    import torch

    from jtorch.eager.autograd import fused

    _forget()
    monkeypatch.setattr(lazy, "FUSE_AFTER", 2)
    monkeypatch.setattr(fused, "AFTER", 2)

    def fit(t):
        return _cubic_fit(12, 0, t, points=200, lr=1e-5)

    np.testing.assert_allclose(fit(jtorch), fit(torch), rtol=1e-5)
    # A step's ops: 11 forward ops, the backward and its 4 gradients, 8 update ops; its
    # segment takes the next steps too (``lazy.step``): four steps a program.
    programs = [f.programs for sig, f in lazy._SEEN.items()
                if type(f) is lazy._Fused and len(sig) == 24 * lazy.STEPS]
    assert [[sum(live) for live in p] for p in programs] == [[5]]
    _forget()


@pytest.mark.parametrize("steps, cap, ops", [(4, 128, 96), (4, 60, 48), (3, 128, 72),
                                             (1, 128, 24)])
def test_a_step_segment_takes_the_next_steps(monkeypatch, steps, cap, ops):
    """A segment that began with a step (its recorded backward ended it) takes the next
    steps, up to ``STEPS`` of them and ``STEP_OPS`` ops, as one program: the cubic fit's
    24 ops a step, its segments' programs of ``ops`` ops; PyTorch's values either way."""
    import torch

    from jtorch.eager.autograd import fused

    _forget()
    monkeypatch.setattr(lazy, "FUSE_AFTER", 2)
    monkeypatch.setattr(fused, "AFTER", 2)
    monkeypatch.setattr(lazy, "STEPS", steps)
    monkeypatch.setattr(lazy, "STEP_OPS", cap)

    def fit(t):
        return _cubic_fit(40, 0, t, points=200, lr=1e-5)

    np.testing.assert_allclose(fit(jtorch), fit(torch), rtol=1e-5)
    # Segments of whole steps (another fused one: the 32 ops from the update of the last
    # step whose backward ran unrecorded to the end of the next step).
    lengths = {len(sig) for sig, f in lazy._SEEN.items() if type(f) is lazy._Fused}
    assert {n for n in lengths if n % 24 == 0} == {ops}
    _forget()


def test_another_threads_ops_leave_the_segments_steps(monkeypatch):
    """An op making a node on another thread, while the main thread's segment waits for
    its next step (``_Segment.ended``), neither runs nor extends that segment."""
    from jtorch.eager.autograd import fused

    _forget()
    monkeypatch.setattr(lazy, "FUSE_AFTER", 2)
    monkeypatch.setattr(fused, "AFTER", 2)
    x = jtorch.linspace(-1, 1, 50)
    a = jtorch.tensor(0.5, requires_grad=True)
    for _ in range(10):
        (a * x).pow(2).sum().backward()
        with jtorch.no_grad():
            a -= 1e-3 * a.grad
            a.grad = None
    seg = lazy._seg
    state = (seg.steps, seg.ended, seg.limit, len(seg.pend))
    assert seg.ended and seg.steps  # a recorded backward ended a segment of steps
    out = []
    worker = threading.Thread(target=lambda: out.append((a * x).sum().item()))
    worker.start()
    worker.join()
    assert lazy._seg is seg and (seg.steps, seg.ended, seg.limit, len(seg.pend)) == state
    np.testing.assert_allclose(out[0], a.item() * x.sum().item(), rtol=1e-5, atol=1e-5)
    _forget()


def test_step_segments_fuse_after_as_many_steps():
    """Sightings of a segment of several steps count its steps: it fuses after as many
    steps as a one-step segment would (``FUSE_AFTER`` is in steps)."""
    from jtorch.eager.autograd import fused

    made, old = lazy._Fused.__init__, lazy.STEPS
    firsts = []
    for steps in (1, 4):
        _forget()
        lazy.STEPS, lengths, first = steps, [], None
        lazy._Fused.__init__ = lambda self, sig, left, seen=lengths: (
            seen.append(len(sig)), made(self, sig, left))[-1]
        try:
            x = jtorch.linspace(-1, 1, 50)
            a = jtorch.tensor(0.5, requires_grad=True)
            for i in range(lazy.FUSE_AFTER + fused.AFTER + 40):
                loss = (a * x).pow(2).sum()  # 3 ops, the backward and its gradient,
                loss.backward()
                with jtorch.no_grad():
                    a -= 1e-3 * a.grad  # 2 more: 7 a step
                    a.grad = None
                if lengths and first is None:
                    first = i
        finally:
            lazy.STEPS, lazy._Fused.__init__ = old, made
        firsts.append(first)
        assert lengths[0] == 7 * steps  # the first segment fused: the steps' own
    _forget()
    assert firsts[0] is not None and abs(firsts[1] - firsts[0]) <= 4


def test_recorded_op_inherits_the_sightings_of_the_ops_before_it(monkeypatch):
    """``record`` (an op with several results, as the fused backward records itself) on a
    segment whose ops have come often: the longer segment counts as seen as often, so it
    fuses as soon as they would."""
    import jax

    monkeypatch.setattr(lazy, "FUSE_AFTER", 50)
    monkeypatch.setattr(lazy, "_SEEN", {})  # only this test's segments
    x = jtorch.linspace(0, 1, 5)

    def pair(a):
        return a + 1, a * 2

    kernel = jax.jit(pair)
    e = lazy.entry(("pair",), pair, kernel, kernel)
    for _ in range(8):  # the prefix alone
        y = x * 2.0 + 1.0
        y.numpy()
    prefix = max(v for sig, v in lazy._SEEN.items() if len(sig) == 2 and type(v) is int)
    y = x * 2.0 + 1.0
    operands = [y._storage.pending]
    known = {lazy.operand_key(e, operands): lazy.recorded(e, [y._storage.pending.aval] * 2)}
    p, q = lazy.record(e, operands, known)
    lazy.flush()
    assert [v for sig, v in lazy._SEEN.items() if len(sig) == 5] == [prefix + 1]
    want = np.linspace(0, 1, 5, dtype=np.float32) * 2 + 1
    np.testing.assert_allclose(np.asarray(p.array), want + 1, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(q.array), want * 2, rtol=1e-6)


def _late_compiles(monkeypatch) -> list:
    """Background compiles whose Events come ``delay[0]`` seconds after the compile is
    over (a slow compile thread, as on a busy machine); the list returned sets it."""
    from jtorch import _kernels

    real, delay = _kernels.ahead, [0.0]

    def late(jitted, args):
        done = real(jitted, args)
        later, wait = threading.Event(), delay[0]
        threading.Thread(target=lambda: (done.wait(), time.sleep(wait), later.set()),
                         daemon=True).start()
        return later

    monkeypatch.setattr(_kernels, "BACKGROUND", True)
    monkeypatch.setattr(_kernels, "ahead", late)
    return delay


def _forget():
    """A fresh start: no segment or graph seen, no op's first run done."""
    from jtorch.eager.autograd import fused

    lazy._SEEN.clear()
    lazy._AVALS.clear()
    fused._SEEN.clear()
    fused._PROGRAMS.clear()


def _fma_steps(steps=12, pause=0.05):
    """Repeated x * b + c on float32: a fused program rounds once (an FMA), op by op
    twice, so the step where a segment switches to its program shows in the values.
    ``pause``: seconds per step, time for a compile to be over in the meantime."""
    rng = np.random.default_rng(0)
    b = jtorch.tensor(rng.uniform(0.5, 0.9, 256).astype(np.float32))
    c = jtorch.tensor(rng.uniform(-1, 1, 256).astype(np.float32))
    x = jtorch.tensor(rng.uniform(-1, 1, 256).astype(np.float32))
    for _ in range(steps):
        x = x * b + c
        x.tolist()  # a read: one segment per step
        time.sleep(pause)
    return x.numpy()


def _cubic_fit(steps=12, pause=0.05, t=jtorch, points=256, lr=1e-3):
    """The polynomial fit's step (forward, backward, updates) on float32, ``pause``
    seconds per step: its fused backward's program and its segments' switch too. The
    coefficients at the end, from library ``t``."""
    x = t.linspace(-math.pi, math.pi, points)
    y = t.sin(x)
    a, b, c, d = (t.tensor(v, requires_grad=True) for v in (0.1, -0.4, 0.25, 0.7))
    for _ in range(steps):
        loss = ((a + b * x + c * x**2 + d * x**3) - y).pow(2).sum()
        loss.backward()
        with t.no_grad():
            for p in (a, b, c, d):
                p -= lr * p.grad
                p.grad = None
        if pause:
            time.sleep(pause)
    return np.array([p.item() for p in (a, b, c, d)])


@pytest.mark.parametrize("prog", [_fma_steps, _cubic_fit])
def test_the_switch_to_a_fused_program_does_not_wait_on_compile_speed(monkeypatch, prog):
    """The same program gives the same numbers however fast the background thread
    compiles: the switch from op by op (or the walk) to a program comes at a fixed
    sighting (``lazy._left``: here the 6th, the compile queued at the 4th), waiting for
    the compile if need be. (It used to come once the compile was over: runs differed.)"""
    from jtorch.eager.autograd import fused

    monkeypatch.setattr(lazy, "ON", True)
    monkeypatch.setattr(lazy, "FUSE_AFTER", 4)
    monkeypatch.setattr(fused, "AFTER", 4)
    delay = _late_compiles(monkeypatch)  # a background thread as fast as it goes
    prog(2, 0.0)  # the bindings' first calls (their lookups) behind us
    _forget()
    expected = prog()
    delay[0] = 0.3  # one whose compiles come 0.3 s late
    _forget()
    actual = prog()
    _forget()
    np.testing.assert_array_equal(actual, expected)
