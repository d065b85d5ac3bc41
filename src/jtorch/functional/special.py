"""Special functions (torch.special and the torch.X forms): gamma family, error-function
family, Bessel functions of imaginary argument, Hurwitz zeta, incomplete gamma, and the
integer ops gcd/lcm, frexp/ldexp, logaddexp.

Results follow torch's dtypes (integers and bool compute in the default float; half
precision computes in float32 where PyTorch's CPU kernels accept it, and raises where they
do not), torch's values at poles and infinities, and torch's gradient formulas. Where
PyTorch defines no derivative (``zeta`` and ``igamma``/``igammac`` in their first argument)
the backward raises PyTorch's NotImplementedError. The Bessel functions of real argument,
Airy's function and the orthogonal polynomials are in ``special_bessel.py`` and
``special_poly.py``.
"""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import jax.scipy.special as jss

from .. import _dtypes as D
from ._util import broadcast_shapes, cast, dtype_of, not_implemented, require_tensor, result_type
from .elementwise import mul, pow

__all__ = [
    "lgamma", "digamma", "polygamma", "mvlgamma", "i0", "i0e", "i1", "i1e", "sinc", "entr",
    "erfcx", "ndtr", "ndtri", "log_ndtr", "xlog1py", "zeta", "igamma", "igammac",
    "logaddexp", "logaddexp2", "gcd", "lcm", "frexp", "ldexp",
]

_HALF = (D.float16, D.bfloat16)


def float_dtype(name: str, *xs, half: bool = True, complex_: bool = False) -> D.dtype:
    """The result dtype of an INT_TO_FLOAT op, refusing the dtypes PyTorch's CPU kernel
    lacks (``name`` is the kernel's name in the error)."""
    broadcast_shapes(*(jnp.shape(x) for x in xs))
    d = result_type(*xs)
    d = D.get_default_dtype() if d._kind < 2 else d
    if (d._kind == 3 and not complex_) or (d in _HALF and not half):
        raise not_implemented(f"{name}_cpu", d)
    return d


_TORCH_LEVEL = ("lgamma", "digamma", "polygamma", "mvlgamma", "i0", "sinc")


def unary(name: str, fn, half: bool = True, wide: bool = False):
    """An INT_TO_FLOAT unary op computing ``fn``; half precision computes in float32 (as
    PyTorch's opmath does) and ``wide`` computes float32 in float64 (series that lose
    digits to cancellation)."""
    public = name if name in _TORCH_LEVEL else f"special_{name}"

    def op(input):
        require_tensor(public, "input", 1, input)
        d = float_dtype(name, input, half=half)
        x = cast(input, d)
        if d in _HALF or (wide and d is D.float32):
            inner = D.float64 if wide else D.float32
            return fn(x.astype(inner.np)).astype(d.np)
        return fn(x)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch's {name}: integer and bool inputs compute in the default float."
    return op


def not_both_numbers(name: str, input, other) -> None:
    """PyTorch's overloads take a number for one operand, never for both."""
    if is_number_operand(input) and is_number_operand(other):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({_kind(input)}, {_kind(other)})")


def is_number_operand(x) -> bool:
    try:
        require_tensor("", "", 0, x)
    except TypeError:
        return True
    return False


def _kind(x) -> str:
    return type(x).__name__ if not hasattr(x, "dtype") else (
        "float" if dtype_of(x)._kind >= 2 else "int")


def _binary(name: str, input, other, half: bool = True):
    not_both_numbers(f"special_{name}", input, other)
    d = float_dtype(name, input, other, half=half)
    inner = D.float32 if d in _HALF else d
    return d, cast(input, inner), cast(other, inner)


# ------------------------------------------------------------------ gamma family


def _lgamma(x):
    return jax.lax.lgamma(x)


@jax.custom_jvp
def _digamma(x):
    # torch: -inf at +0, +inf at -0 (the pole's one-sided limits), NaN at negative integers.
    pole = jnp.where(jnp.signbit(x), jnp.inf, -jnp.inf).astype(x.dtype)
    return jnp.where(x == 0, pole, jax.lax.digamma(x))


@_digamma.defjvp
def _digamma_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return _digamma(x), dx * _polygamma(1, x)


def _polygamma(n: int, x):
    if n == 0:
        return _digamma(x)
    return _polygamma_n(n, x)


@partial(jax.custom_jvp, nondiff_argnums=(0,))
def _polygamma_n(n, x):
    return jss.polygamma(n, x)


@_polygamma_n.defjvp
def _polygamma_n_jvp(n, primals, tangents):
    (x,), (dx,) = primals, tangents
    return _polygamma_n(n, x), dx * _polygamma_n(n + 1, x)


lgamma = unary("lgamma", _lgamma)
digamma = unary("digamma", _digamma)


def check_polygamma_n(n) -> None:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def polygamma(n: int, input):
    """torch.polygamma: the n-th derivative of digamma (n >= 0)."""
    check_polygamma_n(n)
    return unary("polygamma", lambda x: _polygamma(n, x))(input)


def mvlgamma(input, p: int):
    """torch.mvlgamma: the log of the multivariate gamma function of dimension ``p``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if dtype_of(input) is D.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")

    def fn(x):
        shifts = jnp.arange(p, dtype=x.dtype) * jnp.asarray(-0.5, x.dtype)
        total = jnp.sum(_lgamma(x[..., None] + shifts), axis=-1)
        return total + jnp.asarray(p * (p - 1) / 4 * math.log(math.pi), x.dtype)

    return unary("mvlgamma", fn)(input)


# ------------------------------------------------------------------ Bessel of imaginary argument


def _nan_at_inf(fn):
    """PyTorch's (Cephes') modified Bessel functions give NaN for infinite arguments."""
    return lambda x: jnp.where(jnp.isinf(x), jnp.nan, fn(x)).astype(x.dtype)


i0 = unary("i0", jss.i0)
i0e = unary("i0e", jss.i0e)
i1 = unary("i1", _nan_at_inf(jss.i1))
i1e = unary("i1e", jss.i1e)


# ------------------------------------------------------------------ elementary compositions


@jax.custom_jvp
def _sinc(x):
    px = x * jnp.asarray(math.pi, x.dtype)
    safe = jnp.where(x == 0, jnp.ones((), x.dtype), px)
    return jnp.where(x == 0, jnp.ones((), x.dtype), jnp.sin(safe) / safe)


@_sinc.defjvp
def _sinc_jvp(primals, tangents):
    # torch's sinc_backward: (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0.
    (x,), (dx,) = primals, tangents
    px = x * jnp.asarray(math.pi, x.dtype)
    safe = jnp.where(x == 0, jnp.ones((), x.dtype), x)
    spx = jnp.where(x == 0, jnp.ones((), x.dtype), px)
    d = (spx * jnp.cos(spx) - jnp.sin(spx)) / (spx * safe)
    return _sinc(x), dx * jnp.where(x == 0, jnp.zeros((), x.dtype), jnp.conj(d))


def sinc(input):
    """torch.sinc: the normalized sinc ``sin(pi x) / (pi x)``, 1 at 0 (complex too)."""
    d = float_dtype("sinc", input, complex_=True)
    x = cast(input, d)
    return _sinc(x.astype(jnp.float32)).astype(d.np) if d in _HALF else _sinc(x)


@jax.custom_jvp
def _entr(x):
    safe = jnp.where(x > 0, x, jnp.ones((), x.dtype))
    out = jnp.where(x > 0, -safe * jnp.log(safe), jnp.where(x == 0, 0, -jnp.inf))
    return jnp.where(jnp.isnan(x), x, out).astype(x.dtype)


@_entr.defjvp
def _entr_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents  # torch: -(1 + log x), whatever x is
    return _entr(x), dx * -(1 + jnp.log(x))


entr = unary("entr", _entr)


@jax.custom_jvp
def _erfcx(x):
    return jss.erfcx(x)


@_erfcx.defjvp
def _erfcx_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    y = _erfcx(x)
    return y, dx * (2 * x * y - jnp.asarray(2 / math.sqrt(math.pi), x.dtype))


erfcx = unary("erfcx", _erfcx, half=False)
ndtr = unary("ndtr", jss.ndtr)


@jax.custom_jvp
def _ndtri(p):
    return jss.ndtri(p)


@_ndtri.defjvp
def _ndtri_jvp(primals, tangents):
    (p,), (dp,) = primals, tangents
    y = _ndtri(p)
    return y, dp * jnp.asarray(math.sqrt(2 * math.pi), p.dtype) * jnp.exp(y * y / 2)


@jax.custom_jvp
def _log_ndtr(x):
    return jss.log_ndtr(x)


@_log_ndtr.defjvp
def _log_ndtr_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    y = _log_ndtr(x)
    scale = jnp.asarray(math.sqrt(2 * math.pi), x.dtype)
    return y, dx / (scale * jnp.exp(y + x * x / 2))


ndtri = unary("ndtri", _ndtri, half=False)
log_ndtr = unary("log_ndtr", _log_ndtr, half=False)


@jax.custom_jvp
def _xlog1py(x, y):
    return jnp.where(jnp.isnan(y), y, jnp.where(x == 0, 0, x * jnp.log1p(y)))


@_xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    # torch: d/dx = log1p(y), 0 where x == 0 and y <= -1; d/dy = x / (1 + y).
    (x, y), (dx, dy) = primals, tangents
    dlog = jnp.where((x == 0) & (y <= -1), 0, jnp.log1p(y))
    return _xlog1py(x, y), dx * dlog + dy * x / (1 + y)


def xlog1py(input, other):
    """torch.special.xlog1py: ``input * log1p(other)``, 0 where input == 0 (unless other
    is NaN)."""
    d, x, y = _binary("xlog1py", input, other)
    return _xlog1py(x, y).astype(d.np)


# ------------------------------------------------------------------ zeta and incomplete gamma


def _no_derivative(name: str):
    """A custom VJP whose backward raises PyTorch's error when the first argument is
    differentiated (checked while the backward is traced, so only a backward through that
    argument raises, as in PyTorch)."""

    def decorate(f, dother):
        fn = jax.custom_vjp(f)

        def fwd(a, x):
            marker = jnp.zeros(()) if a.perturbed else None
            return fn(a.value, x.value), (a.value, x.value, marker)

        def bwd(res, g):
            a, x, marker = res
            if marker is not None:
                raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
            return jnp.zeros_like(a), g * dother(a, x)

        fn.defvjp(fwd, bwd, symbolic_zeros=True)
        return fn

    return decorate


def _zeta_value(x, q):
    # Cephes (as PyTorch): a pole at non-positive integer q.
    pole = (q <= 0) & (q == jnp.floor(q)) & (x >= 1)
    return jnp.where(pole, jnp.inf, jss.zeta(x, q)).astype(x.dtype)


_zeta = _no_derivative("zeta")(_zeta_value, lambda x, q: -x * _zeta_value(x + 1, q))


def zeta(input, other):
    """torch.special.zeta: the Hurwitz zeta function ``sum_k (k + other) ** -input``."""
    d, x, q = _binary("zeta", input, other, half=False)
    return _zeta(x, q)


def _igamma_dx(a, x):
    return jnp.exp((a - 1) * jnp.log(x) - x - jax.lax.lgamma(a))


_igamma = _no_derivative("igamma: input")(lambda a, x: jss.gammainc(a, x), _igamma_dx)
_igammac = _no_derivative("igammac: input")(lambda a, x: jss.gammaincc(a, x),
                                           lambda a, x: -_igamma_dx(a, x))


def _tensor_pair(name, input, other, kinds):
    """(result dtype, input, other) for an op on two tensors (PyTorch's TypeError for a
    number), in their common dtype (half precision computed in float32);
    NotImplementedError for the dtype kinds (1 integer, 2 float, 3 complex) it lacks."""
    require_tensor(name, "input", 1, input)
    require_tensor(name, "other", 2, other)
    broadcast_shapes(jnp.shape(input), jnp.shape(other))
    d = result_type(input, other)
    if d._kind not in kinds:
        raise not_implemented(f"{name}_cpu", d)
    inner = D.float32 if d in _HALF else d
    return d, cast(input, inner), cast(other, inner)


def _pair_op(name, kernel, kinds, doc):
    def op(input, other):
        d, a, b = _tensor_pair(name, input, other, kinds)
        return kernel(a, b).astype(d.np)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


igamma = _pair_op("igamma", _igamma, (2,), "torch.igamma: the regularized lower incomplete "
                  "gamma function P(input, other).")
igammac = _pair_op("igammac", _igammac, (2,), "torch.igammac: the regularized upper "
                   "incomplete gamma function Q(input, other).")


# ------------------------------------------------------------------ logaddexp


def _log_add(a, b, exp, log1p_scale):
    """max + log1p(exp(-|a - b|)) (scaled for base 2); equal infinities give themselves."""
    if jnp.iscomplexobj(a):
        big = jnp.where(jnp.real(a) >= jnp.real(b), a, b)
        small = jnp.where(jnp.real(a) >= jnp.real(b), b, a)
        out = big + jnp.log1p(exp(small - big))
        return jnp.where(jnp.isinf(jnp.real(big)) & (jnp.real(big) < 0), small, out)
    big = jnp.maximum(a, b)
    out = big + jnp.log1p(exp(-jnp.abs(a - b))) * log1p_scale
    return jnp.where(jnp.isinf(a) & (a == b), a, out)


@jax.custom_jvp
def _logaddexp(a, b):
    return _log_add(a, b, jnp.exp, 1)


@_logaddexp.defjvp
def _logaddexp_jvp(primals, tangents):
    # torch: grad / (1 + exp(other - self)) and grad / (1 + exp(self - other)).
    (a, b), (da, db) = primals, tangents
    return _logaddexp(a, b), da / (1 + jnp.exp(b - a)) + db / (1 + jnp.exp(a - b))


@jax.custom_jvp
def _logaddexp2(a, b):
    return _log_add(a, b, jnp.exp2, jnp.asarray(1 / math.log(2), a.dtype))


@_logaddexp2.defjvp
def _logaddexp2_jvp(primals, tangents):
    (a, b), (da, db) = primals, tangents
    return _logaddexp2(a, b), da / (1 + jnp.exp2(b - a)) + db / (1 + jnp.exp2(a - b))


logaddexp = _pair_op("logaddexp", _logaddexp, (2, 3), "torch.logaddexp: "
                     "``log(exp(input) + exp(other))`` without overflow.")
logaddexp2 = _pair_op("logaddexp2", _logaddexp2, (2,), "torch.logaddexp2: "
                      "``log2(2 ** input + 2 ** other)`` without overflow.")


# ------------------------------------------------------------------ integers and exponents


def gcd(input, other):
    """torch.gcd: the greatest common divisor (non-negative; gcd(0, 0) = 0)."""
    return jnp.gcd(*_tensor_pair("gcd", input, other, (1,))[1:])


def lcm(input, other):
    """torch.lcm: the least common multiple (non-negative; 0 if either is 0)."""
    _, a, b = _tensor_pair("lcm", input, other, (1,))
    g = jnp.gcd(a, b)
    return jnp.where(g == 0, 0, jnp.abs(a // jnp.where(g == 0, 1, g) * b)).astype(a.dtype)


@jax.custom_jvp
def _mantissa(x):
    return jnp.frexp(x)[0]


@_mantissa.defjvp
def _mantissa_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents  # torch: grad / 2 ** exponent
    m, e = jnp.frexp(x)
    return m, dx / jnp.exp2(e.astype(x.dtype))


def frexp(input):
    """torch.frexp: (mantissa, exponent) with ``input = mantissa * 2 ** exponent`` and
    ``0.5 <= |mantissa| < 1``; the exponent is int32."""
    if dtype_of(input)._kind != 2:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return _mantissa(input), jnp.frexp(input)[1].astype(jnp.int32)


def ldexp(input, other):
    """torch.ldexp: ``input * 2 ** other`` (PyTorch's composition, so its dtypes).

    The gradient for ``input`` is PyTorch's ``grad * pow(2, other)`` computed in ``other``'s
    dtype: for an integer ``other`` that is 0 where ``other`` is negative, as in PyTorch."""
    require_tensor("ldexp", "input", 1, input)
    require_tensor("ldexp", "other", 2, other)
    out = mul(input, pow(2.0, other))
    if dtype_of(other)._kind >= 2 or not jnp.issubdtype(out.dtype, jnp.inexact):
        return out
    x = input.astype(out.dtype)
    slope = jnp.where(other < 0, 0, jnp.exp2(jnp.maximum(other, 0).astype(out.dtype)))
    return jax.lax.stop_gradient(out) + (x - jax.lax.stop_gradient(x)) * slope
