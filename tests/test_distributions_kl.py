"""kl_divergence against PyTorch for every pair PyTorch 2.13 registers (values, and gradients
for the same-family pairs), register_kl dispatch and the unregistered-pair error."""

from __future__ import annotations

import warnings

import pytest
import torch
from conftest import check

import jtorch

_LEAVES: list = []  # the parameters created for the current program, to differentiate


def _p(t, v):
    x = t.tensor(v, dtype=t.float64).requires_grad_()
    _LEAVES.append(x)
    return x


def _c(t, v):
    return t.tensor(v, dtype=t.float64)


# Two parameter points per family ("p" and "q"), batch shape (3,) where the family allows.
FAMILIES = {
    "Bernoulli": lambda t, D, i: D.Bernoulli(_p(t, [[0.2, 0.5, 0.0], [0.3, 0.1, 1.0]][i])),
    "Beta": lambda t, D, i: D.Beta(_p(t, [[0.5, 2.0, 5.0], [1.5, 1.0, 2.0]][i]),
                                   _p(t, [[1.5, 1.0, 3.0], [0.7, 2.0, 1.0]][i])),
    "Binomial": lambda t, D, i: D.Binomial(_c(t, [[5.0, 5.0, 6.0], [5.0, 5.0, 5.0]][i]),
                                           _p(t, [[0.2, 0.5, 0.7], [0.3, 0.4, 0.6]][i])),
    "Categorical": lambda t, D, i: D.Categorical(
        _p(t, [[[0.2, 0.3, 0.5], [0.5, 0.5, 0.0]], [[0.1, 0.6, 0.3], [0.2, 0.0, 0.8]]][i])),
    "ContinuousBernoulli": lambda t, D, i: D.ContinuousBernoulli(
        _p(t, [[0.2, 0.5, 0.8], [0.3, 0.45, 0.9]][i])),
    "Dirichlet": lambda t, D, i: D.Dirichlet(_p(t, [[[0.5, 2.0], [1.0, 3.0]],
                                                    [[1.5, 1.0], [2.0, 0.5]]][i])),
    "Exponential": lambda t, D, i: D.Exponential(_p(t, [[0.5, 1.5, 3.0], [1.0, 0.7, 2.0]][i])),
    "Gamma": lambda t, D, i: D.Gamma(_p(t, [[0.5, 2.0, 5.0], [1.5, 1.0, 2.0]][i]),
                                     _p(t, [[0.5, 1.5, 3.0], [1.0, 0.7, 2.0]][i])),
    "Gumbel": lambda t, D, i: D.Gumbel(_p(t, [[0.3, 1.2, 2.0], [0.0, -1.0, 1.0]][i]),
                                       _p(t, [[0.5, 1.5, 2.5], [1.0, 0.7, 2.0]][i])),
    "Geometric": lambda t, D, i: D.Geometric(_p(t, [[0.2, 0.5, 0.9], [0.3, 0.4, 0.6]][i])),
    "HalfNormal": lambda t, D, i: D.HalfNormal(_p(t, [[0.5, 1.5, 2.5], [1.0, 0.7, 2.0]][i])),
    "Laplace": lambda t, D, i: D.Laplace(_p(t, [[0.3, 1.2, 2.0], [0.0, -1.0, 1.0]][i]),
                                         _p(t, [[0.5, 1.5, 2.5], [1.0, 0.7, 2.0]][i])),
    "LowRankMultivariateNormal": lambda t, D, i: D.LowRankMultivariateNormal(
        _p(t, [[0.3, -0.2, 1.0], [0.0, 0.5, 0.1]][i]),
        _p(t, [[[0.5, -0.2], [0.1, 0.3], [-0.4, 0.2]], [[0.2, 0.1], [0.0, -0.3], [0.5, 0.4]]][i]),
        _p(t, [[0.5, 1.0, 1.5], [1.0, 0.7, 2.0]][i])),
    "MultivariateNormal": lambda t, D, i: D.MultivariateNormal(
        _p(t, [[0.3, -0.2, 1.0], [0.0, 0.5, 0.1]][i]),
        scale_tril=_p(t, [[[1.5, 0, 0], [0.3, 1.0, 0], [0.1, -0.2, 0.7]],
                          [[1.0, 0, 0], [-0.3, 0.8, 0], [0.2, 0.1, 1.2]]][i])),
    "Normal": lambda t, D, i: D.Normal(_p(t, [[0.3, 1.2, 2.0], [0.0, -1.0, 1.0]][i]),
                                       _p(t, [[0.5, 1.5, 2.5], [1.0, 0.7, 2.0]][i])),
    "OneHotCategorical": lambda t, D, i: D.OneHotCategorical(
        _p(t, [[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]][i])),
    "Pareto": lambda t, D, i: D.Pareto(_p(t, [[0.5, 1.0, 2.0], [0.7, 0.5, 2.0]][i]),
                                       _p(t, [[0.5, 3.0, 5.0], [1.0, 2.5, 3.0]][i])),
    "Poisson": lambda t, D, i: D.Poisson(_p(t, [[0.5, 2.0, 10.0], [1.0, 3.0, 8.0]][i])),
    "Uniform": lambda t, D, i: D.Uniform(_p(t, [[0.1, -1.0, 0.5], [0.0, 0.2, 0.4]][i]),
                                         _p(t, [[0.9, 2.0, 3.5], [1.0, 0.7, 4.0]][i])),
    "Cauchy": lambda t, D, i: D.Cauchy(_p(t, [[0.3, 1.2, 2.0], [0.0, -1.0, 1.0]][i]),
                                       _p(t, [[0.5, 1.5, 2.5], [1.0, 0.7, 2.0]][i])),
    "Independent": lambda t, D, i: D.Independent(FAMILIES["Normal"](t, D, i), 1),
    "TransformedDistribution": lambda t, D, i: D.TransformedDistribution(
        FAMILIES["Normal"](t, D, i), [D.ExpTransform()]),
}
PAIRS = sorted({(p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY}
               - {("ExponentialFamily", "ExponentialFamily")})


def _kl(t, p_name, q_name, grads):
    D = t.distributions
    _LEAVES.clear()
    p, q = FAMILIES[p_name](t, D, 0), FAMILIES[q_name](t, D, 1)
    if not grads:
        with t.no_grad():
            return D.kl_divergence(p, q)
    kl = D.kl_divergence(p, q)
    if not kl.requires_grad:
        return kl
    g = t.autograd.grad(t.nan_to_num(kl, posinf=0.0).sum(), list(_LEAVES), allow_unused=True)
    return kl, [x if x is not None else "unused" for x in g]


# Gradients for the same-family pairs (what VAEs and policy regularisers differentiate).
NO_GRADS = {"LowRankMultivariateNormal", "OneHotCategorical", "Independent",
            "TransformedDistribution"}


@pytest.mark.parametrize("pair", PAIRS, ids="-".join)
def test_kl_matches_torch(pair):
    grads = pair[0] == pair[1] and pair[0] not in NO_GRADS
    check(lambda t: _kl(t, *pair, grads=grads), rtol=1e-6, atol=1e-9)


def test_every_registered_pair_is_registered_here():
    mine = {(p.__name__, q.__name__) for p, q in jtorch.distributions.kl._KL_REGISTRY}
    theirs = {(p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY}
    assert mine == theirs


def test_kl_errors():
    def unregistered(t):
        D = t.distributions
        return D.kl_divergence(D.Normal(0.0, 1.0), D.StudentT(2.0))

    check(unregistered, raises=NotImplementedError)
    off = {"validate_args": False}  # the errors come from kl_divergence, not validation
    check(lambda t: t.distributions.kl_divergence(
        t.distributions.Beta(1.0, 2.0, **off), t.distributions.Dirichlet(t.ones(2), **off)),
        raises=NotImplementedError)
    check(lambda t: t.distributions.kl_divergence(
        t.distributions.Binomial(3, t.tensor([0.5]), **off),
        t.distributions.Binomial(5, t.tensor([0.5]), **off)), raises=NotImplementedError)
    check(lambda t: t.distributions.kl_divergence(
        t.distributions.MultivariateNormal(t.zeros(2), scale_tril=t.eye(2), **off),
        t.distributions.MultivariateNormal(t.zeros(3), scale_tril=t.eye(3), **off)),
        raises=ValueError)
    message = None
    try:
        unregistered(jtorch)
    except NotImplementedError as e:
        message = str(e)
    assert message == ("No KL(p || q) is implemented for p type Normal and q type StudentT")


def test_register_kl_dispatch():
    """A user's pair wins over the built-in one for its subclasses; ambiguity warns."""

    def program(t):
        D = t.distributions

        class MyNormal(D.Normal):
            pass

        class MyExp(D.Exponential):
            pass

        @D.register_kl(MyNormal, D.Normal)
        def _kl(p, q):
            return t.zeros(p.batch_shape) + 7.0

        @D.register_kl(D.Normal, MyNormal)
        def _kl2(p, q):
            return t.zeros(p.batch_shape) + 9.0

        a = D.kl_divergence(MyNormal(t.zeros(2), 1.0), D.Normal(0.0, 1.0))
        b = D.kl_divergence(D.Normal(t.zeros(2), 1.0), MyNormal(0.0, 1.0))
        c = D.kl_divergence(MyExp(t.ones(2)), D.Exponential(2.0))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            D.kl_divergence(MyNormal(t.zeros(2), 1.0), MyNormal(0.0, 1.0))
        return a, b, c, [str(x.message) for x in w]

    check(program)
