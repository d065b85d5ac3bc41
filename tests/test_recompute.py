"""Recomputing gradients (eager/dispatch.py): an op that needs a gradient runs the forward
kernel it runs without one and records its inputs; its backward recomputes what the
gradient reads. Ops marked ``residuals`` (sorts, decompositions, recurrent stacks,
attention, sampling) keep the VJP of a forward-with-VJP kernel instead. Both kinds give
PyTorch's gradients, walked node by node or fused, and mix in one graph."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import assert_same, counting_compiles

import jtorch
from jtorch import _kernels
from jtorch.eager.autograd import fused


def _graph(t, x, w):
    """Recomputing ops (matmul, exp, softmax, layer_norm, max_pool, views) around residual
    ones (sort, cumprod, linalg.inv), so gradients cross between the two kinds."""
    h = (x @ w).exp() * 0.1
    s = t.sort(h, dim=1).values  # residuals
    p = t.nn.functional.max_pool2d(s.reshape(1, 1, 4, 4), 2)
    n = t.nn.functional.layer_norm(h, (4,))
    c = t.cumprod(n[:, :2] + 2.0, dim=0)  # residuals
    inv = t.linalg.inv(w + t.eye(4, dtype=w.dtype) * 3)  # residuals
    return (p.sum() + t.softmax(c, 1)[:, 0].sum() + (inv * h.t()).sum()
            + n.transpose(0, 1)[1].pow(2).sum())


def _grads(t, steps=1):
    rng = np.random.default_rng(0)
    x = t.tensor(rng.standard_normal((4, 4)), requires_grad=True)
    w = t.tensor(rng.standard_normal((4, 4)) * 0.5, requires_grad=True)
    for _ in range(steps):
        x.grad = w.grad = None
        loss = _graph(t, x, w)
        loss.backward()
    return loss.detach(), x.grad, w.grad


@pytest.mark.parametrize("fuse", [False, True])
def test_mixed_graph_matches_pytorch(fuse, monkeypatch):
    fused._SEEN.clear()
    fused._PROGRAMS.clear()
    monkeypatch.setattr(fused, "AFTER", 2 if fuse else 0)
    monkeypatch.setattr(_kernels, "BACKGROUND", False)  # the program is ready when first met
    assert_same(_grads(torch, 3), _grads(jtorch, 3), rtol=1e-10, atol=1e-12)
    assert len(fused._PROGRAMS) == (1 if fuse else 0)
    fused._SEEN.clear()
    fused._PROGRAMS.clear()


def test_nodes_keep_inputs_or_residuals():
    x = jtorch.randn(3, 3, requires_grad=True)
    y = x.exp()
    assert y.grad_fn._vjp is None  # recomputed in the backward from x
    assert y.grad_fn._replay[2][0] is x._value
    s = x.sort(dim=1).values
    assert s.grad_fn._vjp is not None  # the sort's indices are kept
    d = jtorch.nn.functional.dropout(x, 0.5, training=True)
    assert d.grad_fn._vjp is not None  # a mask is never drawn twice
    (y.sum() + s.sum() + d.sum()).backward()
    mask = (d != 0).double()
    np.testing.assert_allclose(x.grad.numpy(), (x.exp() + 1 + mask * 2).detach().numpy())


def test_backward_reads_values_written_through_data():
    """mul saves the other operand: a write through ``.data`` after the forward is what
    PyTorch's backward reads; exp saves its result, so a write to its input changes nothing."""
    def run(t):
        w = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = t.tensor([4.0, 5.0, 6.0])
        a = t.tensor([0.5, 1.0, 1.5], requires_grad=True)
        loss = (w * x).sum() + a.exp().sum()
        x.data.mul_(10)
        a.data.add_(1)
        loss.backward()
        return w.grad, a.grad

    assert_same(run(torch), run(jtorch))


def test_gradient_forward_shares_the_no_grad_kernel():
    """A training forward after an evaluation forward of the same shapes compiles nothing
    new: both run one kernel per op (the backward's kernels are separate)."""
    lin = jtorch.nn.Sequential(jtorch.nn.Linear(7, 5), jtorch.nn.Tanh(), jtorch.nn.Linear(5, 3))
    x = jtorch.randn(11, 7)
    with jtorch.no_grad():
        lin(x).softmax(1).sum()
    with counting_compiles() as compiles:
        out = lin(x).softmax(1).sum()
    assert compiles == []
    out.backward()
    assert lin[0].weight.grad.shape == (5, 7)
