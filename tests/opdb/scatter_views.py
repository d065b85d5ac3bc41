"""Op database entries: the *_scatter ops and fill_diagonal_."""

from __future__ import annotations

from opdb.core import *  # noqa: F403 - the entry vocabulary

_M = tensor((3, 4), "float64")
_X = tensor((2, 3, 4), "float64")


def _strided(t, x, *a, transposed=False, **k):
    """``transposed``: on a copy of x whose memory holds its dims in the other order."""
    if transposed:
        x = x.t().contiguous().t()
    return t.as_strided_scatter(x, *a, **k)


def _fill_diagonal(t, x, value, wrap=False):
    return x.clone().fill_diagonal_(value, wrap)


OPS: list[OpInfo] = [
    OpInfo("select_scatter", lambda: [
        S(_M, tensor((4,), "float64"), 0, 1), S(_M, tensor((3,), "float64"), 1, -1),
        S(_X, tensor((2, 4), "float64"), 1, 2), S(tensor((3, 4), "float32"),
                                                 tensor((4,), "int64"), 0, 0),
        S(tensor((3,), "float64"), tensor((), "float64"), 0, 2),
    ], lambda: [S(_M, tensor((3,)), 0, 1), S(_M, tensor((4,)), 0, 3), S(_M, tensor((4,)), 2, 0),
                S(_M, tensor((1,)), 0, 1)]),
    OpInfo("slice_scatter", lambda: [
        S(_M, tensor((2, 4), "float64"), 0, 1), S(_M, tensor((3, 2), "float64"), 1, 0, None, 2),
        S(_M, tensor((3, 2), "float64"), dim=1, start=-2), S(_M, tensor((3, 4), "float64"),
                                                             1, -10, 100),
        S(_M, tensor((3, 0), "float64"), 1, 3, 1), S(_M, tensor((3, 4), "int64")),
    ], lambda: [S(_M, tensor((3, 3)), 1, 0, 2), S(_M, tensor((3, 2)), 1, 0, 2, 0)]),
    OpInfo("diagonal_scatter", lambda: [
        S(_M, tensor((3,), "float64")), S(_M, tensor((3,), "float64"), 1),
        S(_M, tensor((2,), "float64"), -1), S(_X, tensor((3, 2), "float64"), 0, 0, 2),
        S(_X, tensor((2, 3), "float64"), 0, -1, 1),
    ], lambda: [S(_M, tensor((2,))), S(_M, tensor((3,)), 0, 1, 1)]),
    OpInfo("_as_strided_scatter", lambda: [
        S(_M, tensor((2, 2), "float64"), (2, 2), (1, 4), 1),
        S(tensor((4,), "float64"), tensor((2, 2), "float64"), (2, 2), (1, 1), 0),
        S(_M, tensor((3,), "float64"), (3,), (4,)),
        S(tensor((3, 4), "float32"), tensor((2,), "int64"), (2,), (5,), storage_offset=2),
        S(_M, tensor((2, 2), "float64"), (2, 2), (1, 4), 1, transposed=True),
    ], lambda: [S(_M, tensor((3, 2)), (2, 2), (1, 4), 1), S(_M, tensor((2, 2)), (2, 2),
                                                            (1, 40), 1)],
        call=_strided, xfail={"grad": "PyTorch's gradient w.r.t. input is nonzero exactly where "
                                      "src overwrote it (its formula is wrong); jtorch's is the "
                                      "derivative, see test_shape_inplace.py"}),
    OpInfo("_fill_diagonal", lambda: [
        S(_M, 2.5), S(tensor((5, 3), "float64"), -1.0, True), S(tensor((7, 3), "float64"), 1, True),
        S(tensor((5, 3), "float64"), 2.0), S(tensor((2, 2, 2), "float64"), 3),
        S(tensor((3, 4), "int64"), 7), S(tensor((3, 3), "bool"), True),
    ], lambda: [S(tensor((3,)), 1.0), S(tensor((2, 2, 3)), 1.0)], call=_fill_diagonal),
]
