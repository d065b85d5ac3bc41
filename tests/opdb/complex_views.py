"""Op database entries: view_as_real / view_as_complex (the views behind real, imag, conj)."""

from __future__ import annotations

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = [
    OpInfo("view_as_real", lambda: [
        S(tensor((2, 3), "complex64")), S(tensor((2, 3), "complex128")),
        S(tensor((), "complex128")),
    ], lambda: [S(tensor((2, 3)))], strides=True, grad=False,
        notes="complex-input gradients: tests/test_complex_views.py"),
    OpInfo("view_as_complex", lambda: [
        S(tensor((3, 2), "float32")), S(tensor((2, 3, 2), "float64")), S(tensor((2,), "float64")),
    ], lambda: [S(tensor((3, 3))), S(tensor((3, 2), "int64")), S(tensor(())),
                S(tensor((2, 3)))], strides=True),
]
