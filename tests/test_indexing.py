"""Indexing in every form, and the data-dependent indexing functions, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check


def _x(t):
    return t.arange(24.0, dtype=t.float64).reshape(2, 3, 4)


_INDEXES = {
    "separated": lambda t: (1, slice(None), [0, 3]),  # advanced dims go first: (3, 2)
    "separated2": lambda t: ([0, 1], slice(None), [0, 3]),
    "adjacent": lambda t: (slice(None), [0, 1], [0, 3]),
    "adjacent_int": lambda t: (slice(None), 1, [0, 3]),
    "int_first": lambda t: ([0, 1], 1, slice(None)),
    "bool_list": lambda t: [True, False],
    "none_ellipsis": lambda t: (None, Ellipsis, [1, 2], None),
    "ellipsis_adv": lambda t: (Ellipsis, [1, 2]),
    "adv_none_adv": lambda t: ([0], None, [1]),
    "mask_and_int": lambda t: (t.tensor([True, False]), slice(None), 1),
    "tensor0": lambda t: (t.tensor(1), [0, 2]),
    "nested": lambda t: ([[0, 1], [1, 0]], slice(None), [[0], [3]]),
    "mask3d": lambda t: _x(t) > 10,
    "negative": lambda t: (-1, [-1, -3]),
    "step": lambda t: (slice(None, None, 2), slice(1, None), [0, 1]),
}


@pytest.mark.parametrize("name", list(_INDEXES))
def test_getitem_setitem_and_grad(name):
    index = _INDEXES[name]

    def prog(t):
        x = _x(t).requires_grad_()
        y = x[index(t)]
        (y * t.arange(float(y.numel()), dtype=t.float64).reshape(y.shape)).sum().backward()
        z = _x(t).clone()
        z[index(t)] = -t.arange(float(y.numel()), dtype=t.float64).reshape(y.shape)
        return y, x.grad, z

    check(prog)


def test_negative_step_raises():
    check(lambda t: t.arange(4.0)[::-1], raises=ValueError)


def test_nonzero_argwhere_where():
    m = lambda t: t.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])  # noqa: E731
    check(lambda t: (t.nonzero(m(t)), m(t).nonzero(), t.nonzero(m(t), as_tuple=True),
                     t.argwhere(m(t)), m(t).argwhere(), t.where(m(t) > 0),
                     t.nonzero(t.tensor(1.0)), t.nonzero(t.tensor(0.0)),
                     t.nonzero(t.tensor(3), as_tuple=True), t.nonzero(t.zeros(0, 2))))
    check(lambda t: (t.where(m(t) > 0, m(t), 0.0), m(t).where(m(t) > 0, -m(t))))

    def out(t):
        o = t.empty(0, dtype=t.int64)
        r = t.nonzero(m(t), out=o)
        return o, r is o

    check(out)


def test_masked_select_out_and_grad():
    def prog(t):
        x = t.arange(12.0, dtype=t.float64).reshape(3, 4).requires_grad_()
        y = t.masked_select(x, x > 4.5)
        (y * t.arange(float(y.numel()), dtype=t.float64)).sum().backward()
        o = t.empty(0, dtype=t.float64)
        t.masked_select(x.detach(), t.tensor([True, False, True, True]), out=o)
        return y, y.grad_fn.name(), x.grad, o

    check(prog)


def test_take_along_dim():
    m = lambda t: t.arange(6.0, dtype=t.float64).reshape(2, 3)  # noqa: E731
    check(lambda t: (t.take_along_dim(m(t), t.tensor([[0], [2]]), 1),
                     m(t).take_along_dim(t.tensor([[0, 1, 0]]), 1),
                     t.take_along_dim(m(t), t.tensor([0, 5])),
                     t.take_along_dim(m(t), t.tensor([[1, 0, 1]]), dim=0)))
    check(lambda t: t.take_along_dim(m(t), t.tensor([[0, 1]]), 0), raises=RuntimeError)
    check(lambda t: t.take_along_dim(m(t), t.tensor([[[0]]]), 0), raises=RuntimeError)
    check(lambda t: t.take_along_dim(m(t), t.tensor([[0]], dtype=t.int32), 0), raises=RuntimeError)

    def grad(t):
        x = m(t).requires_grad_()
        y = t.take_along_dim(x, t.tensor([[2, 2], [0, 1]]), 1)
        (y * t.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=t.float64)).sum().backward()
        return y.grad_fn.name(), x.grad

    check(grad)


def test_index_put_function_and_accumulate():
    def prog(t):
        x = t.zeros(3, 4, dtype=t.float64)
        i = (t.tensor([0, 2, 0]), t.tensor([1, 3, 1]))
        v = t.tensor([1.0, 2.0, 3.0], dtype=t.float64)
        return t.index_put(x, i, v, accumulate=True), t.index_put(x, (t.tensor([1]),), v[:1])

    check(prog)


def test_inplace_index_ops_share_views():
    def prog(t):
        base = t.zeros(3, 4)
        row = base[1]
        base.index_fill_(1, t.tensor([0, 2]), 5.0)
        base.index_copy_(0, t.tensor([2]), t.ones(1, 4))
        base.put_(t.tensor([0, 7]), t.tensor([9.0, 8.0]), accumulate=True)
        base.masked_scatter_(t.tensor([True, False, False, False]), t.tensor([-1.0, -2.0, -3.0]))
        base.scatter_reduce_(1, t.tensor([[0, 0], [1, 1], [3, 3]]), t.ones(3, 2), "sum")
        return base, row, base._version

    check(prog)


def test_scatter_reduce_integer_mean_floors():
    check(lambda t: t.ones(3, 4, dtype=t.int64).scatter_reduce(
        0, t.tensor([[0, 1, 0, 1]]), t.tensor([[5, 6, 8, 8]]), "mean"))


def test_searchsorted_scalar_and_int32():
    check(lambda t: (t.searchsorted(t.tensor([1.0, 2.0, 3.0]), 2),
                     t.searchsorted(t.tensor([1, 2, 3]), t.tensor([[2, 5]]), out_int32=True),
                     t.bucketize(t.tensor([[1.5, 3.5]]), t.tensor([1.0, 2.0, 3.0]), right=True)))


def test_index_with_numpy_and_uint8_masks():
    check(lambda t: _x(t)[np.array([1, 0])])
