"""Writes through ``.data`` between forward and backward against PyTorch: ``.data`` has its
own version counter, so no error is raised and the backward reads the saved tensors'
current values."""

from __future__ import annotations

import pytest
from conftest import check

import jtorch


def _xw(t):
    return (t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
            t.tensor([[2.0, -1.0], [0.5, 3.0]], requires_grad=True))


def _weight_scaled(t):
    x, w = _xw(t)
    y = x @ w
    w.data.mul_(3)
    y.sum().backward()
    return x.grad, w.grad


def _weight_replaced(t):  # the saved tensor is w itself, so a new .data is seen too
    x, w = _xw(t)
    y = x @ w
    w.data = t.full((2, 2), 5.0)
    y.sum().backward()
    return x.grad, w.grad


def _through_view(t):
    x, w = _xw(t)
    y = x @ w.t()
    w.data.add_(1)
    y.sum().backward()
    return x.grad


def _activation(t):
    x, w = _xw(t)
    h = x * 2
    y = h @ w
    h.data.zero_()
    y.sum().backward()
    return w.grad, x.grad


def _twice_retained(t):
    x, w = _xw(t)
    y = (x * w).sum()
    y.backward(retain_graph=True)
    first = x.grad.clone()
    w.data.mul_(-1)
    y.backward()
    return first, x.grad


def _create_graph(t):
    x, w = _xw(t)
    y = (x * x * w).sum()
    w.data.mul_(3)
    (gx,) = t.autograd.grad(y, x, create_graph=True)
    gx.sum().backward()
    return gx, w.grad


def _after_inplace_op(t):  # the in-place op's own self is saved as a clone: not re-read
    x, w = _xw(t)
    h = x * 1
    h.mul_(w)
    w.data.mul_(3)
    h.sum().backward()
    return x.grad


def _constant_operand(t):
    x, _ = _xw(t)
    c = t.tensor([[1.0, 2.0], [3.0, 4.0]])
    y = (x * c).sum()
    c.data.fill_(7)
    y.backward()
    return x.grad


@pytest.mark.parametrize("program", [
    _weight_scaled, _weight_replaced, _through_view, _activation, _twice_retained,
    _create_graph, _after_inplace_op, _constant_operand])
def test_data_write_is_seen_by_backward(program):
    check(program)


def test_detached_alias_write_still_raises():
    """detach() shares the version counter: PyTorch's error, not a recomputation."""

    def prog(t):
        x, w = _xw(t)
        y = x @ w
        w.detach().mul_(3)
        y.sum().backward()

    check(prog, raises=RuntimeError)


def test_saved_output_written_through_data_raises_in_jtorch():
    """Known difference: PyTorch's exp backward reads its saved result, which jtorch cannot
    substitute (it differentiates from the inputs), so it says so instead of guessing."""
    x = jtorch.ones(2, requires_grad=True)
    y = x.exp()
    y.data.mul_(2)
    with pytest.raises(RuntimeError, match=r"ExpBackward0: its output 0.*\.data"):
        y.sum().backward()


def test_batch_norm_running_stats_do_not_force_a_recompute(monkeypatch):
    """Batch norm updates its saved running statistics itself, as PyTorch's kernel does."""
    from jtorch.eager.autograd.node import OpNode

    def fail(self, stale):
        raise AssertionError(f"{self.name()} recomputed")

    monkeypatch.setattr(OpNode, "_recompute", fail)
    m = jtorch.nn.BatchNorm1d(2)
    x = jtorch.tensor([[1.0, 2.0], [3.0, 5.0], [0.0, 1.0]], requires_grad=True)
    m(x).pow(2).sum().backward()
    assert x.grad is not None
