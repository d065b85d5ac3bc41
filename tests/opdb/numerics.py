"""Op database entries: numerical calculus, histograms, index builders, assembling ops."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

SKIP = {n: "factory: tests/test_numerics.py" for n in (
    "tril_indices", "triu_indices", "hann_window", "hamming_window", "blackman_window",
    "bartlett_window", "kaiser_window")}

_V = lambda d="float64": tensor((4,), d)  # noqa: E731
_M = lambda d="float64": tensor((3, 4), d)  # noqa: E731
_PTS = T(np.array([0.0, 1.0, 3.0, 4.0]), "float64")
_DATA = T(np.array([1.0, 2.0, 1.0, 2.5, 4.0]), "float32")
_ROWS = T(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]]), "float32")
_EDGES = T(np.array([0.0, 1.5, 2.0, 5.0]), "float32")


def _dd(t, x, bins, **kw):
    """histogramdd's bins: ints as they are, T's (built into tensors) as edges."""
    return t.histogramdd(x, bins, **kw)


def _index(data) -> T:
    return T(np.asarray(data, dtype=np.int64), "int64")


OPS: list[OpInfo] = [
    OpInfo("vander", lambda: [
        S(_V()), S(_V("int64"), 3), S(_V(), 5, True), S(_V("bool")), S(_V("float32"), 0),
        S(_V(), N=2, increasing=True),
    ], lambda: [S(_M()), S(_V(), -1)], grad=False,
        notes="PyTorch's own backward fails (its in-place cumprod modifies a saved tensor); "
              "jtorch's gradient: tests/test_numerics.py"),
    OpInfo("trapezoid", lambda: [
        S(_M()), S(_M(), dim=0), S(_M("int64")), S(_M(), _PTS), S(_M(), dx=2.5),
        S(_M(), _M(), dim=0), S(tensor((1,), "float64")), S(tensor((2, 0), "float32")),
    ], lambda: [S(_M(), _PTS, dx=2), S(_M(), 2), S(_M(), tensor((3,)))]),
    OpInfo("cumulative_trapezoid", lambda: [
        S(_M()), S(_M(), dim=0), S(_M("int64")), S(_M(), _PTS), S(_M(), dx=0.5),
        S(tensor((1,), "float64")),
    ], lambda: [S(_M(), _PTS, dx=2)]),
    OpInfo("gradient", lambda: [
        S(_V()), S(_V("int64")), S(_M(), spacing=2.0), S(_M(), spacing=[2.0, 3.0]),
        S(_V(), spacing=(_PTS,)), S(_V(), edge_order=2), S(_M(), dim=1),
        S(_M(), spacing=(_PTS,), dim=-1, edge_order=2), S(_M(), dim=[0, 1], edge_order=2),
    ], lambda: [S(tensor((1,))), S(tensor((2,)), edge_order=2), S(_M(), edge_order=3),
                S(_M(), spacing=[1.0, 2.0, 3.0])]),
    OpInfo("_histogram_bins", lambda: [
        S(_DATA, 3), S(_DATA, 3, range=(0.0, 3.0)), S(_DATA, 3, density=True),
        S(_DATA, 3, weight=T(np.arange(1.0, 6.0), "float32")),
        S(T(np.ones(3), "float64"), 2), S(T(np.ones((2, 3)), "float32"), bins=4),
    ], lambda: [S(tensor((5,), "int64"), 3), S(_DATA, 3, range=(3.0, 1.0)), S(_DATA, 0)],
        call=lambda t, *a, **k: t.histogram(*a, **k), grad=False),
    OpInfo("_histogram_edges", lambda: [
        S(_DATA, _EDGES), S(_DATA, _EDGES, density=True),
        S(_DATA, bins=_EDGES, weight=T(np.arange(1.0, 6.0), "float32")),
    ], call=lambda t, *a, **k: t.histogram(*a, **k), grad=False),
    OpInfo("histogram", lambda: [S(_DATA, 2), S(_DATA, _EDGES)], grad=False),
    OpInfo("_histogramdd_bins", lambda: [
        S(_ROWS, [3, 3], weight=T(np.array([1.0, 2.0, 4.0, 8.0]), "float32")),
        S(_ROWS, 2, range=[0.0, 1.0, 0.0, 1.0], density=True), S(_ROWS, (2, 1)),
    ], lambda: [S(tensor((3, 2), "int64"), 2)], call=_dd, grad=False),
    OpInfo("_histogramdd_edges", lambda: [
        S(_ROWS, [T(np.array([0.0, 1.0, 2.0]), "float32"), T(np.array([0.0, 2.0]), "float32")]),
    ], call=_dd, grad=False),
    OpInfo("_block_diag", lambda: [
        S(_M(), tensor((2,), "float64"), tensor((), "float64"), tensor((0, 3), "float64")),
        S(tensor((1, 2), "int64"), tensor((1, 1), "int32")), S(),
        S(tensor((2, 2), "float32"), tensor((3,), "int64")),
    ], lambda: [S(tensor((2, 2, 2)))], call=lambda t, *a: t.block_diag(*a)),
    OpInfo("_cartesian_prod", lambda: [
        S(_V("int64"), tensor((3,), "int64")), S(_V()), S(_V(), tensor((2,), "float64"),
                                                          tensor((3,), "float64")),
    ], lambda: [S(_V("int64"), tensor((3,))), S(_M())], call=lambda t, *a: t.cartesian_prod(*a)),
    OpInfo("combinations", lambda: [
        S(_V()), S(_V("int64"), 3), S(_V(), 0), S(_V(), with_replacement=True), S(_V(), 5),
        S(_V(), 1),
    ], lambda: [S(_V(), -1), S(_M())]),
    OpInfo("unravel_index", lambda: [
        S(_index([4, 1, 11]), (3, 4)), S(_index(5), (2, 3)), S(_index([-1, 6]), (2, 3)),
        S(T(np.array([1]), "int32"), (2, 3)), S(_index([1]), 6), S(_index(0), ()),
    ], lambda: [S(tensor((2,)), (2, 3)), S(_index([1]), (-2, 3))], grad=False),
    OpInfo("nonzero_static", lambda: [
        S(_index([[1, 0], [0, 1]]), size=3), S(_index([[1, 0], [0, 1]]), size=1, fill_value=5),
        S(_index(3), size=2), S(tensor((3, 4), "bool"), size=12),
    ], lambda: [S(_index([1]), size=-1)], grad=False),
    OpInfo("isin", lambda: [
        S(_index([[1, 2], [3, 4]]), _index([2, 3])), S(_index([[1, 2], [3, 4]]), _index([2]),
                                                       invert=True),
        S(2, _index([2, 3])), S(_index([[1, 2], [3, 4]]), 2),
        S(_index([[1, 2], [3, 4]]), T(np.array([2.5, 3.0]), "float32")),
        S(T(np.array([np.nan, 1.0]), "float64"), T(np.array([np.nan, 1.0]), "float64")),
        S(_index([1, 2]), T(np.zeros(0, np.int64), "int64")),
    ], lambda: [S(tensor((2,), "complex64"), tensor((2,), "complex64")),
                S(tensor((2,), "bool"), tensor((2,), "bool"))], grad=False),
    OpInfo("complex", lambda: [
        S(tensor((2, 3), "float32"), tensor((2, 3), "float32")),
        S(tensor((2, 3), "float64"), tensor((3,), "float64")),
    ], lambda: [S(tensor((2,), "float64"), tensor((2,), "float32")),
                S(tensor((2,), "int64"), tensor((2,), "int64"))], grad=False,
        notes="complex-output gradients: tests/test_numerics.py"),
    OpInfo("polar", lambda: [
        S(tensor((2, 3), "float32", "positive"), tensor((2, 3), "float32")),
        S(tensor((2, 3), "float64", "positive"), tensor((3,), "float64")),
    ], lambda: [S(tensor((2,), "int64"), tensor((2,), "int64"))], grad=False,
        notes="complex-output gradients: tests/test_numerics.py"),
    OpInfo("renorm", lambda: [
        S(_M(), 2, 0, 1.0), S(_M(), 1, 1, 1.5), S(_M(), float("inf"), 1, 1.0),
        S(tensor((2, 3, 4), "float32"), 3, -1, 2.0), S(_M(), 2, 0, 100.0),
    ], lambda: [S(tensor((2, 3), "int64"), 2, 0, 5), S(_M(), -1, 0, 5), S(_M(), 2, 0, -5),
                S(tensor((3,)), 2, 0, 1)]),
    OpInfo("norm_except_dim", lambda: [
        S(_M()), S(_M(), 2, 1), S(_M(), 2, -1), S(_M(), 1, 0), S(tensor((2, 3, 4), "float64"),
                                                                 2, 1),
    ]),
    OpInfo("index_reduce", lambda: [
        S(T(np.ones((3, 2)), "float64"), 0, _index([0, 2, 0, 1]), tensor((4, 2), "float64"), r)
        for r in ("prod", "mean", "amax", "amin")] + [
        S(T(np.ones((3, 2)), "float64"), 0, _index([0, 2, 0, 1]), tensor((4, 2), "float64"),
          "amin", include_self=False),
        S(T(np.ones((2, 3)), "float32"), 1, _index([2, 2]), tensor((2, 2), "float32"), "mean",
          include_self=False),
        S(T(np.ones((3, 2)), "int64"), 0, _index([0, 2, 0, 1]), tensor((4, 2), "int64"), "mean"),
    ], lambda: [
        S(tensor((3, 2)), 0, _index([0]), tensor((1, 2)), "sum"),
        S(tensor((3, 2)), 0, _index([5]), tensor((1, 2)), "prod"),
        S(tensor((3, 2)), 0, _index([0]), tensor((1, 2), "float64"), "prod"),
        S(tensor((3, 2)), 0, tensor((1,)), tensor((1, 2)), "prod"),
    ], grad_samples=4),
]

_SEG = lambda: T(np.arange(1.0, 7.0), "float64")  # noqa: E731
OPS.append(OpInfo("segment_reduce", lambda: [
    S(_SEG(), r, lengths=_index([2, 0, 3, 1])) for r in ("sum", "mean", "max", "min", "prod")
] + [
    S(_SEG(), "amax", lengths=_index([2, 0, 3, 1]), initial=10.0),
    S(_SEG(), "mean", lengths=_index([2, 0, 3, 1]), initial=10.0),
    S(_SEG(), "sum", offsets=_index([0, 2, 2, 5, 6])),
    S(T(np.arange(6.0).reshape(2, 3), "float64"), "sum", lengths=_index([[1, 2], [3, 0]]),
      axis=1),
    S(T(np.arange(12.0).reshape(6, 2), "float32"), "min", lengths=_index([2, 0, 3, 1])),
], lambda: [
    S(_SEG(), "sum", indices=_index([2, 0, 3, 1])), S(_SEG(), "foo", lengths=_index([6])),
    S(_SEG(), "sum", lengths=_index([2, 2])), S(_SEG(), "sum"),
    S(T(np.arange(6), "int64"), "sum", lengths=_index([6])),
    S(_SEG(), "sum", lengths=_index([6]), axis=1),
], grad_samples=3))
