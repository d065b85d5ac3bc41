"""Op database entries: special functions (torch.X forms and torch.special-only ops).

Samples are (2, 3) or short 1-d tensors over each function's domain plus its poles,
infinities and NaN. ``zeta`` and ``igamma``/``igammac`` have no derivative in their first
argument in PyTorch, so that operand opts out of the gradient test (test_special.py checks
the error). The Bessel, Airy and polynomial functions have no derivative at all.
"""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
F64 = "float64"
TOL = dict(rtol=1e-5, atol=1e-6)
_INF, _NAN = float("inf"), float("nan")


def _u(lo, hi, dtype=F64, shape=(2, 3), seed=0, grad=True) -> T:
    return T(np.random.default_rng(seed).uniform(lo, hi, shape), dtype, grad)


def _v(values, dtype="float32", grad=False) -> T:
    return T(np.asarray(values, dtype=np.float64), dtype, grad)


def _special(name):
    return lambda t, *a, **k: getattr(t.special, name.removeprefix("special_"))(*a, **k)


_POLES = _v([0.0, -0.0, -1.0, -2.5, _INF, -_INF, _NAN, 0.5])
_HALF_ERR = lambda: [S(tensor((3,), "float16")), S(2.0)]  # noqa: E731
_CPLX_ERR = lambda: [S(tensor((3,), "complex64")), S(2)]  # noqa: E731
# JAX's own derivative is PyTorch's formula for these; the rest have custom rules.
_JAX_GRAD = dict(grad=False, notes="gradient: JAX's derivative, PyTorch's formula")

OPS += [
    OpInfo("lgamma", lambda: [S(_u(0.2, 4)), S(_POLES)], _CPLX_ERR, tol=TOL, **_JAX_GRAD),
    OpInfo("digamma", lambda: [S(_u(0.2, 4)), S(_POLES), S(tensor((3,), "int64"))], _CPLX_ERR,
           tol=TOL, grad_samples=1),
    # No poles: PyTorch's trigamma gives different values there from run to run.
    OpInfo("polygamma", lambda: [S(2, _u(0.2, 4)), S(1, _v([-2.5, -0.3, 0.5, 7.0, _NAN]))],
           lambda: [S(-1, tensor((3,))), S(1.0, tensor((3,)))], tol=TOL, grad_samples=1),
    OpInfo("mvlgamma", lambda: [S(_u(1.5, 4), 3), S(tensor((3,), "int64", "positive"), p=1)],
           lambda: [S(tensor((3,)), 0), S(tensor((3,), "bool"), 1)], tol=TOL, **_JAX_GRAD),
]
_BESSEL_I = _v([0.0, -3.0, 0.4, 30.0, _INF, -_INF, _NAN], F64, grad=True)
OPS.append(OpInfo("i0", lambda: [S(tensor((2, 3), F64)), S(tensor((3,), "bfloat16"))],
                  _CPLX_ERR, tol=TOL, **_JAX_GRAD))
OPS.append(OpInfo("sinc", lambda: [S(_v([0.0, 1.0, -0.5, 2.3, _INF, _NAN], F64, True)),
                                   S(tensor((3,), "complex64")), S(tensor((3,), "bool"))],
                  tol=TOL, grad_samples=1))
for _name in ("special_i0e", "special_i1", "special_i1e"):
    OPS.append(OpInfo(_name, lambda: [S(_BESSEL_I)], _CPLX_ERR, call=_special(_name), tol=TOL,
                      **_JAX_GRAD))
OPS.append(OpInfo("special_entr", lambda: [S(_v([0.0, -1.0, 0.5, 2.0, _INF, _NAN], F64, True)),
                                           S(tensor((3,), "int64", "positive"))],
                  call=_special("entr"), tol=TOL, grad_samples=1))
_NORMAL = _v([-30.0, -3.0, -0.2, 0.0, 0.7, 5.0, 30.0, _INF, -_INF], F64, True)
OPS.append(OpInfo("special_erfcx", lambda: [S(_NORMAL)], _HALF_ERR, call=_special("erfcx"),
                  tol=TOL, grad_samples=1))
OPS.append(OpInfo("special_ndtr", lambda: [S(_NORMAL), S(tensor((3,), "bool"))], _CPLX_ERR,
                  call=_special("ndtr"), tol=TOL, **_JAX_GRAD))
OPS.append(OpInfo("special_log_ndtr", lambda: [S(_NORMAL)], _HALF_ERR, call=_special("log_ndtr"),
                  tol=TOL, grad_samples=1))
OPS.append(OpInfo("special_ndtri", lambda: [S(_v([0.0, 1.0, 0.5, -0.1, 1e-10, 0.3, 0.97], F64,
                                                 True))],
                  _HALF_ERR, call=_special("ndtri"), tol=TOL, grad_samples=1))
OPS.append(OpInfo("special_xlog1py", lambda: [
    S(_v([0.0, 0.0, 1.0, 2.0, -1.5], F64, True), _v([_NAN, -1.0, -1.0, 3.0, 0.5], F64, True)),
    S(2, tensor((3,), "float32")), S(tensor((3,), "int64"), 2.5),
], call=_special("xlog1py"), tol=TOL, grad_samples=1))
OPS.append(OpInfo("special_zeta", lambda: [
    S(_v([1.0, 0.5, 2.0, 2.0, 2.0, 3.0, 2.5], F64), _v([1.0, 1.0, 0.0, -1.0, -1.5, -2.0, 0.7], F64,
                                                      True)),
    S(3, tensor((3,), "int64", "positive")), S(tensor((3,), "float32", "positive"), 2.0),
], lambda: [*_HALF_ERR(), S(2.0, 3.0)], call=_special("zeta"), tol=TOL, grad_samples=1))
_IGAMMA = lambda: [  # noqa: E731
    S(_v([0.0, 1.0, -1.0, 0.0, 2.0, 0.7, 3.0], F64), _v([1.0, 0.0, 1.0, 0.0, _INF, 0.4, 2.5], F64,
                                                       True)),
    S(_u(0.5, 3, "float32"), _u(0.1, 4, "bfloat16", seed=1)),
]
_IGAMMA_ERR = lambda: [S(tensor((3,)), 2.0), S(tensor((3,), "int64"), tensor((3,), "int64"))]  # noqa: E731
OPS.append(OpInfo("igamma", _IGAMMA, _IGAMMA_ERR, tol=TOL, grad_samples=1))
# igammac shares igamma's code paths (and its kernels are costly to compile): one sample.
OPS.append(OpInfo("igammac", lambda: _IGAMMA()[:1], _IGAMMA_ERR, tol=TOL, grad=False,
                  notes="gradient: igamma's custom rule, negated (test_special checks it)"))
_LOGADDEXP = lambda: [  # noqa: E731
    S(_v([_INF, -_INF, _INF, 1.0, -_INF, 0.3], F64, True), _v([_INF, -_INF, -_INF, 2.0, 3.0, -0.4],
                                                             F64, True)),
    S(tensor((2, 3), "float16"), tensor((3,), "float32")),
]
_LOGADDEXP_ERR = lambda: [S(tensor((3,)), 2.0), S(tensor((3,), "int64"), tensor((3,), "int64"))]  # noqa: E731
OPS.append(OpInfo("logaddexp", _LOGADDEXP, _LOGADDEXP_ERR, tol=TOL, grad_samples=1))
OPS.append(OpInfo("logaddexp2", _LOGADDEXP, _LOGADDEXP_ERR, tol=TOL, grad_samples=1))
_INTS = lambda: [S(T(np.array([0, -4, 6, 9, 12]), "int64"), T(np.array([0, 6, -4, 3, 8]), "int64")),  # noqa: E731
                 S(T(np.array([4, 6]), "uint8"), T(np.array([6, 9]), "int64"))]
_INT_ERR = lambda: [S(tensor((3,)), tensor((3,))), S(tensor((3,), "bool"), tensor((3,), "bool")),  # noqa: E731
                    S(tensor((3,), "int64"), 2)]
OPS.append(OpInfo("gcd", _INTS, _INT_ERR, grad=False))
OPS.append(OpInfo("lcm", _INTS, _INT_ERR, grad=False))
OPS.append(OpInfo("frexp", lambda: [S(_v([0.0, -0.0, 1.0, _INF, _NAN, 3.5, -1e-30], F64, True))],
                  lambda: [S(tensor((3,), "int64"))], tol=TOL, grad_samples=1))
OPS.append(OpInfo("ldexp", lambda: [
    S(tensor((3,), F64), T(np.array([-4, 0, 3]), "int64")), S(tensor((3,), F64), tensor((3,), F64)),
    S(tensor((3,), "int64"), T(np.array([-1, 0, 3]), "int64")),
], lambda: [S(tensor((3,)), 2)], tol=TOL, grad_samples=2))

# ------------------------------------------------------------------ no derivative in PyTorch

_WIDE = _v([-40.0, -7.5, -3.0, -0.5, 0.0, 1e-8, 0.7, 1.9, 2.0, 5.0, 13.5, 30.0, 700.0, _INF,
            -_INF, _NAN], F64)
for _name in ("airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
              "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
              "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
              "spherical_bessel_j0"):
    _extra = [S(tensor((2, 3), "int64"))] if _name == "bessel_j0" else []
    OPS.append(OpInfo(f"special_{_name}", lambda e=_extra: [S(_WIDE), *e], _HALF_ERR,
                      call=_special(_name), tol=TOL, grad=False))

_X = _v([-1.5, -1.0, -0.6, 0.0, 0.3, 0.5, 1.0, 2.0], F64)
_N = T(np.array([3, 9, 12, 5, -1, 0, 7, 30]), "int64")
for _name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
              "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
              "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
              "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
              "laguerre_polynomial_l", "legendre_polynomial_p"):
    _extra = [S(_v([0.5, -0.3], F64), 4.7), S(0.5, _N)] if _name == "chebyshev_polynomial_t" else []
    OPS.append(OpInfo(f"special_{_name}", lambda e=_extra: [S(_X, _N), *e],
                      lambda: [S(tensor((3,), "float16"), 2), S(0.5, 3)], call=_special(_name),
                      tol=TOL,
                      grad=False))
