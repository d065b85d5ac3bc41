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
from jtorch.eager.autograd import fused


@pytest.fixture
def fuse_at(monkeypatch):
    """Fuse from the n-th sighting of a graph (clean caches before and after), compiling
    the program when it is first needed rather than on the background thread."""
    fused._SEEN.clear()
    fused._PROGRAMS.clear()
    monkeypatch.setattr(_kernels, "BACKGROUND", False)

    def set_after(n):
        monkeypatch.setattr(fused, "AFTER", n)

    yield set_after
    fused._SEEN.clear()
    fused._PROGRAMS.clear()


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
    (program,) = fused._PROGRAMS.values()
    assert program._cache_size() == 1  # the same graph structure never retraces


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
