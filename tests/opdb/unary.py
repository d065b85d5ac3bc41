"""Op database entries: unary pointwise math (exp/log, trigonometry, rounding, signs)."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

_NAN = float("nan")
_INF = float("inf")
_TOL = dict(rtol=1e-5)


def _data(values, dtype="float32", grad=True) -> T:
    return T(np.asarray(values), dtype, grad)


def _uniform(lo, hi, shape=(2, 3), dtype="float64", seed=0) -> T:
    return T(np.random.default_rng(seed).uniform(lo, hi, shape), dtype)


def _specials(grad=False) -> T:
    """NaN, the infinities, signed zeros and a few ordinary values."""
    return _data([_NAN, _INF, -_INF, 0.0, -0.0, 0.5, -1.5, 2.0], grad=grad)


def _float_unary(dtypes=("float64", "int64"), lo=None, hi=None, full=False):
    """int->float unary op samples: ``dtypes`` over the domain (lo, hi) and the special
    values (which may leave the domain: NaN); ``full`` adds a 0-dim and an empty tensor.
    Most ops share one implementation pattern, so a few representatives take every dtype."""

    def samples():
        out = []
        for i, d in enumerate(dtypes):
            if lo is None or d in ("int64", "bool", "uint8"):
                out.append(S(tensor((2, 3), d)))
            else:
                out.append(S(_uniform(lo, hi, dtype=d, seed=i)))
        if full:
            mid = 0.5 if lo is None else (lo + hi) / 2
            out += [S(_data(mid, "float64")), S(tensor((0, 3), "float64"))]
        return out + [S(_specials())]

    return samples


_FULL = ("float64", "float32", "float16", "bfloat16", "int64", "bool")
OPS: list[OpInfo] = [
    OpInfo("exp", _float_unary(_FULL, full=True), tol=_TOL, grad_samples=1),
    OpInfo("sigmoid", _float_unary(("float64", "float16", "bool")), tol=_TOL, grad_samples=1),
    OpInfo("tanh", _float_unary(("float64", "bfloat16", "int64")), tol=_TOL, grad_samples=1),
    OpInfo("log", _float_unary(_FULL, 0.2, 3.0, full=True), tol=_TOL, grad_samples=1),
    OpInfo("sqrt", _float_unary(("float64", "float32", "int64", "bool"), 0.2, 3.0),
           tol=_TOL, grad_samples=1),
]
for _name in ("exp2", "expm1", "sin", "cos", "tan", "sinh", "cosh", "atan", "asinh", "erf",
              "erfc", "deg2rad", "rad2deg"):
    OPS.append(OpInfo(_name, _float_unary(), tol=_TOL, grad_samples=1))
for _name in ("log2", "log10", "log1p", "rsqrt"):
    OPS.append(OpInfo(_name, _float_unary(lo=0.2, hi=3.0), tol=_TOL, grad_samples=1))
for _name in ("asin", "acos", "atanh", "erfinv"):
    OPS.append(OpInfo(_name, _float_unary(("float64", "bool"), -0.9, 0.9), tol=_TOL,
                      grad_samples=1))
OPS += [
    OpInfo("acosh", _float_unary(lo=1.1, hi=4.0), tol=_TOL, grad_samples=1),
    OpInfo("reciprocal", lambda: [S(tensor((2, 3), d, "nonzero")) for d in ("float64", "int64")]
           + [S(_specials())], tol=_TOL, grad_samples=1),
    OpInfo("logit", lambda: _float_unary(("float64", "int64"), 0.05, 0.95)() + [
        S(_data([0.02, 0.5, 0.97, 0.1], "float64"), 0.1),
        S(_data([-0.5, 0.0, 0.3, 1.0, 1.5], "float32"), eps=0.25),
    ], tol=_TOL, grad_samples=2),
]

_ROUNDING = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.25, -2.675, 0.1, 1e10, 3.0, -0.4]


def _rounding(ints=True, extra=()):
    def samples():
        out = [S(_data(_ROUNDING, "float64")), S(_data(_ROUNDING, "float32")),
               S(tensor((2, 3), "float16")), S(_specials())]
        if ints:
            out += [S(tensor((2, 3), "int64")), S(tensor((2, 3), "uint8"))]
        return out + [s() for s in extra]

    return samples


_BOOL = lambda: [S(tensor((3,), "bool"))]  # noqa: E731
OPS += [OpInfo(n, _rounding(), _BOOL) for n in ("ceil", "floor", "trunc")]
OPS += [
    OpInfo("round", _rounding(extra=(
        lambda: S(_data(_ROUNDING, "float64"), decimals=1),
        lambda: S(_data(_ROUNDING, "float32"), decimals=2),
        lambda: S(_data([15.0, 25.0, -35.0, 149.0], "float64"), decimals=-1),
        lambda: S(tensor((2, 3), "float32"), decimals=0),
    )), lambda: [S(tensor((3,), "bool")), S(tensor((3,), "int64"), decimals=1)]),
    OpInfo("frac", _rounding(ints=False),
           lambda: [S(tensor((3,), "int64")), S(tensor((3,), "bool"))]),
    OpInfo("sign", lambda: [S(_specials()), S(tensor((2, 3), "float64")),
                            S(tensor((2, 3), "int64")), S(tensor((2, 3), "uint8")),
                            S(tensor((2, 3), "bool"))],
           lambda: [S(tensor((3,), "complex64"))]),
    OpInfo("sgn", lambda: [S(_specials()), S(tensor((2, 3), "int64")),
                           S(tensor((2, 3), "bool")),
                           S(_data([3 + 4j, 0j, -1j, complex(-2, 0)], "complex64"))], grad=False,
           notes="torch's zero gradient is a ZeroTensor (no numpy()): test_elementwise"),
    OpInfo("signbit", lambda: [S(_specials()), S(tensor((2, 3), "int64")),
                               S(tensor((2, 3), "uint8")), S(tensor((2, 3), "bool"))],
           lambda: [S(tensor((3,), "complex64"))], grad=False),
    OpInfo("square", lambda: [S(tensor((2, 3), d)) for d in ("float64", "int64", "uint8", "bool")]
           + [S(_specials())]),
    OpInfo("angle", lambda: [S(_specials()), S(tensor((2, 3), "float64")),
                             S(tensor((2, 3), "int64")), S(tensor((2, 3), "bool")),
                             S(_data([1 + 1j, -1 + 0j, 0j, -2j], "complex64"))]),
    OpInfo("nan_to_num", lambda: [
        S(_specials()), S(T(np.array([_NAN, _INF, -_INF, 1.5]), "float64")),
        S(T(np.array([_NAN, _INF, -_INF, 1.5]), "float16")),
        S(T(np.array([_NAN, _INF, -_INF, 1.5]), "bfloat16")),
        S(tensor((2, 3), "int64")), S(_specials(), 1.0, 2.0, -2.0),
        S(_specials(), posinf=1e300, neginf=-7.0),
        S(T(np.array([complex(_NAN, _INF), complex(1.0, -_INF)]), "complex64")),
    ]),
]

_Z = lambda: T(np.array([1 + 2j, -3 - 1j, 0j, complex(_NAN, 1)]), "complex64")  # noqa: E731
OPS += [
    OpInfo("conj_physical", lambda: [S(_Z()), S(tensor((2, 3), "float32")),
                                     S(tensor((2, 3), "int64"))], grad=False,
           notes="complex gradients: see test_elementwise (conjugate convention)"),
]
