"""Op database entries: matrix products and linear algebra."""

from __future__ import annotations

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []


def _mm_samples():
    return [
        S(tensor((2, 3)), tensor((3, 4))),
        S(tensor((2, 3), "float64"), tensor((3, 4), "float64")),
        S(tensor((3,), "float64"), tensor((3,), "float64")),
        S(tensor((3,), "float64"), tensor((3, 4), "float64")),
        S(tensor((2, 3), "float64"), tensor((3,), "float64")),
        S(tensor((2, 2, 3), "float64"), tensor((3, 4), "float64")),
        S(tensor((2, 1, 2, 3), "float64"), tensor((3, 3, 2), "float64")),
        S(tensor((3,), "float64"), tensor((2, 3, 4), "float64")),
        S(tensor((2, 3), "int64"), tensor((3, 4), "int64")),
    ]


OPS.append(OpInfo("matmul", _mm_samples, lambda: [
    S(tensor((2, 3)), tensor((3, 4), "float64")), S(tensor((2, 3)), tensor((2, 3))),
    S(tensor((3,)), tensor((4,))), S(tensor(())), S(tensor((2, 2, 3)), tensor((3, 3, 4))),
    S(tensor((2, 2), "bool"), tensor((2, 2), "bool")),
], tol=dict(rtol=1e-5, atol=1e-5)))

OPS.append(OpInfo("mm", lambda: _mm_samples()[:2] + [_mm_samples()[-1]], lambda: [
    S(tensor((2, 3)), tensor((3, 4), "float64")), S(tensor((2, 3)), tensor((3,))),
    S(tensor((3,)), tensor((3, 2))), S(tensor((2, 3)), tensor((2, 3))),
], tol=dict(rtol=1e-5, atol=1e-5)))
