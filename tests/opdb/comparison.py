"""Op database entries: comparisons, predicates, logical and bitwise ops, clamping."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

_NAN, _INF = float("nan"), float("inf")
_ARITH_ERR = broadcast_error()
_SPECIALS = lambda d="float32": T(np.array([_NAN, _INF, -_INF, 0.0, -0.0, 1.5]), d)  # noqa: E731

OPS: list[OpInfo] = []
for _name, _dts in (("eq", ("float32", "int64", "bool", "uint8")), ("ne", ("float32", "bool")),
                    ("lt", ("float32", "int64", "uint8")), ("le", ("float32", "int64")),
                    ("gt", ("float32", "bool")), ("ge", ("int64", "float32"))):
    OPS.append(OpInfo(_name, binary(dtypes=_dts, kind="ties", scalars=(2.5,)), _ARITH_ERR,
                      grad=False))
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    OPS.append(OpInfo(_name, binary(dtypes=("int64", "bool", "uint8"),
                                    scalars=(3, True), wide="int64"), broadcast_error(
        S(tensor((3,), "float32"), tensor((3,), "int64"))), grad=False))
for _name in ("logical_and", "logical_or", "logical_xor"):
    OPS.append(OpInfo(_name, binary(dtypes=("float32", "int64", "bool"), kind="ties",
                                    scalars=()),
                      broadcast_error(S(tensor((3,)), 2), S(1.5, tensor((3,)))), grad=False))


def _shifts():
    big = T(np.array([[-8, -1, 5, 7], [100, -100, 1, 3]]), "int64")
    amounts = T(np.array([[1, 70, -1, 0], [63, 64, 62, 2]]), "int64")
    return [
        S(big, amounts), S(tensor((2, 3), "int32"), 3),
        S(T(np.array([200, 1, 128, 7]), "uint8"), T(np.array([9, 7, 1, 8]), "uint8")),
        S(T(np.array([100, -100, 3]), "int8"), 2),
        S(tensor((2, 1), "int64", "positive"), tensor((3,), "int32", "positive")),
        S(tensor((2, 3), "bool"), 1),  # after the first five, which test_dunders takes
        S(1, tensor((2, 3), "int64", "positive")),
    ]


def _tensor_first(s: Sample) -> bool:
    return bool(leaves(s.args[:1]))


_SHIFT_ERR = broadcast_error(S(tensor((3,)), 1), S(tensor((3,), "bool"), tensor((3,), "bool")),
                             S(tensor((3,), "int64"), 1.5))
OPS += [
    OpInfo("bitwise_not", lambda: unary(("int64", "bool", "uint8", "int8"))()[:4],
           lambda: [S(tensor((3,), "float32"))], grad=False),
    OpInfo("bitwise_left_shift", _shifts, _SHIFT_ERR, grad=False, out_sample=_tensor_first),
    OpInfo("bitwise_right_shift", _shifts, _SHIFT_ERR, grad=False, out_sample=_tensor_first),
    OpInfo("logical_not", unary(("float32", "int64", "bool"), kind="ties"), grad=False),
    OpInfo("maximum", binary(dtypes=("float32", "int64", "bool"), kind="ties",
                             scalars=()), broadcast_error(
        S(tensor((3,), "complex64"), tensor((3,), "complex64")), S(tensor((3,)), 2))),
    OpInfo("minimum", binary(dtypes=("float32", "int64"), kind="ties",
                             scalars=()), broadcast_error(S(tensor((3,)), 2.5))),
]

# ------------------------------------------------------------------ fmax, fmin, clamp


def _nan_pair():
    a = T(np.array([_NAN, 1.0, _NAN, 2.0, 0.0, -1.0]), "float32")
    b = T(np.array([2.0, _NAN, _NAN, 2.0, -0.0, 3.0]), "float32")
    return S(a, b)


for _name in ("fmax", "fmin"):
    OPS.append(OpInfo(_name, lambda: binary(dtypes=("float32", "int64", "bool"), kind="ties",
                                            scalars=())() + [_nan_pair()],
                      broadcast_error(S(tensor((3,)), 2),
                                      S(tensor((3,), "complex64"), tensor((3,), "complex64")))))


def _clamp_samples():
    x64 = T(np.array([[-2.0, -1.0, 0.0], [0.5, 1.0, 3.0]]), "float64")
    return [
        S(x64, -1.0, 1.0), S(x64, min=0.0), S(x64, max=0.5), S(x64, 1.0, -1.0),
        S(x64, T(np.array([-1.0, 0.0, 0.5]), "float64"), T(np.array(1.0), "float64")),
        S(x64, T(np.array([[0.0], [2.0]]), "float64"), T(np.array([0.0, 1.0, 0.5]), "float64")),
        S(x64, max=T(np.array([-2.0, 0.0, 3.0]), "float64")),
        S(tensor((2, 3), "float32"), T(np.zeros((2, 1, 3)), "float32")),
        S(tensor((2, 3), "int64"), -1, 2), S(tensor((2, 3), "int64"), 0.5),
        S(tensor((2, 3), "bool"), 0, 1),
        S(tensor((2, 3), "bool"), tensor((2, 3), "bool")),
        S(_SPECIALS(), -1.0, 1.0), S(_SPECIALS(), _NAN, 1.0),
        S(tensor((2, 3), "float16"), -0.5, 0.5),
    ]


_CLAMP_ERR = lambda: [  # noqa: E731
    S(tensor((3,))), S(tensor((3,), "complex64"), 0, 1), S(tensor((3,), "bool"), True, True),
    S(tensor((3,), "bool"), tensor((3,), "bool"), tensor((3,), "bool")),
    S(tensor((3,)), tensor((4,))),
]
OPS += [
    OpInfo("clamp", _clamp_samples, _CLAMP_ERR, grad_samples=4),
    OpInfo("clamp_min", lambda: _bound_samples("max"), lambda: [
        S(tensor((3,), "bool"), True), S(tensor((3,)), tensor((4,)))], grad_samples=2),
    OpInfo("clamp_max", lambda: _bound_samples("min"), lambda: [
        S(tensor((3,), "complex64"), 1), S(tensor((3,)), tensor((4,)))], grad_samples=2),
]


def _bound_samples(skip):
    """One-bound samples: number and tensor bounds (ties included), a bound that broadcasts
    the result, integer promotion, NaN."""
    x64 = T(np.array([[-2.0, -1.0, 0.0], [0.5, 1.0, 3.0]]), "float64")
    return [
        S(x64, 0.5 if skip == "max" else -1.0),
        S(x64, T(np.array([-1.0, 0.0, 3.0]), "float64")),
        S(tensor((2, 3), "float32"), T(np.zeros((2, 1, 3)), "float32")),
        S(tensor((2, 3), "int64"), 0.5), S(tensor((2, 3), "bool"), 0),
        S(_SPECIALS(), 1.0), S(_SPECIALS(), _NAN),
    ]


# ------------------------------------------------------------------ predicates


def _predicate_samples():
    return [S(_SPECIALS()), S(_SPECIALS("float16")), S(tensor((2, 3), "int64")),
            S(tensor((2, 3), "bool")), S(tensor((), "float64")), S(tensor((0, 2), "float32")),
            S(T(np.array([complex(_NAN, 0), complex(0, _INF), 1 + 0j, 2j]), "complex64"))]


for _name in ("isnan", "isinf", "isfinite", "isreal"):
    OPS.append(OpInfo(_name, _predicate_samples, grad=False))
for _name in ("isposinf", "isneginf"):
    OPS.append(OpInfo(_name, lambda: _predicate_samples()[:-1],
                      lambda: [S(tensor((3,), "complex64"))], grad=False))


def _isclose_samples():
    a = T(np.array([1.0, 1.0001, _INF, _NAN, -_INF, 0.0, 1e-9]), "float32")
    b = T(np.array([1.0, 1.0, _INF, _NAN, _INF, 1e-9, 0.0]), "float32")
    u = T(np.array([0, 10, 255, 3]), "uint8")
    v = T(np.array([1, 9, 0, 3]), "uint8")
    return [
        S(a, b), S(a, b, equal_nan=True), S(a, b, 1e-3, 1e-3), S(a, b, rtol=0, atol=0),
        S(tensor((2, 1), "float64"), tensor((3,), "float64"), atol=1.0),
        S(u, v, rtol=0, atol=1), S(tensor((2, 3), "int64"), tensor((2, 3), "int64"), atol=2),
        S(tensor((2, 3), "bool"), tensor((2, 3), "bool")),
        S(T(np.array([1 + 1j, _NAN]), "complex64"), T(np.array([1 + 1.0000001j, _NAN]),
                                                       "complex64"), equal_nan=True),
    ]


OPS.append(OpInfo("isclose", _isclose_samples, lambda: [
    S(tensor((3,)), tensor((3,), "float64")), S(tensor((3,)), 1.0),
    S(tensor((3,)), tensor((3,)), rtol=-1.0), S(tensor((3,)), tensor((3,)), atol=-1.0),
    S(tensor((3,)), tensor((4,))),
], grad=False))
