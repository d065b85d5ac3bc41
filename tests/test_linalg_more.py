"""The torch.linalg completion beyond the op database: raising forms, tuple ``out=``,
tensorinv/tensorsolve, the deprecated torch.lu/lu_solve/cholesky/triangular_solve, the
backward errors where PyTorch has no derivative, and complex eig gradients."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from conftest import check, error_of, raising

RNG = np.random.default_rng(5)
A = RNG.standard_normal((3, 3)) + 2 * np.eye(3)
SYM = A + A.T
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
WIDE = RNG.standard_normal((4, 6)) + np.eye(4, 6) * 3
B2, B32 = RNG.standard_normal((2, 2)), RNG.standard_normal((3, 2))
Z = A + 1j * RNG.standard_normal((3, 3))
W = RNG.standard_normal((3, 3))
pytestmark = pytest.mark.filterwarnings("ignore:torch.(lu|lu_solve|cholesky|triangular_solve) "
                                        "is deprecated:UserWarning")


@pytest.mark.parametrize("call", [
    raising(RuntimeError, lambda t: t.linalg.lu_factor(t.tensor(SINGULAR))),
    raising(RuntimeError, lambda t: t.linalg.lu_factor(
        t.stack([t.eye(2, dtype=t.float64), t.tensor(SINGULAR)]))),
    raising(RuntimeError, lambda t: t.linalg.lu_factor_ex(t.tensor(SINGULAR), check_errors=True)),
    raising(RuntimeError, lambda t: t.linalg.ldl_factor(t.zeros(2, 2))),
    raising(torch.linalg.LinAlgError, lambda t: t.cholesky(t.tensor(SINGULAR))),
], ids=["lu_factor", "batched", "lu_factor_ex", "ldl_factor", "cholesky"])
def test_failed_factorizations_raise(call):
    e, a = check(call)
    if "ldl" not in str(e):  # PyTorch fails an internal assert there
        assert str(a) == str(e)


@pytest.mark.parametrize("call", [
    raising(NotImplementedError, lambda t: t.geqrf(t.tensor(A, requires_grad=True))[0]),
    raising(RuntimeError, lambda t: t.linalg.ldl_factor(t.tensor(SYM, requires_grad=True))[0]),
    raising(RuntimeError, lambda t: t.linalg.ldl_solve(
        *t.linalg.ldl_factor(t.tensor(SYM)), t.ones(3, 1, dtype=t.float64, requires_grad=True))),
], ids=["geqrf", "ldl_factor", "ldl_solve"])
def test_backward_without_derivative_raises(call):
    def prog(t):
        y = call(t)
        assert y.requires_grad
        y.sum().backward()

    e, a = check(prog, raises=error_of(call))
    assert str(a) == str(e)


def test_tuple_out():
    def prog(t):
        x = t.tensor(A)
        outs = {
            "eig": (t.linalg.eig, (x,)), "lu": (t.linalg.lu, (x,)),
            "lu_factor": (t.linalg.lu_factor, (x,)),
            "ldl_factor": (t.linalg.ldl_factor, (t.tensor(SYM),)), "geqrf": (t.geqrf, (x,)),
            "triangular_solve": (t.triangular_solve, (x[:, :2], x.triu())),
            "lu_unpack": (t.lu_unpack, t.linalg.lu_factor(x)),
        }
        result = {}
        for name, (fn, args) in outs.items():
            ref = fn(*args)
            out = tuple(t.empty(0, dtype=r.dtype) for r in ref)
            got = fn(*args, out=out)
            result[name] = (got, all(g is o for g, o in zip(got, out)))
        return result

    check(prog, rtol=1e-6)


def test_tensorinv_and_tensorsolve():
    def prog(t):
        a = t.tensor(WIDE[:, :4], requires_grad=True)
        inv = t.linalg.tensorinv(a.reshape(2, 2, 4), ind=2)
        x = t.linalg.tensorsolve(a.reshape(2, 2, 2, 2), t.tensor(B2))
        t.autograd.backward([inv, x], [t.ones_like(inv), t.ones_like(x)])
        with t.no_grad():
            y = t.linalg.tensorsolve(a.reshape(2, 2, 4).movedim(2, 0), t.tensor(B2), dims=(0,))
        return inv, x, y, a.grad

    check(prog, rtol=1e-6)


@pytest.mark.parametrize("call", [
    raising(RuntimeError, lambda t: t.linalg.tensorinv(t.ones(2, 2, 4), ind=1)),
    raising(RuntimeError, lambda t: t.linalg.tensorinv(t.ones(4, 4), ind=0)),
    raising(torch.linalg.LinAlgError, lambda t: t.linalg.tensorinv(t.zeros(4, 4), ind=1)),
    raising(RuntimeError, lambda t: t.linalg.tensorsolve(t.ones(6, 2, 3), t.ones(6), dims=(0,))),
], ids=["shape", "ind", "singular", "solve_shape"])
def test_tensorinv_tensorsolve_errors(call):
    check(call)


def test_deprecated_forms_and_methods():
    def prog(t):
        x = t.tensor(A)
        b = t.tensor(B32)
        LU, piv = t.linalg.lu_factor(x)
        spd = x @ x.mT + t.eye(3, dtype=t.float64)
        return [t.lu(x), t.lu(x, get_infos=True), x.lu(), t.lu_solve(b, LU, piv),
                b.lu_solve(LU, piv), t.cholesky(spd), spd.cholesky(upper=True),
                x.triangular_solve(x.triu()), x.geqrf(), t.cholesky_inverse(x.tril()),
                x.orgqr(t.tensor([1.2, 0.5, 0.0], dtype=t.float64))]

    check(prog, rtol=1e-6)


@pytest.mark.parametrize("name", ["lu", "lu_solve", "cholesky", "triangular_solve"])
def test_deprecated_forms_warn(name):
    """PyTorch warns once per process (so only jtorch's warning is checked here)."""
    import jtorch as t

    x = t.eye(2, dtype=t.float64)
    args = {"lu": (x,), "lu_solve": (x, *t.linalg.lu_factor(x)), "cholesky": (x,),
            "triangular_solve": (x, x)}[name]
    with pytest.warns(UserWarning, match=f"torch.{name} is deprecated"):
        getattr(t, name)(*args)


def test_complex_eig_gradient():
    def prog(t):
        z = t.tensor(Z, requires_grad=True)
        L, V = t.linalg.eig(z)
        w = t.tensor(W)
        ((V.abs() ** 2) * w).sum().backward(retain_graph=True)
        g1 = z.grad.clone()
        z.grad = None
        (L * t.tensor([1.0, 2.0j, -1.0])).real.sum().backward()
        return g1, z.grad

    check(prog, rtol=1e-6)


def test_cov_degrees_of_freedom_warning():
    def prog(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            c = t.cov(t.tensor([[1.0, 2.0]]), correction=5)
        return c, [str(w.message).split(" (Triggered")[0] for w in caught]

    check(prog)
