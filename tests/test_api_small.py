"""Small things real scripts touch: indexing with a range or any sequence, and a sparse
COO tensor on either side of @ / torch.matmul with a vector or matrix, against PyTorch."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from conftest import check, error_of, raising

INDEXES = {
    "range": lambda t: range(2), "range-step": lambda t: range(0, 3, 2),
    "range-negative": lambda t: range(-2, 0), "range-empty": lambda t: range(0),
    "two-ranges": lambda t: (range(2), range(1, 3)), "range-in-tuple": lambda t: (
        slice(None), range(1, 3)),
    "ellipsis-range": lambda t: (Ellipsis, range(2)), "none-range": lambda t: (None, range(2)),
    "deque": lambda t: collections.deque([0, 2]), "numpy": lambda t: np.array([2, 0]),
    "string": raising(TypeError, lambda t: "a"),
}


@pytest.mark.parametrize("name", INDEXES)
def test_index_with_a_sequence(name):
    def prog(t):
        x = t.arange(12.0).reshape(3, 4)
        y = x[INDEXES[name](t)]
        x[INDEXES[name](t)] = -1.0
        return y, x

    e, a = check(prog, raises=error_of(INDEXES[name]))
    if isinstance(e, Exception):
        assert str(a) == str(e)


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
@pytest.mark.parametrize("call", [
    lambda t, s: s @ t.arange(6.0).reshape(3, 2), lambda t, s: t.matmul(s, t.ones(3)),
    lambda t, s: s @ t.tensor([1.0, 2.0, 3.0]), lambda t, s: t.tensor([1.0, 2.0]) @ s,
    lambda t, s: t.matmul(t.ones(2), s), lambda t, s: s.matmul(t.ones(3, 1)),
], ids=["sparse@matrix", "matmul-vector", "sparse@vector", "vector@sparse",
        "matmul-vector-left", "method"])
def test_sparse_matmul(call):
    def prog(t):
        s = t.sparse_coo_tensor(t.tensor([[0, 1, 1], [2, 0, 2]]), t.tensor([3.0, 4.0, 5.0]),
                                (2, 3))
        return call(t, s)

    check(prog)
