"""torch.special beyond the op database: functions without derivatives, the errors PyTorch
raises at backward, the names torch.special re-exports, ``out=``, Tensor.polygamma and the
gradients that come from JAX's own derivative rules."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check

X = np.array([0.3, 1.7, 2.5, 4.0])
NO_GRAD = ["bessel_j0", "airy_ai", "modified_bessel_k1", "chebyshev_polynomial_t",
           "hermite_polynomial_he"]


@pytest.mark.parametrize("name", NO_GRAD)
def test_functions_without_derivative_do_not_require_grad(name):
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        f = getattr(t.special, name)
        y = f(x, 3) if "polynomial" in name else f(x)
        o = t.empty(0, dtype=t.float64)
        f(x, 3, out=o) if "polynomial" in name else f(x, out=o)
        return y, y.requires_grad, y.grad_fn is None, o

    check(prog)


@pytest.mark.parametrize("name", ["zeta", "gammainc", "gammaincc"])
def test_backward_through_first_argument_raises(name):
    def prog(t):
        a = t.tensor(X + 1, requires_grad=True)
        x = t.tensor(X, requires_grad=True)
        y = getattr(t.special, name)(a, x)
        (gx,) = t.autograd.grad(y.sum(), [x], retain_graph=True)  # the other one works
        y.sum().backward()

    e, a = check(prog, raises=NotImplementedError)
    assert str(a) == str(e)


def test_gradients_from_jax_rules():
    """lgamma, i1e and igammac (in x) through one backward (mvlgamma, i0, i0e, i1 and ndtr
    differentiate through the same JAX rules)."""
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        ys = [t.lgamma(x), t.special.i1e(-x), t.igammac(t.tensor(X + 0.5), x)]
        t.autograd.backward(ys, [t.tensor(np.linspace(0.5, 1.5, 4)) for _ in ys])
        return x.grad

    check(prog)


_SAME = {"gammaln": "lgamma", "psi": "digamma", "digamma": "digamma",
         "multigammaln": "mvlgamma", "polygamma": "polygamma", "expit": "sigmoid",
         "exp2": "exp2", "expm1": "expm1", "log1p": "log1p", "logit": "logit", "erf": "erf",
         "erfc": "erfc", "erfinv": "erfinv", "i0": "i0", "sinc": "sinc", "xlogy": "xlogy",
         "gammainc": "igamma", "gammaincc": "igammac"}


def test_reexported_names_are_the_torch_ops():
    """These torch.special names are PyTorch's torch.X kernels under another name: in
    jtorch they are the very same (op-database-tested) functions."""
    import jtorch

    for name, op in _SAME.items():
        assert getattr(jtorch.special, name) is getattr(jtorch, op), name


def test_reexported_compositions():
    def prog(t):
        x = t.tensor(X)
        s = t.special
        return [s.softmax(x, 0), s.log_softmax(x, 0, dtype=t.float32), s.logsumexp(x, 0),
                s.round(x * 3.33), s.round(x * 3.33, decimals=1), s.expit(x), s.gammaln(x)]

    check(prog)


def test_special_round_refuses_integers():
    check(lambda t: t.special.round(t.tensor([1, 2])), raises=NotImplementedError)


@pytest.mark.parametrize("name", ["entr", "zeta", "bessel_y0", "log_ndtr"])
def test_out(name):
    def prog(t):
        x = t.tensor(X)
        f = getattr(t.special, name)
        args = (x, x) if name == "zeta" else (x,)
        o = t.zeros(0, dtype=t.float64)
        return f(*args, out=o) is o, o

    check(prog)


def test_polygamma_method_and_inplace():
    def prog(t):
        x = t.tensor(X)
        y = x.clone()
        r = y.polygamma_(2)
        return x.polygamma(1), y, r is y, y._version

    check(prog)


def test_grad_fn_names():
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        ys = [t.lgamma(x), t.special.gammaln(x), t.special.psi(x), t.polygamma(2, x),
              t.special.entr(x), t.special.xlog1py(x, x), t.logaddexp(x, x), t.frexp(x)[0],
              t.special.i1e(x)]
        return [y.grad_fn.name() for y in ys]

    check(prog)
