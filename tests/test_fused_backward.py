"""The fused backward (eager/autograd/fused.py): a repeated graph's backward runs as one
program, with the engine's results, errors and release semantics; anything that asks for
the per-node view (hooks, retain_grad, create_graph) keeps the node-by-node walk."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import assert_same

import jtorch
from jtorch import _kernels
from jtorch.eager.autograd import fused, node


@pytest.fixture
def fuse_at(monkeypatch):
    """Fuse from the n-th sighting of a graph (clean caches before and after), compiling
    the program when it is first needed rather than on the background thread."""
    fused._SEEN.clear()
    fused._PROGRAMS.clear()
    monkeypatch.setattr(_kernels, "BACKGROUND", False)
    hooked, node.HOOKED[0] = node.HOOKED[0], False  # as in a process where none was made

    def set_after(n):
        monkeypatch.setattr(fused, "AFTER", n)

    yield set_after
    fused._SEEN.clear()
    fused._PROGRAMS.clear()
    node.HOOKED[0] = hooked or node.HOOKED[0]  # never back to False over a hook made here


def _mlp_steps(t, steps):
    rng = np.random.default_rng(0)
    w1, w2 = (t.tensor(rng.standard_normal(s) * 0.3, requires_grad=True)
              for s in ((8, 16), (16, 3)))
    b = t.tensor(np.zeros(16), requires_grad=True)
    x = t.tensor(rng.standard_normal((5, 8)))
    y = t.tensor([0, 2, 1, 1, 0])
    opt = t.optim.SGD([w1, w2, b], lr=0.1, momentum=0.9)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        h = t.tanh(x @ w1 + b)
        # h is used twice: gradients meet and are summed inside the program
        loss = t.nn.functional.cross_entropy(h @ w2, y) + (h * h).mean() * 0.1
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return losses, w1.grad, w2.grad, b.grad, w1.detach()


def test_fused_training_matches_pytorch_and_compiles_once(fuse_at):
    fuse_at(2)
    expected = _mlp_steps(torch, 6)
    actual = _mlp_steps(jtorch, 6)
    assert_same(expected, actual, rtol=1e-10, atol=1e-12)
    assert len(fused._PROGRAMS) == 1
    ((program, _, _),) = fused._PROGRAMS.values()  # (program, its recorded forms, order)
    assert program._cache_size() == 1  # the same graph structure never retraces


def test_graphs_of_one_structure_made_in_another_order_share_a_program(fuse_at):
    """A graph is keyed by its structure as reached from its roots, not by the order its
    ops were made in: steps computing the same terms in alternating orders share one
    program, whose node order (kept from the first) suits both; the values are PyTorch's."""
    fuse_at(2)

    def steps(t):
        rng = np.random.default_rng(1)
        x = t.tensor(rng.standard_normal(6))
        a, b = (t.tensor(v, requires_grad=True) for v in (0.5, -1.5))
        out = []
        for i in range(8):
            if i % 2:
                v = (b * x).exp()
                u = (a * x).sin()
            else:
                u = (a * x).sin()
                v = (b * x).exp()
            loss = (u * v + u).sum()
            loss.backward()
            out += [loss.detach(), a.grad.clone(), b.grad.clone()]
            a.grad = b.grad = None
        return out

    assert_same(steps(torch), steps(jtorch), rtol=1e-12, atol=1e-12)
    assert len(fused._PROGRAMS) == 1


def test_fused_and_walked_backward_agree(fuse_at):
    def flat(results):
        losses, *rest = results
        return [t.numpy() for t in (*losses, *rest)]

    fuse_at(0)
    walked = flat(_mlp_steps(jtorch, 4))
    fuse_at(1)
    for a, b in zip(walked, flat(_mlp_steps(jtorch, 4)), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)
    assert fused._PROGRAMS


def test_hooks_and_retain_grad_keep_running(fuse_at):
    fuse_at(1)
    x = jtorch.ones(3, requires_grad=True)
    seen = []
    for _ in range(3):
        y = x * 2
        y.register_hook(lambda g: seen.append(g.sum().item()))
        z = y.exp()
        z.retain_grad()
        z.sum().backward()
        assert z.grad is not None
    assert seen == [pytest.approx(3 * np.exp(2.0))] * 3
    assert not fused._PROGRAMS


_HOOKS = {
    "tensor": lambda x, y, z, seen: y.register_hook(lambda g: seen.append(g)),
    "node": lambda x, y, z, seen: y.grad_fn.register_hook(lambda gi, go: seen.append(gi[0])),
    "prehook": lambda x, y, z, seen: y.grad_fn.register_prehook(
        lambda go: seen.append(go[0])),
    "retain_grad": lambda x, y, z, seen: (y.retain_grad(), seen.append(y)),
    "leaf": lambda x, y, z, seen: x.register_hook(lambda g: seen.append(g)),
    "post_accumulate": lambda x, y, z, seen: x.register_post_accumulate_grad_hook(
        lambda t: seen.append(t.grad.clone())),
}


@pytest.mark.parametrize("kind", list(_HOOKS))
def test_a_hook_made_after_the_graph_fused_still_runs(fuse_at, kind):
    """The fused backward looks for hooks only once some hook or retain_grad was made
    (``node.HOOKED``): the first one, on a graph already running fused, is honoured."""
    fuse_at(1)
    x = jtorch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    seen = []
    for step in range(4):
        x.grad = None
        y = x * 3.0
        z = (y * y).sum()
        if step == 3:
            assert fused._PROGRAMS and not node.HOOKED[0]  # fused so far
            _HOOKS[kind](x, y, z, seen)
        z.backward()
    assert seen, kind
    got = seen[0].grad if kind == "retain_grad" else seen[0]
    want = 18 * x if kind in ("node", "leaf", "post_accumulate") else 2 * (x * 3.0)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), (18 * x).detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("after", [0, 1])
def test_second_backward_and_modified_saved_tensor_raise(fuse_at, after):
    fuse_at(after)

    def prog(t):
        x = t.ones(3, requires_grad=True)
        y = (x * 2).exp()
        loss = y.sum()
        loss.backward()
        return x.grad

    assert_same(prog(torch), prog(jtorch))
    x = jtorch.ones(3, requires_grad=True)
    loss = (x * 2).exp().sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    a = jtorch.ones(3, requires_grad=True)
    b = a.exp()
    loss = b.sum() * 1.0
    out = (b * b).sum()
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()
    del loss


def test_retain_graph_and_accumulation(fuse_at):
    fuse_at(1)

    def prog(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = (x.sin() * x).sum()
        for _ in range(3):
            loss.backward(retain_graph=True)
        return x.grad

    assert_same(prog(torch), prog(jtorch))


# ------------------------------------------------------------ recorded with its step
# A fused backward whose gradients are small is recorded into the lazy segment
# (eager/lazy.py) with the step's forward and the previous update: once that segment
# repeats, the whole step is one program.


def _cubic_steps(t, steps):
    """PyTorch's polynomial-fit tutorial step (float64): tiny ops, in-place updates."""
    x = t.linspace(-3.0, 3.0, 50, dtype=t.float64)
    y = t.sin(x)
    a, b, c, d = (t.tensor(v, dtype=t.float64, requires_grad=True)
                  for v in (0.1, -0.2, 0.3, -0.4))
    losses = []
    for _ in range(steps):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with t.no_grad():
            for p in (a, b, c, d):
                p -= 1e-4 * p.grad
                p.grad = None
        losses.append(loss.detach())
    return losses, y_pred.detach(), a.detach(), d.detach()


@pytest.fixture
def lazy_fuse_at(monkeypatch):
    from jtorch.eager import lazy

    monkeypatch.setattr(lazy, "FUSE_AFTER", 2)
    lazy._SEEN.clear()
    yield lazy
    lazy._SEEN.clear()


def test_recorded_backward_runs_in_one_program_with_its_step(fuse_at, lazy_fuse_at):
    fuse_at(1)
    expected = _cubic_steps(torch, 12)
    assert_same(expected, _cubic_steps(jtorch, 12), rtol=1e-10, atol=1e-12)
    lazy = lazy_fuse_at
    numbers = _backward_numbers()
    steps = [f for sig, f in lazy._SEEN.items() if type(f) is lazy._Fused
             and any(k in numbers for k, _ in sig)]
    assert steps, "no fused segment held the recorded backward"
    # The step's temporaries (a scaled gradient, the backward's own result tuple) are
    # read by nothing outside the segment: its program does not return them.
    assert any(not all(live) for f in steps for live in f.programs)


def _recorded() -> list:
    """Every graph's recorded forms: (lazy entry, {operand types: ``lazy.recorded``})."""
    return [rec for _, forms, _ in fused._PROGRAMS.values() for rec in forms.values()]


def _backward_numbers() -> set:
    """The numbers naming recorded backwards in segment signatures (``lazy.recorded``)."""
    return {found[0][5] for rec in _recorded() for found in rec[1].values()}


def test_recorded_backward_still_checks_saved_tensors(fuse_at):
    fuse_at(1)

    def prog(t, modify):
        x = t.linspace(0.0, 1.0, 5, dtype=t.float64)
        w = t.tensor(0.5, dtype=t.float64, requires_grad=True)
        for step in range(4):
            h = w * x
            y = h * h  # saves h
            if modify and step == 3:
                h.add_(1)  # a bumped version: the backward must refuse
            y.sum().backward()
        return w.grad

    assert_same(prog(torch, False), prog(jtorch, False))
    assert any(rec[1] for rec in _recorded())
    for t in (torch, jtorch):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            prog(t, True)


def test_recorded_backward_reads_a_value_written_through_data(fuse_at):
    """``.data`` writes bump no version: the backward then reads the new value, as
    PyTorch's does, through the node-by-node check rather than the recorded program."""
    fuse_at(1)

    def prog(t):
        x = t.linspace(0.0, 1.0, 5, dtype=t.float64)
        w = t.tensor(0.5, dtype=t.float64, requires_grad=True)
        grads = []
        for step in range(4):
            h = w * x
            y = (h * x).sum()
            if step == 3:
                x.data = x.data * 2  # mul saved x: PyTorch's backward reads the new x
            y.backward()
            grads.append(w.grad.clone())
            w.grad = None
        return grads

    assert_same(prog(torch), prog(jtorch))
    assert any(rec[1] for rec in _recorded())


def test_recorded_backward_learns_its_results_per_operand_types(fuse_at):
    """One graph structure (a cast's output type is all its key holds of the leaf) over
    leaves of two dtypes: each gradient has its leaf's dtype, recorded or not."""
    fuse_at(1)

    def prog(t, dtype):
        x = t.linspace(0.0, 1.0, 5)
        w = t.tensor(0.5, dtype=dtype, requires_grad=True)
        grads = []
        for _ in range(4):
            (w.float() * x).sum().backward()
            grads.append(w.grad)
            w.grad = None
        return grads

    for dtype in ("float64", "float16", "float64"):
        assert_same(prog(torch, getattr(torch, dtype)), prog(jtorch, getattr(jtorch, dtype)))
