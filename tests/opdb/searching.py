"""Op database entries: searchsorted and bucketize."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

_SEQ = T(np.array([1.0, 2.0, 2.0, 3.0, 5.0]), "float64")
_V = T(np.array([[2.0, 4.0, 0.0], [6.0, np.nan, 2.0]]), "float64")
_ROWS = T(np.array([[1.0, 3.0, 5.0], [0.0, 2.0, 2.0]]), "float64")
OPS: list[OpInfo] = [
    OpInfo("searchsorted", lambda: [
        S(_SEQ, _V), S(_SEQ, _V, right=True), S(_SEQ, _V, side="right"),
        S(_SEQ, 2.5, out_int32=True), S(_ROWS, _V),
        S(T(np.array([1, 2, 3]), "int64"), _V),
        S(T(np.array([3.0, 1.0, 2.0]), "float64"), _V, sorter=idx([1, 2, 0])),
    ], lambda: [S(_SEQ, _V, side="left", right=True), S(_SEQ, _V, side="foo"),
                S(_ROWS, tensor((3,), "float64")), S(tensor((), "float64"), _V),
                S(_SEQ, _V, sorter=idx([0, 1, 2])),
                S(_SEQ, _V, sorter=T(np.arange(5, dtype=np.int32), "int32")),
                S(_SEQ, _V, sorter=idx([0, 1, 2, 3, 9]))],
        grad=False, out_sample=lambda s: not isinstance(s.args[1], float)),
    OpInfo("bucketize", lambda: [
        S(_V, _SEQ), S(_V, _SEQ, right=True), S(3, _SEQ), S(_V, _SEQ, out_int32=True),
    ], lambda: [S(_V, _ROWS)], grad=False,
        out_sample=lambda s: not isinstance(s.args[0], int)),
]
