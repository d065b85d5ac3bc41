"""Op database entries: pointwise ops."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

_ARITH_ERR = broadcast_error()
_INT_DIV = dict(kind="nonzero")  # integer division by zero raises in torch: data-dependent

OPS: list[OpInfo] = [
    OpInfo("add", lambda: binary(scalars=(2, 2.5, True))() + [
        S(tensor((2, 3), "int64"), tensor((2, 3), "float32")),
        S(tensor((2, 3), "float64"), tensor((2, 3), "float64"), alpha=2),
        S(tensor((2, 3), "int64"), tensor((3,), "int64"), alpha=-3),
        S(tensor((2, 3), "bool"), tensor((2, 3), "bool"), alpha=True),
    ], broadcast_error(S(tensor((2,), "int64"), tensor((2,), "int64"), alpha=2.5),
                       S(tensor((2,)), tensor((2,)), alpha=True),
                       S(tensor((2,)), tensor((2,)), alpha=1j))),
    OpInfo("sub", lambda: binary(dtypes=("float32", "int64"))() + [
        S(tensor((2, 3), "float64"), tensor((3,), "float64"), alpha=0.5),
    ], broadcast_error(S(tensor((3,), "bool"), tensor((3,), "bool")),
                       S(tensor((3,), "float32"), True), S(tensor((3,), "bool"), 1.5))),
    OpInfo("rsub", binary(dtypes=("float32", "int64")), _ARITH_ERR),
    OpInfo("mul", binary(scalars=(2, 2.5, True)), _ARITH_ERR),
    OpInfo("div", lambda: binary(**_INT_DIV)() + [
        S(tensor((2, 3), "float64"), tensor((2, 3), "float64", "nonzero"),
          rounding_mode="floor"),
        S(tensor((2, 3), "int64"), tensor((3,), "int64", "nonzero"), rounding_mode="trunc"),
        S(tensor((2, 3), "int64"), 2, rounding_mode="floor"),
        S(tensor((2, 3), "float32"), -1.5, rounding_mode="trunc"),
    ], broadcast_error(S(tensor((2,)), 2, rounding_mode="round"))),
    OpInfo("floor_divide", binary(dtypes=("float32", "int64"), **_INT_DIV),
           broadcast_error(S(tensor((3,), "bool"), tensor((3,), "bool", "nonzero"))),
           grad=False, notes="torch: derivative for floor_divide is not implemented"),
    OpInfo("remainder", binary(dtypes=("float32", "int64", "uint8"), **_INT_DIV),
           broadcast_error(S(tensor((3,), "complex64"), 2))),
    OpInfo("pow", lambda: binary(dtypes=FLOATS, scalars=(2, 0.5, 0), kind="positive")() + [
        S(tensor((2, 3), "int64"), tensor((2, 3), "int64", "positive")),
        S(tensor((2, 3), "int64"), tensor((3,), "int64")),  # negative integer exponents
        S(tensor((2, 3), "int64"), 2),
        S(tensor((2, 3), "int64"), 0.5),
        S(tensor((2, 3), "float64"), 2),  # negative bases, integral exponent
        S(tensor((2, 3), "float64", "ties"), tensor((2, 3), "float64", "ties")),  # 0 ** 0
        S(tensor((2, 3), "bool"), 2),
        S(tensor((2, 3), "complex64"), 2),
    ], broadcast_error(S(tensor((3,), "bool"), tensor((3,), "bool"))),
        tol=dict(rtol=1e-5)),
]

for _name in ("neg", "abs"):
    OPS.append(OpInfo(_name, unary(("float32", "float64", "int64", "int8", "float16"),
                                   empty=True),
                      lambda: [S(tensor((3,), "bool"))]))
for _name, _dts in (("exp", ("float32", "float64", "float16", "bfloat16", "int64", "bool")),
                    ("tanh", ("float32", "float64", "bfloat16", "int64")),
                    ("sigmoid", ("float32", "float64", "float16", "bool"))):
    OPS.append(OpInfo(_name, unary(_dts), tol=dict(rtol=1e-5), grad_samples=1))
for _name in ("sin", "cos"):
    OPS.append(OpInfo(_name, unary(("float32", "float64", "int64")), tol=dict(rtol=1e-5),
                      grad_samples=1))
for _name in ("log", "sqrt"):
    OPS.append(OpInfo(_name, lambda: unary(("float32", "float64", "float16", "int64", "bool"),
                                           kind="positive")() + [
        S(T(np.array([-1.0, 0.0, 1.0]), "float64", grad=False))], tol=dict(rtol=1e-5)))

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
OPS += [
    OpInfo("bitwise_not", lambda: unary(("int64", "bool", "uint8", "int8"))()[:4],
           lambda: [S(tensor((3,), "float32"))], grad=False),
    OpInfo("logical_not", unary(("float32", "int64", "bool"), kind="ties"), grad=False),
    OpInfo("maximum", binary(dtypes=("float32", "int64", "bool"), kind="ties",
                             scalars=()), broadcast_error(
        S(tensor((3,), "complex64"), tensor((3,), "complex64")), S(tensor((3,)), 2))),
    OpInfo("minimum", binary(dtypes=("float32", "int64"), kind="ties",
                             scalars=()), broadcast_error(S(tensor((3,)), 2.5))),
    OpInfo("where", lambda: [
        S(tensor((2, 3), "bool"), tensor((2, 3)), tensor((2, 3))),
        S(tensor((3,), "bool"), tensor((2, 1), "float64"), tensor((), "float64")),
        S(tensor((2, 3), "bool"), tensor((2, 3), "int64"), tensor((), "float64")),
        S(tensor((2, 3), "bool"), tensor((2, 3), "int32"), tensor((3,), "float64")),
        S(tensor((2, 3), "bool"), tensor((2, 3), "float64"), tensor((2, 3), "float64")),
    ], lambda: [
        S(tensor((3,), "float32"), tensor((3,)), tensor((3,))),
        S(tensor((3,), "bool"), tensor((2, 1)), tensor((4,))),
    ]),
    OpInfo("clone", lambda: [S(tensor((2, 3), d)) for d in MAIN + ("bfloat16",)]
           + [S(tensor((), "float64"))]),
    # Internal ops behind hand-written methods: reached through those methods.
    OpInfo("_copy", lambda: [
        S(tensor((2, 3), "float32", grad=False), tensor((2, 3), "float64")),
        S(tensor((2, 3), "float64", grad=False), tensor((3,), "float64")),
        S(tensor((2, 3), "int64"), tensor((2, 3), "float64", grad=False)),
        S(tensor((2, 3), "float64", grad=False), tensor((), "bool")),
    ], lambda: [S(tensor((2, 3)), tensor((4,)))],
        call=lambda t, dst, src: dst.clone().copy_(src)),
    OpInfo("_fill", lambda: [
        S(tensor((2, 3), "float64"), 2.5), S(tensor((2, 3), "int64"), 3),
        S(tensor((2, 3), "float64", grad=False), tensor((), "float64")),
        S(tensor((2, 3), "bool"), 0),
    ], lambda: [S(tensor((2, 3)), tensor((2,)))], call=lambda t, x, v: x.clone().fill_(v)),
    OpInfo("_zero", lambda: [S(tensor((2, 3), d)) for d in MAIN],
           call=lambda t, x: x.clone().zero_()),
    OpInfo("_to_dtype", lambda: [
        S(tensor((2, 3), "float64"), getattr_dtype("float32")),
        S(tensor((2, 3), "float32"), getattr_dtype("int64")),
        S(tensor((2, 3), "int64"), getattr_dtype("float64")),
        S(tensor((2, 3), "float64"), getattr_dtype("bool")),
        S(tensor((2, 3), "complex128"), getattr_dtype("float64")),
        S(tensor((2, 3), "float32"), getattr_dtype("bfloat16")),
    ], call=lambda t, x, d: x.to(d)),
]
