"""Op database entries: activation functions (torch.relu/softmax/... and the F-only ones)."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

# Every kink of the piecewise activations: -3/3 (hardswish, hardsigmoid), -1/1 (hardtanh),
# -0.5/0.5 (shrinks), 0 (relu, leaky_relu, elu, ...), 6 (relu6).
KINKS = T(np.array([[-3.0, -1.0, -0.5, 0.0], [0.5, 1.0, 3.0, 6.0]]), "float64")


def _F(name):
    return lambda t, *a, **k: getattr(t.nn.functional, name)(*a, **k)


def _acts(*extra, dtypes=("float32", "float64"), kinks=True):
    def samples():
        out = [S(tensor((2, 3), d)) for d in dtypes]
        return out + ([S(KINKS)] if kinks else []) + [s() for s in extra]

    return samples


_NOT_FLOAT = lambda: [S(tensor((3,), "int64")), S(tensor((3,), "bool"))]  # noqa: E731
_ON_BOOL = lambda: [S(tensor((3,), "bool"))]  # noqa: E731

OPS: list[OpInfo] = [
    OpInfo("relu", _acts(lambda: S(tensor((2, 3), "int64")), lambda: S(tensor((), "float64"))),
           _ON_BOOL),
    OpInfo("hardshrink", _acts(lambda: S(KINKS, 0.5), lambda: S(tensor((2, 3), "float64"), 1.0)),
           _NOT_FLOAT),
    OpInfo("prelu", lambda: [
        S(tensor((2, 3), "float64"), tensor((1,), "float64")),
        S(tensor((2, 3, 2), "float64"), tensor((3,), "float64")),
        S(KINKS, T(np.array([0.25]), "float64")),
        S(tensor((3,), "float32"), tensor((1,), "float32")),
    ], lambda: [S(tensor((2, 3)), tensor((4,))), S(tensor((2, 3)), tensor((3,), "float64")),
                S(tensor((2, 3)), tensor((1, 3)))]),
    OpInfo("selu", _acts(), _NOT_FLOAT, tol=dict(rtol=1e-5)),
    OpInfo("celu", _acts(lambda: S(tensor((2, 3), "float64"), 0.5)), _NOT_FLOAT,
           tol=dict(rtol=1e-5)),
    OpInfo("threshold", lambda: [
        S(tensor((2, 3)), 0.1, 20.0), S(KINKS, 0.5, -2.0), S(tensor((2, 3), "int64"), 1, 7),
        S(tensor((2, 3), "float64"), -0.2, 0.0),
    ], lambda: [S(tensor((3,), "bool"), 0, 1)]),
    OpInfo("softmax", lambda: [
        S(tensor((2, 3)), 1), S(tensor((2, 3), "float64"), 0), S(tensor((2, 3), "float64"), -1),
        S(tensor((), "float64"), 0), S(tensor((2, 3), "float32"), 1,
                                       dtype=getattr_dtype("float64")),
        S(tensor((2, 3), "int64"), 1, dtype=getattr_dtype("float32")),
    ], lambda: [S(tensor((2, 3), "int64"), 1), S(tensor((2, 3)), 2)]),
    OpInfo("hardtanh", _acts(lambda: S(tensor((2, 3), "int64"), -2, 2),
                             lambda: S(KINKS, 0.0, 6.0), lambda: S(KINKS, -0.5, 0.5)),
           _ON_BOOL, call=_F("hardtanh")),
    OpInfo("leaky_relu", _acts(lambda: S(KINKS, 0.2)), _NOT_FLOAT, call=_F("leaky_relu")),
    OpInfo("rrelu", _acts(lambda: S(KINKS, 0.1, 0.3)), _NOT_FLOAT, call=_F("rrelu")),
    OpInfo("elu", _acts(lambda: S(KINKS, 0.5)), _NOT_FLOAT, call=_F("elu"),
           tol=dict(rtol=1e-5)),
    OpInfo("gelu", _acts(lambda: S(KINKS, approximate="tanh"),
                         lambda: S(tensor((2, 3), "float32"), approximate="tanh")),
           lambda: [*_NOT_FLOAT(), S(tensor((3,)), approximate="bad")], call=_F("gelu"),
           tol=dict(rtol=1e-5)),
    OpInfo("softshrink", _acts(lambda: S(KINKS, 1.0)),
           lambda: [*_NOT_FLOAT(), S(tensor((3,)), -0.5)], call=_F("softshrink")),
    OpInfo("softplus", _acts(lambda: S(KINKS, 2.0, 1.0), lambda: S(KINKS, 0.5, 2.0)),
           _NOT_FLOAT, call=_F("softplus"), tol=dict(rtol=1e-5)),
    OpInfo("softsign", _acts(lambda: S(tensor((2, 3), "int64"))), _ON_BOOL,
           call=_F("softsign")),
    OpInfo("tanhshrink", _acts(lambda: S(tensor((2, 3), "int64"))), _ON_BOOL,
           call=_F("tanhshrink"), tol=dict(rtol=1e-5, atol=1e-5)),
    OpInfo("softmin", lambda: [S(tensor((2, 3)), 1), S(tensor((2, 3), "float64"), 0),
                               S(tensor((2, 3)), 0, dtype=getattr_dtype("float64"))],
           lambda: [S(tensor((2, 3), "int64"), 1)], call=_F("softmin")),
    OpInfo("glu", lambda: [S(tensor((2, 4))), S(tensor((2, 4), "float64"), 0),
                           S(tensor((3, 4), "float64"), -1)],
           lambda: [S(tensor((3,))), S(tensor((2, 3)), 1), S(tensor(())),
                    S(tensor((2, 4), "int64"))], call=_F("glu"), tol=dict(rtol=1e-5)),
]
for _name in ("silu", "mish", "hardswish", "hardsigmoid", "logsigmoid"):
    OPS.append(OpInfo(_name, _acts(), _NOT_FLOAT, call=_F(_name), tol=dict(rtol=1e-5)))
OPS.append(OpInfo("log_softmax", OPS[6].samples, lambda: [S(tensor((2, 3), "int64"), 1)],
                  tol=dict(rtol=1e-5)))
