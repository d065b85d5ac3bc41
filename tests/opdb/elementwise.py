"""Op database entries: pointwise arithmetic (unary math: unary.py; comparisons: comparison.py)."""

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
OPS += [
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

# ------------------------------------------------------------------ division by zero, powers


def _zero_divisor(dtype="int64") -> T:
    return T(np.array([[1, 0, 2], [3, 4, 5]]), dtype)


def _int_zero_division(**kw):
    """Integer division by zero raises RuntimeError (ZeroDivisionError) in torch."""
    return lambda: [
        S(tensor((2, 3), "int64"), _zero_divisor(), **kw), S(tensor((2, 3), "int64"), 0, **kw),
        S(tensor((2, 3), "uint8"), _zero_divisor("uint8"), **kw),
        S(tensor((2, 3), "int32"), T(np.zeros((), bool), "bool"), **kw),
        S(7, _zero_divisor(), **kw),
    ]


def _errors(*fns):
    return lambda: [s for f in fns for s in f()]


_INFO = {i.name: i for i in OPS}
for _name, _kw in (("div", dict(rounding_mode="floor")), ("floor_divide", {}),
                   ("remainder", {})):
    _old = _INFO[_name].errors
    _INFO[_name].errors = _errors(_old, _int_zero_division(**_kw))
_INFO["div"].errors = _errors(_INFO["div"].errors, _int_zero_division(rounding_mode="trunc"))
_old_div = _INFO["div"].samples
_INFO["div"].samples = lambda: _old_div() + [
    S(tensor((2, 3), "int64"), _zero_divisor()),  # true division: inf and nan, no error
    S(tensor((2, 3), "float32"), _zero_divisor("float32"), rounding_mode="floor"),
]
_old_pow = _INFO["pow"].samples
_INFO["pow"].samples = lambda: _old_pow() + [
    S(tensor((2, 3), "int64"), T(np.array(-1), "int64")),  # a tensor exponent never raises
    S(2, T(np.array([[1, -1, 0], [3, -2, 2]]), "int64")),
    S(tensor((2, 3), "int64"), False),
]
_INFO["pow"].errors = _errors(_INFO["pow"].errors, lambda: [
    S(tensor((3,), "int64"), -1), S(tensor((), "int64"), -2), S(tensor((3,), "bool"), -1),
    S(tensor((3,), "uint8"), -3),
])

# ------------------------------------------------------------------ more binary arithmetic

_ZEROS = lambda d="float64": T(np.array([[0.0, -1.5, 2.0], [0.0, 3.0, -0.5]]), d)  # noqa: E731
_NANS = T(np.array([0.0, 0.0, 1.0, -2.0, float("nan"), float("inf")]), "float32", grad=False)

OPS += [
    OpInfo("fmod", lambda: binary(dtypes=("float32", "int64"), kind="nonzero",
                                  scalars=(2, -1.5))() + [
        S(T(np.array([-7, 7, -7, 7]), "int64"), T(np.array([3, 3, -3, -3]), "int64")),
        S(_NANS, 0.0),
    ], _errors(broadcast_error(S(tensor((3,), "bool"), tensor((3,), "bool", "nonzero")),
                               S(2, tensor((3,), "float32"))), _int_zero_division())),
    OpInfo("float_power", lambda: binary(dtypes=("float32", "float64", "int64"),
                                         kind="positive", scalars=(2, 0.5, -1))() + [
        S(2.5, tensor((2, 3), "float64")), S(tensor((2, 3), "float32"), 2j),
        S(tensor((2, 3), "int64"), -2),
    ], broadcast_error(), tol=dict(rtol=1e-5)),
    OpInfo("atan2", lambda: binary(dtypes=("float32", "float64", "int64", "bool"),
                                   scalars=())() + [S(_ZEROS(), _ZEROS())],
           broadcast_error(S(tensor((3,)), 2), S(2.0, tensor((3,)))), tol=dict(rtol=1e-5)),
    OpInfo("hypot", lambda: binary(dtypes=("float32", "float64", "float16"), scalars=())(),
           broadcast_error(S(tensor((3,), "int64"), tensor((3,), "int64")),
                           S(tensor((3,)), 2.0)), tol=dict(rtol=1e-5)),
    OpInfo("copysign", lambda: binary(dtypes=("float32", "float64", "int64", "bool"),
                                      scalars=(2, -1.5, -0.0))() + [
        S(_ZEROS(), tensor((2, 3), "float64"))],
           broadcast_error(S(2, tensor((3,))))),
    OpInfo("xlogy", lambda: binary(dtypes=("float32", "float64", "int64"), kind="ties",
                                   rkind="positive", scalars=(2, 0.5))() + [
        S(2, tensor((2, 3), "float64", "positive")),
        S(_NANS, T(np.array([float("nan"), 0.0, 0.0, 3.0, 1.0, 2.0]), "float32")),
        S(_ZEROS(), tensor((2, 3), "float64", "positive")),
    ], broadcast_error(), tol=dict(rtol=1e-5)),
    OpInfo("heaviside", lambda: [
        S(_ZEROS("float32"), tensor((2, 3), "float32")),
        S(_ZEROS("float64"), tensor((3,), "float64")),
        S(tensor((2, 3), "int64"), tensor((), "int64")),
        S(tensor((2, 3), "bool"), tensor((2, 3), "bool")),
        S(_NANS, T(np.array([5.0]), "float32")),
    ], broadcast_error(S(tensor((3,)), tensor((3,), "float64")), S(tensor((3,)), 0.5),
                       S(0.5, tensor((3,)))), grad=False,
        notes="torch: the derivative for heaviside is not implemented"),
    OpInfo("nextafter", lambda: [
        S(tensor((2, 3), "float32"), tensor((2, 3), "float32")),
        S(tensor((2, 3), "float64"), tensor((3,), "float32")),
        S(T(np.array([0.0, 1.0, -1.0, np.inf]), "float32"), T(np.array([1.0, 0.0, -2.0, 0.0]),
                                                              "float32")),
        S(tensor((3,), "float32"), tensor((), "float64")),
    ], broadcast_error(S(tensor((3,), "int64"), tensor((3,), "int64")), S(tensor((3,)), 0.5))),
    OpInfo("lerp", lambda: [
        S(tensor((2, 3), "float32"), tensor((2, 3), "float32"), 0.3),
        S(tensor((2, 3), "float64"), tensor((2, 3), "float64"), tensor((2, 3), "float64")),
        S(tensor((2, 3), "float64"), tensor((3,), "float64"), 0.75),
        S(tensor((2, 1), "float64"), tensor((3,), "float64"), tensor((), "float64")),
        S(tensor((2, 3), "float32"), tensor((2, 3), "float32"), tensor((), "float64")),
        S(tensor((2, 3), "float16"), tensor((2, 3), "float16"), 0.6),
        S(tensor((2, 3), "float32"), tensor((2, 3), "float32"), 1),
    ], broadcast_error(S(tensor((3,), "int64"), tensor((3,), "int64"), 0.5),
                       S(tensor((3,)), tensor((3,), "float64"), 0.5),
                       S(tensor((3,)), tensor((3,)), tensor((3,), "float64")),
                       S(tensor((3,)), 2.0, 0.5)), grad_samples=3, tol=dict(rtol=1e-5)),
    OpInfo("addcmul", lambda: [
        S(tensor((2, 3), "float32"), tensor((2, 3), "float32"), tensor((2, 3), "float32")),
        S(tensor((2, 3), "float64"), tensor((3,), "float64"), tensor((2, 1), "float64"),
          value=0.5),
        S(tensor((), "float64"), tensor((2, 1), "float64"), tensor((3,), "float64")),
        S(tensor((2, 3), "int64"), tensor((2, 3), "int64"), tensor((2, 3), "int64"), value=2),
        S(tensor((2, 3), "int64"), tensor((2, 3), "int64"), tensor((2, 3), "float32")),
        S(tensor((2, 3), "int64"), tensor((2, 3), "int64"), tensor((2, 3), "int64"),
          value=0.5),
    ], broadcast_error(S(tensor((3,), "bool"), tensor((3,), "bool"), tensor((3,), "bool")))),
    OpInfo("addcdiv", lambda: [
        S(tensor((2, 3), "float32"), tensor((2, 3), "float32"),
          tensor((2, 3), "float32", "nonzero")),
        S(tensor((2, 3), "float64"), tensor((3,), "float64"),
          tensor((2, 1), "float64", "nonzero"), value=-2),
        S(tensor((2, 3), "int64"), tensor((2, 3), "float32"),
          tensor((2, 3), "int64", "nonzero")),
    ], broadcast_error(S(tensor((3,)), tensor((3,), "int64"), tensor((3,), "int64")))),
]
