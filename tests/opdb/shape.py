"""Op database entries: views and joining."""

from __future__ import annotations

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
def _view(*samples, errors=()):
    return dict(samples=lambda: list(samples), errors=lambda: list(errors), strides=True)


_X = tensor((2, 3, 4), "float64")
_M = tensor((3, 4), "float64")
OPS += [
    OpInfo("view", **_view(S(_X, (6, 4)), S(_X, (-1,)), S(_X, (4, -1, 2)), S(_M, (12,)),
                           S(tensor((), "float64"), (1,)), S(tensor((2, 3), "int64"), (3, 2)),
                           errors=[S(_X, (5, 5)), S(_X, (-1, -1))])),
    OpInfo("transpose", **_view(S(_X, 0, 1), S(_X, -1, 0), S(_M, 1, 1),
                                S(tensor((), "float64"), 0, -1), errors=[S(_X, 0, 3)])),
    OpInfo("t", **_view(S(_M), S(tensor((3,), "float64")), S(tensor((), "float64")),
                        errors=[S(_X)])),
    OpInfo("permute", **_view(S(_X, (2, 0, 1)), S(_X, (-1, 1, 0)), S(_M, (0, 1)),
                              errors=[S(_X, (0, 1)), S(_X, (0, 0, 1))])),
    OpInfo("expand", **_view(S(tensor((3, 1), "float64"), (2, 3, 4)),
                             S(tensor((3, 1), "float64"), (-1, 5)),
                             S(tensor((), "float64"), (2, 2)),
                             errors=[S(tensor((3, 2)), (3, 4)), S(_M, (4,))])),
    OpInfo("squeeze", **_view(S(tensor((2, 1, 3, 1), "float64")),
                              S(tensor((2, 1, 3, 1), "float64"), 1),
                              S(tensor((2, 1, 3, 1), "float64"), -1),
                              S(tensor((2, 1, 3, 1), "float64"), 0),
                              S(tensor((2, 1, 3, 1), "float64"), (1, 3)),
                              S(tensor((), "float64")), errors=[S(_M, 2)])),
    OpInfo("unsqueeze", **_view(S(_M, 0), S(_M, -1), S(_M, 1), S(tensor((), "float64"), 0),
                                errors=[S(_M, 3)])),
    OpInfo("select", **_view(S(_X, 0, 1), S(_X, 2, -1), S(_M, 1, 3),
                             errors=[S(_M, 0, 3), S(_M, 2, 0)])),
    OpInfo("narrow", **_view(S(_X, 0, 1, 1), S(_X, 2, 1, 2), S(_M, -1, 0, 4),
                             S(_M, 0, -2, 2), errors=[S(_M, 0, 2, 2)])),
    OpInfo("diagonal", **_view(S(_M), S(_M, 1), S(_M, -1), S(_X, 0, 0, 2),
                               S(_X, 1, -1, 1), errors=[S(_M, 0, 0, 0)])),
    OpInfo("unfold", **_view(S(_M, 1, 2, 1), S(_M, 0, 2, 1), S(_X, -1, 3, 2),
                             errors=[S(_M, 0, 5, 1)])),
    OpInfo("cat", lambda: [
        S([tensor((2, 3)), tensor((1, 3))]),
        S([tensor((2, 3), "float64"), tensor((2, 2), "float64")], 1),
        S((tensor((2, 3), "float64"), tensor((2, 3), "int64")), dim=-1),
        S([tensor((2, 3), "float64"), tensor((0,), "float64")]),
        S([tensor((2, 3), "int64")]),
    ], lambda: [S([tensor((2, 3)), tensor((2, 2))]), S([tensor(()), tensor(())]),
                S([tensor((2, 3)), tensor((3,))]), S([tensor((2, 3))], 2)]),
    OpInfo("stack", lambda: [
        S([tensor((2, 3)), tensor((2, 3))]),
        S([tensor((2, 3), "float64"), tensor((2, 3), "float64")], 2),
        S((tensor((2, 3), "float64"), tensor((2, 3), "int64")), dim=-1),
        S([tensor((), "float64"), tensor((), "float64")]),
    ], lambda: [S([tensor((2, 3)), tensor((3, 2))]), S([]), S([tensor((2,))], 2)]),
]

# ------------------------------------------------------------------ copying movement ops
_I = tensor((3, 4), "int64")
OPS += [
    OpInfo("flip", lambda: [S(_X, (0, 2)), S(_M, [-1]), S(_I, (0, 1)), S(_M, ())],
           lambda: [S(_M, (0, 0)), S(_M, (2,)), S(_M, 0)]),
    OpInfo("fliplr", lambda: [S(_M), S(_X), S(_I)], lambda: [S(tensor((3,)))]),
    OpInfo("flipud", lambda: [S(_M), S(tensor((3,), "float64")), S(_I)],
           lambda: [S(tensor(()))]),
    OpInfo("roll", lambda: [S(_X, 1), S(_X, (1, -2), (0, 2)), S(_M, -1, 1), S(_I, 5),
                            S(_M, 2, dims=0)],
           lambda: [S(_M, (1, 2), 0), S(_M, (1, 2)), S(_M, 1, 2)]),
    OpInfo("rot90", lambda: [S(_M), S(_M, 2), S(_M, -1), S(_X, 1, (2, 0)), S(_I, 3, [1, 0]),
                             S(_M, 0)],
           lambda: [S(_M, 1, (0, 0)), S(tensor((3,))), S(_M, 1, (0, 1, 2))]),
    OpInfo("repeat", lambda: [S(_M, (2, 1)), S(_M, (1, 2, 1)), S(tensor((), "float64"), (3,)),
                              S(_I, (2, 2))],
           lambda: [S(_M, (2,)), S(_M, (-1, 2))]),
    OpInfo("narrow_copy", lambda: [S(_M, 0, 1, 2), S(_X, -1, 2, 2), S(_I, 1, -3, 2),
                                   S(_M, 0, 3, 0)],
           lambda: [S(_M, 0, 4, 1), S(_M, 0, 2, 2), S(tensor(()), 0, 0, 1)]),
]
