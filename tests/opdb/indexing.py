"""Op database entries: indexing, scatter and gather."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
_X = tensor((2, 3, 4), "float64")
_M = tensor((3, 4), "float64")
OPS += [
    OpInfo("_index", lambda: [
        S(_X, idx([1, 0, 1])), S(_M, T(np.array([True, False, True]), "bool")),
        S(_M, (slice(None), idx([[0, 3], [1, 1]]))), S(_X, (idx([0, 1]), 1, idx([3, 2]))),
    ], lambda: [S(_M, idx([3]))], call=lambda t, x, i: x[i]),
    OpInfo("_index_put", lambda: [
        S(tensor((3, 4), "float64"), idx([2, 0]), tensor((4,), "float64")),
        S(tensor((3, 4), "float64"), (slice(None), idx([1, 3])), 2.5),
        S(tensor((3, 4), "int64"), T(np.array([True, False, True]), "bool"), 7),
    ], lambda: [S(_M, idx([0]), tensor((3,)))], call=lambda t, x, i, v: _setitem(x, i, v)),
    OpInfo("index_add", lambda: [
        S(tensor((3, 4), "float64"), 0, idx([2, 0, 2]), tensor((3, 4), "float64")),
        S(tensor((3, 4), "float64"), 1, idx([1, 3]), tensor((3, 2), "float64"), alpha=2),
        S(tensor((3, 4), "int64"), -1, idx([0]), tensor((3, 1), "int64")),
    ], lambda: [S(_M, 0, idx([[0]]), tensor((1, 1, 4)))]),
    OpInfo("scatter", lambda: [
        S(tensor((3, 4), "float64"), 1, idx([[0, 1], [3, 2], [1, 0]]),
          tensor((3, 2), "float64")),
        S(tensor((3, 4), "float64"), 0, idx([[2, 0, 1, 0]]), tensor((1, 4), "float64")),
        S(tensor((3, 4), "float64", grad=False), 1, idx([[1], [2], [0]]),  # no derivative
          tensor((3, 1), "float64", grad=False), reduce="add"),
    ], lambda: [S(_M, 1, idx([1, 2]), tensor((2,)))]),
    OpInfo("scatter_add", lambda: [
        S(tensor((3, 4), "float64"), 1, idx([[0, 0], [3, 2], [1, 1]]),
          tensor((3, 2), "float64")),
        S(tensor((3, 4), "int64"), 0, idx([[2, 0, 2, 0]]), tensor((1, 4), "int64")),
    ], lambda: [S(_M, 1, idx([1, 2]), tensor((2,)))]),
    OpInfo("gather", lambda: [
        S(tensor((3, 4), "float64"), 1, idx([[0, 0], [3, 2], [1, 1]])),
        S(tensor((3, 4), "float64"), 0, idx([[2, 0, 2, 0], [1, 1, 1, 1]])),
        S(tensor((3, 4), "int64"), -1, idx([[0], [1], [2]])),
    ], lambda: [S(_M, 1, idx([1, 2]))]),
    OpInfo("masked_fill", lambda: [
        S(tensor((3, 4), "float64"), tensor((3, 4), "bool"), 2.5),
        S(tensor((3, 4), "float64"), tensor((4,), "bool"), tensor((), "float64")),
        S(tensor((3, 4), "int64"), tensor((3, 1), "bool"), 7),
    ], lambda: [S(_M, tensor((3, 4), "int64"), 1.0), S(_M, tensor((3, 4), "bool"),
                                                       tensor((2,), "float64"))]),
]


def _setitem(x, i, v):
    x = x.clone()
    x[i] = v
    return x


_B = tensor((3, 4), "bool")
OPS += [
    OpInfo("index_select", lambda: [
        S(tensor((3, 4), "float64"), 0, idx([2, 0, 2])),
        S(tensor((3, 4), "float64"), -1, idx([1])),
        S(tensor((3, 4), "int64"), 1, T(np.array([3, 0], np.int32), "int32")),
        S(tensor((3, 4), "float64"), 0, idx(1)),
    ], lambda: [S(_M, 0, idx([[0]])), S(_M, 0, idx([3])), S(_M, 0, idx([-1])),
                S(_M, 0, tensor((1,)))]),
    OpInfo("index_copy", lambda: [
        S(tensor((3, 4), "float64"), 0, idx([2, 0]), tensor((2, 4), "float64")),
        S(tensor((3, 4), "float64"), 1, idx([3]), tensor((3, 1), "float64")),
        S(tensor((3, 4), "int64"), -1, idx([1, 0]), tensor((3, 2), "int64")),
    ], lambda: [S(_M, 0, idx([[0]]), tensor((1, 4), "float64")),
                S(_M, 0, idx([0]), tensor((1, 4), "float32")),
                S(_M, 0, idx([0, 1]), tensor((1, 4), "float64")),
                S(_M, 0, idx([5]), tensor((1, 4), "float64")),
                S(_M, 0, idx([0]), tensor((1, 3), "float64"))]),
    OpInfo("index_fill", lambda: [
        S(tensor((3, 4), "float64"), 0, idx([2, 0]), 1.5),
        S(tensor((3, 4), "float64"), 1, idx([3]), tensor((), "float64")),
        S(tensor((3, 4), "int64"), 1, idx([1, -1]), 7),  # torch's backward rejects -1
    ], lambda: [S(_M, 0, idx([5]), 1.0), S(_M, 0, idx([[0]]), 1.0),
                S(_M, 0, idx([0]), tensor((2,), "float64"))]),
    OpInfo("take", lambda: [
        S(tensor((3, 4), "float64"), idx([0, 11, -1, 5])),
        S(tensor((3, 4), "int64"), idx([[1, 2], [3, 3]])),
        S(tensor((3, 4), "float64"), idx(7)),
    ], lambda: [S(_M, idx([12])), S(_M, idx([-13])),
                S(_M, T(np.array([1], np.int32), "int32"))]),
    OpInfo("put", lambda: [
        S(tensor((3, 4), "float64"), idx([0, 11, -1]), tensor((3,), "float64")),
        S(tensor((3, 4), "float64"), idx([1, 1, 2]), tensor((3,), "float64"),
          accumulate=True),
        S(tensor((3, 4), "int64"), idx([[1], [5]]), tensor((2,), "int64")),
    ], lambda: [S(_M, idx([12]), tensor((1,), "float64")),
                S(_M, idx([1, 2]), tensor((3,), "float64")),
                S(_M, idx([1]), tensor((1,), "float32"))]),
    OpInfo("masked_scatter", lambda: [
        S(tensor((3, 4), "float64"), _B, tensor((12,), "float64")),
        S(tensor((3, 4), "float64"), tensor((4,), "bool"), tensor((4, 4), "float64")),
        S(tensor((3, 4), "int64"), tensor((3, 1), "bool"), tensor((12,), "int64")),
    ], lambda: [S(_M, T(np.ones((3, 4), bool), "bool"), tensor((5,), "float64")),
                S(_M, tensor((3, 4), "int64"), tensor((12,), "float64")),
                S(_M, _B, tensor((12,), "float32"))]),
    OpInfo("_masked_select", lambda: [
        S(tensor((3, 4), "float64"), _B),
        S(tensor((4,), "float64"), tensor((3, 4), "bool")),
        S(tensor((3, 4), "int64"), tensor((3, 1), "bool")),
    ], lambda: [S(_M, tensor((3, 4), "int64")), S(_M, tensor((3,), "bool"))],
        call=lambda t, x, m: t.masked_select(x, m)),
    OpInfo("scatter_reduce", lambda: [
        S(tensor((3, 4), "float64"), 0, idx([[0, 1, 0, 1], [0, 0, 2, 1]]),
          tensor((2, 4), "float64"), reduce)
        for reduce in ("sum", "prod", "mean", "amax", "amin")
    ] + [
        S(tensor((3, 4), "float64"), 1, idx([[0, 0], [3, 2], [1, 1]]),
          tensor((3, 2), "float64"), "amax", include_self=False),
        S(tensor((3, 4), "float64"), 1, idx([[0, 0], [3, 2], [1, 1]]),
          tensor((3, 2), "float64"), "mean", include_self=False),
        S(tensor((3, 4), "int64"), 0, idx([[0, 1, 0, 1]]), tensor((1, 4), "int64"), "mean"),
        S(tensor((3, 4), "int64"), 0, idx([[0, 1, 0, 1]]), tensor((1, 4), "int64"), "prod",
          include_self=False),
        S(T(np.array([[0.0, 2.0], [1.0, 0.0]]), "float64"), 0, idx([[1, 1], [1, 0]]),
          T(np.array([[0.0, 3.0], [2.0, 0.0]]), "float64"), "prod"),
        S(T(np.array([[1.0, 2.0], [1.0, 3.0]]), "float64"), 0, idx([[0, 1], [0, 1]]),
          T(np.array([[1.0, 3.0], [0.5, 3.0]]), "float64"), "amax"),
    ], lambda: [S(_M, 0, idx([[0]]), tensor((1, 1), "float64"), "foo"),
                S(_M, 0, idx([[5]]), tensor((1, 1), "float64"), "sum"),
                S(_M, 0, idx([[0]]), tensor((1, 1), "float32"), "sum")], grad_samples=11),
]
