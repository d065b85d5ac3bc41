"""torch.autograd.functional against PyTorch: jacobian, hessian, vjp, jvp, hvp and vhp
(values, tuple conventions, create_graph results that differentiate again, strict errors,
vectorized and forward-mode strategies, argument errors)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check, error_of, raising

_RNG = np.random.default_rng(1)
X3 = _RNG.standard_normal(3)
Y2 = _RNG.standard_normal(2)
W23 = _RNG.standard_normal((2, 3))


def _t(tt, a, requires_grad=False):
    return tt.tensor(a, dtype=tt.float64, requires_grad=requires_grad)


def _f(x):
    return x.sin() * x


def _f2(x, y):
    return x.outer(y).sin(), x.sum() * y


def _scalar(x):
    return (x.sin() * x).sum()


def _scalar2(x, y):
    return x.outer(y).sin().sum()


def _inputs(tt, n):
    return _t(tt, X3) if n == 1 else (_t(tt, X3), _t(tt, Y2))


# ------------------------------------------------------------------ jacobian, hessian

_JACOBIAN = {
    "single": (_f, 1, {}),
    "tuple_io": (_f2, 2, {}),
    "tuple_inputs_single_output": (lambda x, y: x.sum() * y, 2, {}),
    "single_input_tuple_output": (lambda x: (x.exp(), x.sum()), 1, {}),
    "vectorize": (_f2, 2, {"vectorize": True}),
    "forward_mode": (_f2, 2, {"vectorize": True, "strategy": "forward-mode"}),
    "independent_output": (lambda x, y: (x * 2, x.sum()), 2, {}),
    "independent_vectorized": (lambda x, y: (x * 2, x.sum()), 2, {"vectorize": True}),
}


@pytest.mark.parametrize("name", list(_JACOBIAN))
def test_jacobian(name):
    f, n, kw = _JACOBIAN[name]
    check(lambda tt: tt.autograd.functional.jacobian(f, _inputs(tt, n), **kw))


_HESSIAN = {
    "single": (_scalar, 1, {}),
    "tuple": (_scalar2, 2, {}),
    "vectorize": (_scalar2, 2, {"vectorize": True}),
    "forward_over_reverse": (_scalar2, 2, {"vectorize": True,
                                           "outer_jacobian_strategy": "forward-mode"}),
}


@pytest.mark.parametrize("name", list(_HESSIAN))
def test_hessian(name):
    f, n, kw = _HESSIAN[name]
    check(lambda tt: tt.autograd.functional.hessian(f, _inputs(tt, n), **kw))


def test_create_graph_results_differentiate_again():
    def prog(tt):
        A = tt.autograd.functional
        x = _t(tt, X3, requires_grad=True)
        outs = [A.jacobian(_f, x, create_graph=True),
                A.jacobian(_f, x, create_graph=True, vectorize=True),
                A.hessian(_scalar, x, create_graph=True),
                A.vjp(_f, x, _t(tt, X3[::-1].copy()), create_graph=True)[1],
                A.jvp(_f, x, _t(tt, X3), create_graph=True)[1],
                A.hvp(_scalar, x, _t(tt, X3), create_graph=True)[1],
                A.vhp(_scalar, x, _t(tt, X3), create_graph=True)[1]]
        (grad,) = tt.autograd.grad(sum(o.sum() for o in outs), x)
        plain = A.jacobian(_f, x)
        return outs, grad, [o.requires_grad for o in outs], plain.requires_grad

    check(prog)


# ------------------------------------------------------------------ products


@pytest.mark.parametrize("n", [1, 2])
def test_products(n):
    def prog(tt):
        A, x = tt.autograd.functional, _inputs(tt, n)
        f, s = (_f, _scalar) if n == 1 else (_f2, _scalar2)
        out = f(*x) if n == 2 else f(x)
        v_out = tuple(tt.ones_like(o) for o in out) if n == 2 else tt.ones_like(out)
        v_in = tuple(tt.ones_like(a) * 0.5 for a in x) if n == 2 else tt.ones_like(x) * 0.5
        return (A.vjp(f, x, v_out), A.jvp(f, x, v_in), A.hvp(s, x, v_in), A.vhp(s, x, v_in),
                A.vjp(s, x))

    check(prog)


def test_scalar_input_needs_no_v():
    def prog(tt):
        A, x = tt.autograd.functional, _t(tt, [0.7])
        return A.jvp(lambda x: x * 3, x), A.hvp(lambda x: x ** 3, x), A.vjp(lambda x: x * 3, x)

    check(prog)


_ERRORS = {
    "vjp_v_missing": raising(RuntimeError, lambda A, tt: A.vjp(_f, _t(tt, X3))),
    "jvp_v_missing": raising(RuntimeError, lambda A, tt: A.jvp(_f, _t(tt, X3))),
    "v_wrong_size": raising(RuntimeError, lambda A, tt: A.vjp(_f, _t(tt, X3), _t(tt, Y2))),
    "v_tuple_length": raising(
        RuntimeError, lambda A, tt: A.jvp(_f2, (_t(tt, X3), _t(tt, Y2)), (_t(tt, X3),))),
    "v_single_for_tuple": raising(
        RuntimeError, lambda A, tt: A.vjp(_f, _t(tt, X3), (_t(tt, X3), _t(tt, X3)))),
    "input_not_tensor": raising(TypeError, lambda A, tt: A.jacobian(_f, 3.0)),
    "input_list": raising(TypeError, lambda A, tt: A.jacobian(_f, [_t(tt, X3)])),
    "output_not_tensor": raising(
        TypeError, lambda A, tt: A.vjp(lambda x: 3.0, _t(tt, X3), _t(tt, X3))),
    "hessian_vector_output": raising(RuntimeError, lambda A, tt: A.hessian(_f, _t(tt, X3))),
    "hvp_tuple_output": raising(
        RuntimeError, lambda A, tt: A.hvp(lambda x: (x.sum(),), _t(tt, X3), _t(tt, X3))),
    # PyTorch checks the strategy with an assert statement
    "bad_strategy": raising(
        AssertionError, lambda A, tt: A.jacobian(_f, _t(tt, X3), strategy="sideways")),
    "forward_without_vectorize": raising(
        NotImplementedError,
        lambda A, tt: A.jacobian(_f, _t(tt, X3), strategy="forward-mode")),
    "forward_create_graph": raising(
        NotImplementedError,
        lambda A, tt: A.jacobian(_f, _t(tt, X3), create_graph=True, strategy="forward-mode",
                                 vectorize=True)),
    "strict_vectorize": raising(
        RuntimeError, lambda A, tt: A.jacobian(_f, _t(tt, X3), strict=True, vectorize=True)),
}


@pytest.mark.parametrize("name", list(_ERRORS))
def test_errors(name):
    check(lambda tt: _ERRORS[name](tt.autograd.functional, tt), raises=error_of(_ERRORS[name]))


_STRICT = {
    "jacobian_independent": raising(
        RuntimeError,
        lambda A, tt: A.jacobian(lambda x, y: x * 2, _inputs(tt, 2), strict=True)),
    "jacobian_constant_output": raising(
        RuntimeError, lambda A, tt: A.jacobian(lambda x: tt.ones(2), _t(tt, X3), strict=True)),
    "vjp_independent": raising(
        RuntimeError,
        lambda A, tt: A.vjp(lambda x, y: x * 2, _inputs(tt, 2), _t(tt, X3), strict=True)),
    "hessian_linear": raising(
        RuntimeError, lambda A, tt: A.hessian(lambda x: x.sum(), _t(tt, X3), strict=True)),
    "hvp_quadratic": lambda A, tt: A.hvp(lambda x: (x * x).sum(), _t(tt, X3), _t(tt, X3),
                                         strict=True),
    "vhp_independent": raising(
        RuntimeError, lambda A, tt: A.vhp(lambda x, y: (x * x).sum(), _inputs(tt, 2),
                                          _inputs(tt, 2), strict=True)),
    "strict_ok": lambda A, tt: A.jacobian(_f, _t(tt, X3), strict=True),
}


@pytest.mark.parametrize("name", list(_STRICT))
def test_strict(name):
    check(lambda tt: _STRICT[name](tt.autograd.functional, tt), raises=error_of(_STRICT[name]))
