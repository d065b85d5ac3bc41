"""Pointwise behaviours beyond the op database: integer division and power errors through
every binding, gradient conventions at ties, boundaries and zeros, Python-bool results,
shift dunders, and grad_fn names of the overloads."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check

# ------------------------------------------------------------------ integer errors


# The samples both libraries reject, by test id, and the exception class.
_DIV_ZERO_ERRORS = {
    '%': RuntimeError, '%=': RuntimeError, '//': RuntimeError, '//=': RuntimeError,
    'div_floor': RuntimeError, 'div_trunc': RuntimeError, 'fmod': RuntimeError,
    'remainder_': RuntimeError, 'rfloordiv': RuntimeError,
}


@pytest.mark.parametrize("form", ["//", "%", "//=", "%=", "div_floor", "div_trunc", "fmod",
                                  "remainder_", "rfloordiv", "empty"])
def test_integer_division_by_zero_raises(form, request):
    def prog(t):
        x, z = t.tensor([5, -7, 3]), t.tensor([2, 0, 1])
        if form == "//":
            return x // z
        if form == "%":
            return x % 0
        if form == "//=":
            x //= z
            return x
        if form == "%=":
            x %= z
            return x
        if form == "div_floor":
            return t.div(x, z, rounding_mode="floor")
        if form == "div_trunc":
            return t.div(x, 0, rounding_mode="trunc")
        if form == "fmod":
            return t.fmod(x, z)
        if form == "remainder_":
            return x.remainder_(z)
        if form == "rfloordiv":
            return 7 // z
        return t.tensor([], dtype=t.int64) // t.tensor([], dtype=t.int64)  # nothing to divide

    check(prog, raises=_DIV_ZERO_ERRORS.get(request.node.callspec.id))


def test_integer_true_division_by_zero_gives_inf_and_nan():
    check(lambda t: (t.tensor([1, -1, 0]) / 0, t.tensor([1, -1, 0]) / t.tensor([0, 0, 0]),
                     t.tensor([1.0, 0.0]) // 0, t.tensor([1.0, -1.0]) % 0.0))


# The samples both libraries reject, by test id, and the exception class.
_NEG_POWER_ERRORS = {
    '**': RuntimeError, '**=': RuntimeError, '0-dim': RuntimeError, 'bool': RuntimeError,
    'pow': RuntimeError, 'pow_': RuntimeError,
}


@pytest.mark.parametrize("form", ["**", "pow", "pow_", "**=", "0-dim", "bool", "tensor",
                                  "rpow", "float"])
def test_integer_negative_power(form, request):
    def prog(t):
        x = t.tensor([2, -1, 1])
        if form == "**":
            return x ** -1
        if form == "pow":
            return t.pow(x, -2)
        if form == "pow_":
            return x.pow_(-1)
        if form == "**=":
            x **= -3
            return x
        if form == "0-dim":
            return t.tensor(2) ** -1
        if form == "bool":
            return t.tensor([True]) ** -1
        if form == "tensor":  # a tensor exponent never raises
            return x ** t.tensor([-1, -1, -2]), x ** t.tensor(-1)
        if form == "rpow":
            return 2 ** t.tensor([1, -1, 0])
        return x ** -1.0

    check(prog, raises=_NEG_POWER_ERRORS.get(request.node.callspec.id))


# ------------------------------------------------------------------ gradients


def _grads(t, fn, *values, weights=None):
    xs = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
    y = fn(t, *xs)
    w = t.ones_like(y) if weights is None else t.tensor(weights, dtype=t.float64)
    y.backward(w)
    return y, [x.grad for x in xs]


_X = [-2.0, -1.0, 0.0, 0.5, 1.0, 3.0, float("nan")]


@pytest.mark.parametrize("case", ["scalars", "min", "max", "tensors", "equal_bounds",
                                  "min_above_max", "clamp_min_t", "clamp_max_t", "clip"])
def test_clamp_gradient_at_boundaries(case):
    """torch passes the gradient AT a bound to the input (min <= x <= max), NaN gets none."""
    lo, hi = [-1.0] * 7, [1.0] * 7
    fns = {
        "scalars": (lambda t, x: t.clamp(x, -1.0, 1.0), [_X]),
        "min": (lambda t, x: t.clamp(x, min=0.0), [_X]),
        "max": (lambda t, x: x.clamp(max=0.5), [_X]),
        "tensors": (lambda t, x, a, b: t.clamp(x, a, b), [_X, lo, hi]),
        "equal_bounds": (lambda t, x, a: t.clamp(x, a, a), [_X, [0.0] * 7]),
        "min_above_max": (lambda t, x, a, b: t.clamp(x, b, a), [_X, lo, hi]),
        "clamp_min_t": (lambda t, x, a: t.clamp_min(x, a), [_X, [0.0, -1.0, 0.0, 1, 1, 3, 0]]),
        "clamp_max_t": (lambda t, x, a: x.clamp_max(a), [_X, [0.0, -1.0, 0.0, 1, 1, 3, 0]]),
        "clip": (lambda t, x: t.clip(x, 0.0, 0.5), [_X]),
    }
    fn, values = fns[case]
    check(lambda t: _grads(t, fn, *values, weights=np.linspace(1, 2, 7)))


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_binary_extremes_gradient_at_ties(name):
    """maximum/minimum split a tie's gradient evenly; fmax/fmin give it all to input."""
    a, b = [0.0, 1.0, 2.0, -1.0], [0.0, 2.0, 1.0, -1.0]
    check(lambda t: _grads(t, lambda t, x, y: getattr(t, name)(x, y), a, b))


_NAN_PAIR = ([float("nan"), 1.0, float("nan")], [1.0, float("nan"), float("nan")])


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_nan_ignoring_extremes_gradient_at_nan(name):
    check(lambda t: _grads(t, lambda t, x, y: getattr(t, name)(x, y), *_NAN_PAIR))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_propagating_extremes_gradient_at_nan(name):
    check(lambda t: _grads(t, lambda t, x, y: getattr(t, name)(x, y), *_NAN_PAIR))


@pytest.mark.parametrize("name", ["round", "floor", "ceil", "trunc", "fix", "sign", "sgn",
                                  "frac", "angle"])
def test_piecewise_constant_results_keep_requires_grad(name):
    def prog(t):
        x = t.tensor([-1.5, 0.0, 0.5, 2.5], requires_grad=True)
        y = getattr(t, name)(x)
        y.sum().backward()
        return y, y.requires_grad, y.grad_fn.name(), x.grad.clone()  # clone: ZeroTensor

    check(prog)


@pytest.mark.parametrize("name,values", [
    ("sqrt", [[0.0, 1.0, 4.0]]), ("rsqrt", [[0.0, 1.0]]), ("abs", [[0.0, -1.0, 2.0]]),
    ("copysign", [[0.0, -2.0, 3.0, 0.0], [-1.0, 1.0, -1.0, 1.0]]),
    ("hypot", [[0.0, 0.0, 3.0], [0.0, 2.0, 4.0]]),
    ("atan2", [[0.0, 0.0, 3.0, -1.0], [0.0, 2.0, 0.0, -1.0]]),
    ("xlogy", [[0.0, 0.0, 3.0, 2.0], [0.0, 2.0, 0.0, 3.0]]),
    ("logit", [[-0.5, 0.0, 0.25, 1.0, 1.5]]),
    ("nan_to_num", [[float("nan"), float("inf"), -float("inf"), 2.0]]),
    ("square", [[-1.5, 0.0, 2.0]]), ("reciprocal", [[0.5, -2.0]]),
    ("erfinv", [[0.0, 0.5, -0.9]]), ("float_power", [[0.0, 2.0, 3.0], [2.0, 0.0, 0.5]]),
])
def test_gradient_at_edges(name, values):
    check(lambda t: _grads(t, lambda t, *xs: getattr(t, name)(*xs), *values))


@pytest.mark.parametrize("eps", [0.0, 0.1, -0.2])
def test_logit_gradient_with_eps(eps):
    x = [-0.5, 0.0, 0.05, 0.1, 0.5, 0.9, 0.95, 1.0, 1.5]
    check(lambda t: _grads(t, lambda t, x: t.logit(x, eps=eps), x))


@pytest.mark.parametrize("weight", ["scalar_small", "scalar_large", "tensor", "zero_dim"])
def test_lerp_gradients(weight):
    a, b = [0.0, 1.0, -2.0], [1.0, 3.0, 2.0]

    def fn(t, x, y, w):
        return {"scalar_small": lambda: t.lerp(x, y, 0.25),
                "scalar_large": lambda: x.lerp(y, 0.75),
                "tensor": lambda: t.lerp(x, y, w),
                "zero_dim": lambda: t.lerp(x, y, w[1])}[weight]()

    check(lambda t: _grads(t, fn, a, b, [0.1, 0.5, 0.9]))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addc_gradients(name):
    def fn(t, x, a, b):
        return getattr(t, name)(x, a, b, value=-0.5)

    check(lambda t: _grads(t, fn, [1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [2.0, 4.0, -0.5]))


def test_second_derivatives_of_custom_rules():
    """The custom JVP rules (clamp, atan2, xlogy, hypot, logit) differentiate twice."""

    def prog(t):
        x = t.tensor([0.3, 0.6, 2.0], dtype=t.float64, requires_grad=True)
        y = t.tensor([0.5, 1.5, 0.2], dtype=t.float64, requires_grad=True)
        out = (t.clamp(x, 0.4, 1.0) * x + t.atan2(x, y) + t.xlogy(x, y) + t.hypot(x, y)
               + t.logit(x / 3, eps=0.05)).sum()
        gx, gy = t.autograd.grad(out, [x, y], create_graph=True)
        return gx, gy, t.autograd.grad((gx * gx).sum() + gy.sum(), [x, y])

    check(prog)


# ------------------------------------------------------------------ names of overloads


def test_grad_fn_names_follow_overloads():
    def prog(t):
        # float64 (2, 3), as the op database's gradient samples: the VJP kernels are shared.
        x = t.tensor([[1.5, -2.0, 0.5], [0.25, 3.0, -1.0]], dtype=t.float64,
                     requires_grad=True)
        z = t.tensor(0.5, dtype=t.float64)
        ys = [t.clamp(x, 0, 1), t.clamp(x, z, z), t.clamp(x, min=z), t.clamp_min(x, 0),
              t.clamp_min(x, z), t.clamp_max(x, z), t.round(x), t.round(x, decimals=1),
              t.fmod(x, 2), t.fmod(x, z), t.remainder(x, 2), t.remainder(x, z),
              t.lerp(x, x, 0.5), t.lerp(x, x, z), t.xlogy(x, z), t.xlogy(2, x),
              t.xlogy(x, 2), t.copysign(x, -1), t.copysign(x, z), t.square(x),
              t.float_power(x, 2), t.float_power(2, x), t.float_power(x, x), t.deg2rad(x),
              t.rad2deg(x), t.fix(x), t.arcsin(x), t.arctan2(x, z), t.nan_to_num(x),
              t.logit(x), t.exp2(x), t.log1p(x), t.hypot(x, z), t.addcdiv(x, x, z)]
        return [y.grad_fn.name() for y in ys]

    check(prog)


# ------------------------------------------------------------------ results and bindings


def test_equal_and_allclose_return_python_bools():
    def prog(t):
        a = t.tensor([1.0, float("nan"), 3.0])
        b = t.tensor([1.0, float("nan"), 3.0 + 1e-9])
        return (t.equal(a, a), t.equal(a[:1], a[:1]), t.equal(t.tensor([1, 2]),
                                                             t.tensor([1.0, 2.0])),
                t.equal(t.ones(2, 1), t.ones(2)), a.equal(b), t.allclose(a, b),
                t.allclose(a, b, equal_nan=True), a.allclose(b, 0.0, 0.0, True),
                t.allclose(t.ones(2, 1), t.ones(3)), t.isclose(a, b, equal_nan=True))

    check(prog)


# The samples both libraries reject, by test id, and the exception class.
_CLOSE_ERRORS = {
    'dtypes': RuntimeError, 'scalar': TypeError,
}


@pytest.mark.parametrize("bad", ["dtypes", "scalar"])
def test_allclose_and_equal_errors(bad, request):
    def prog(t):
        if bad == "dtypes":
            return t.allclose(t.ones(2), t.ones(2, dtype=t.float64))
        return t.equal(t.ones(2), 1.0)

    check(prog, raises=_CLOSE_ERRORS.get(request.node.callspec.id))


def test_positive_returns_input():
    def prog(t):
        x = t.tensor([1.0, -2.0], requires_grad=True)
        return t.positive(x) is x, (+x) is x, x.positive() is x, t.positive(t.tensor([3]))

    check(prog)
    check(lambda t: +t.tensor([True]), raises=RuntimeError)


def test_shift_dunders_and_inplace():
    def prog(t):
        x = t.tensor([1, -8, 5])
        y = x.clone()
        y <<= 2
        z = x.clone()
        z >>= t.tensor([1, 1, 70])
        w = x.clone().bitwise_left_shift_(1)
        return x << 3, x >> 1, 1 << t.tensor([0, 3]), 64 >> t.tensor([1, 2]), y, z, w

    check(prog)


def test_float_power_inplace_requires_float64():
    check(lambda t: t.tensor([1.5, 2.0]).float_power_(2), raises=RuntimeError)
    check(lambda t: t.tensor([1.5, 2.0], dtype=t.float64).float_power_(2))
    check(lambda t: t.tensor([1.5, 2.0], dtype=t.float64).float_power_(t.tensor([2, 3])))


def test_comparison_aliases_and_inplace():
    def prog(t):
        a, b = t.tensor([1.0, 2.0, 3.0]), t.tensor([2.0, 2.0, 2.0])
        c = a.clone()
        c.greater_(b)
        d = a.clone()
        d.not_equal_(2)
        return (t.greater(a, b), t.greater_equal(a, b), t.less(a, 2), t.less_equal(a, b),
                t.not_equal(a, b), a.greater(b), c, d)

    check(prog)


def test_inplace_result_dtype_errors():
    check(lambda t: t.tensor([1, 2]).sqrt_(), raises=RuntimeError)
    check(lambda t: t.tensor([1, 2]).clamp_(0.5), raises=RuntimeError)
    check(lambda t: t.tensor([True]).square_(), raises=RuntimeError)
    check(lambda t: t.tensor([1, 2]).clamp_(0, 1))


def test_clamp_promotes_and_broadcasts():
    check(lambda t: (t.clamp(t.tensor([1, 5, 9]), 2.5), t.clamp(t.tensor([1, 5]), max=3),
                     t.clamp(t.tensor([1.0, 2.0]), t.zeros(3, 2)),
                     t.clamp(t.tensor([True, False]), 0, 1)))


def test_functional_layer_under_jit():
    """The functional ops run under jax.jit with Python scalars as weak operands."""
    import jax
    import jax.numpy as jnp
    import torch

    from jtorch.functional import elementwise as E

    x = np.array([-2.0, 0.25, 3.0], np.float32)
    got = jax.jit(lambda v: (E.clamp(v, -1.0, 1.0), E.xlogy(v, 2.0), E.nan_to_num(v / 0),
                             E.bitwise_left_shift(jnp.int32(3), 2)))(x)
    tx = torch.tensor(x)
    want = (torch.clamp(tx, -1.0, 1.0), torch.xlogy(tx, 2.0), torch.nan_to_num(tx / 0))
    for g, w in zip(got[:3], want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w.numpy(), rtol=1e-6)
        assert g.dtype == np.float32
    assert int(got[3]) == 12


def test_complex_basics():
    def prog(t):
        x = t.tensor([1.0, -2.0])
        z = t.tensor([1 + 2j, -3 - 1j])
        return (t.real(x) is x, x.real is x, t.conj(x) is x, x.conj() is x,
                x.resolve_conj() is x, x.is_conj(), x.is_neg(), t.real(z), z.imag,
                t.conj(z).resolve_conj(),
                z.conj_physical(), t.conj_physical(x), t.angle(z), t.sgn(z))

    check(prog)
    check(lambda t: t.tensor([1.0]).imag, raises=RuntimeError)
    check(lambda t: t.imag(t.tensor([1])), raises=RuntimeError)


def test_complex_input_gradient_convention():
    def prog(t):
        z = t.tensor([1 + 2j, -3 - 1j], dtype=t.complex128, requires_grad=True)
        t.abs(z * t.tensor([1 + 1j, 2j], dtype=t.complex128)).sum().backward()
        return z.grad

    check(prog)


# ------------------------------------------------------------------ pow's shortcut exponents

_SHORTCUTS = [2, 3, 0.5, -0.5, -1, -2, 2.0, 3.0, -1.0]


@pytest.mark.parametrize("e", _SHORTCUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form", ["**", "pow", "torch.pow", "**=", "out"])
def test_pow_shortcut_exponents(e, dtype, form):
    """A number exponent PyTorch's kernel computes without pow() (x*x, sqrt, ...) is compiled
    into jtorch's kernel: values, dtype and gradients match, in every binding."""
    def prog(t):
        x = t.linspace(0.25, 3.0, 11, dtype=getattr(t, dtype)).requires_grad_()
        if form == "**":
            y = x ** e
        elif form == "pow":
            y = x.pow(e)
        elif form == "torch.pow":
            y = t.pow(x, e)
        elif form == "**=":
            y = x * 1
            y **= e
        else:
            with t.no_grad():
                out = t.empty(11, dtype=getattr(t, dtype))
                t.pow(x, e, out=out)
            return out, out.dtype
        (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), x)
        return y, g, gg, y.grad_fn.name()

    check(prog, rtol=1e-6, atol=1e-7)


def test_pow_number_exponent_dtypes_and_kernels_stay_apart():
    """``2`` and ``2.0`` key different kernels: an integer tensor's ``** 2`` stays integer,
    ``** 2.0`` is float; half precision and an integer exponent the shortcut lacks still
    run, and a tensor exponent is unaffected."""
    check(lambda t: (t.arange(5) ** 2, t.arange(5) ** 2.0, t.arange(5) ** 2,
                     t.arange(5.0, dtype=t.float16) ** 2, t.arange(5.0) ** 4,
                     t.arange(5.0) ** t.tensor(2.0), 2 ** t.arange(4.0), t.arange(4.0) ** 0))


# ------------------------------------------------------------------ cached number operands


def test_repeated_number_operands_keep_their_type_and_sign():
    """Numbers that come again run as cached device scalars: an int operand keeps integer
    results, a float one float results, -0.0 keeps its sign, NaN stays NaN."""
    def prog(t):
        i, f = t.arange(4), t.arange(4.0)
        outs = []
        for _ in range(3):
            outs += [i * 3, i * 3.0, f + 1, f * -0.0, f * 0.0, f + float("nan"), i - 7,
                     1e-6 * f, f.add(2, alpha=3)]
        return outs

    check(prog)
