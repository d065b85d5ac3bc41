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
