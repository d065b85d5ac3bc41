"""torch.distributions against PyTorch at fixed parameter points: log_prob, cdf, icdf, entropy,
moments, shapes, enumerate_support and the gradients of log_prob (and of the moments and
entropy) with respect to the parameters, for every distribution, with a batch shape."""

from __future__ import annotations

import pytest
from conftest import check

# Parameters are float64 so that the comparison is tight; tests/test_distributions_api.py
# covers float32 and the default dtype.
V3 = [0.3, 1.2, 2.0]
S3 = [0.5, 1.5, 2.5]
P3 = [0.2, 0.5, 0.8]
Q3 = [0.1, 0.5, 0.9]
PROBS23 = [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]
COV = [[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]]
W32 = [[0.5, -0.2], [0.1, 0.3], [-0.4, 0.2]]
CHOL3 = [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [-0.48, 0.36, 0.8]]  # rows of unit norm


def _p(t, v):
    return t.tensor(v, dtype=t.float64).requires_grad_()


def _p32(t, v):
    return t.tensor(v).requires_grad_()


def _v(t, v, dtype=None):
    return t.tensor(v, dtype=dtype or t.float64)


def _spd(t, v):
    m = t.tensor(v, dtype=t.float64)
    return (m @ m.mT).requires_grad_()


# name -> (parameters(t) -> dict of leaf tensors, constructor(t, D, params), value(t))
CASES = {
    "Normal": (
        lambda t: {"loc": _p(t, V3), "scale": _p(t, S3)},
        lambda t, D, p: D.Normal(p["loc"], p["scale"]),
        lambda t: _v(t, [0.1, -0.5, 3.0]),
    ),
    "Uniform": (
        lambda t: {"low": _p(t, [-1.0, 0.0, 0.5]), "high": _p(t, [1.0, 2.0, 3.5])},
        lambda t, D, p: D.Uniform(p["low"], p["high"]),
        lambda t: _v(t, [0.0, 1.0, 2.0]),
    ),
    "Laplace": (
        lambda t: {"loc": _p(t, V3), "scale": _p(t, S3)},
        lambda t, D, p: D.Laplace(p["loc"], p["scale"]),
        lambda t: _v(t, [0.1, 1.5, 3.0]),
    ),
    "Cauchy": (
        lambda t: {"loc": _p(t, V3), "scale": _p(t, S3)},
        lambda t, D, p: D.Cauchy(p["loc"], p["scale"]),
        lambda t: _v(t, [0.1, 1.5, 3.0]),
    ),
    "Exponential": (
        lambda t: {"rate": _p(t, S3)},
        lambda t, D, p: D.Exponential(p["rate"]),
        lambda t: _v(t, [0.2, 1.0, 2.5]),
    ),
    "Gamma": (
        lambda t: {"concentration": _p(t, [0.5, 2.0, 5.0]), "rate": _p(t, S3)},
        lambda t, D, p: D.Gamma(p["concentration"], p["rate"]),
        lambda t: _v(t, [0.2, 1.0, 2.5]),
    ),
    "Chi2": (
        lambda t: {"df": _p(t, [1.0, 3.0, 5.0])},
        lambda t, D, p: D.Chi2(p["df"]),
        lambda t: _v(t, [0.2, 1.0, 2.5]),
    ),
    "Beta": (
        lambda t: {"c1": _p(t, [0.5, 2.0, 5.0]), "c0": _p(t, [1.5, 1.0, 3.0])},
        lambda t, D, p: D.Beta(p["c1"], p["c0"]),
        lambda t: _v(t, Q3),
    ),
    "Dirichlet": (
        lambda t: {"concentration": _p(t, [[0.5, 2.0, 5.0], [1.0, 1.0, 1.0]])},
        lambda t, D, p: D.Dirichlet(p["concentration"]),
        lambda t: _v(t, [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]),
    ),
    "StudentT": (
        lambda t: {"df": _p(t, [1.5, 3.0, 0.8]), "loc": _p(t, V3), "scale": _p(t, S3)},
        lambda t, D, p: D.StudentT(p["df"], p["loc"], p["scale"]),
        lambda t: _v(t, [0.1, 1.5, 3.0]),
    ),
    "FisherSnedecor": (
        lambda t: {"df1": _p(t, [1.5, 3.0, 6.0]), "df2": _p(t, [1.5, 5.0, 10.0])},
        lambda t, D, p: D.FisherSnedecor(p["df1"], p["df2"]),
        lambda t: _v(t, [0.5, 1.0, 2.0]),
    ),
    "Pareto": (
        lambda t: {"scale": _p(t, [0.5, 1.0, 2.0]), "alpha": _p(t, [0.5, 3.0, 5.0])},
        lambda t, D, p: D.Pareto(p["scale"], p["alpha"]),
        lambda t: _v(t, [1.0, 2.0, 3.0]),
    ),
    "Weibull": (
        lambda t: {"scale": _p(t, S3), "concentration": _p(t, [0.5, 2.0, 5.0])},
        lambda t, D, p: D.Weibull(p["scale"], p["concentration"]),
        lambda t: _v(t, [0.2, 1.0, 2.5]),
    ),
    "InverseGamma": (
        lambda t: {"concentration": _p(t, [0.5, 1.5, 3.0]), "rate": _p(t, S3)},
        lambda t, D, p: D.InverseGamma(p["concentration"], p["rate"]),
        lambda t: _v(t, [0.2, 1.0, 2.5]),
    ),
    "Kumaraswamy": (
        lambda t: {"c1": _p(t, [0.5, 2.0, 5.0]), "c0": _p(t, [0.5, 2.0, 3.0])},
        lambda t, D, p: D.Kumaraswamy(p["c1"], p["c0"]),
        lambda t: _v(t, Q3),
    ),
    # float32: PyTorch's GeneralizedPareto fails on float64 (isclose against a float32 zero).
    "GeneralizedPareto": (
        lambda t: {
            "loc": _p32(t, [0.0, 1.0, -1.0]),
            "scale": _p32(t, [1.0, 2.0, 0.5]),
            "concentration": _p32(t, [0.0, 0.5, -0.2]),
        },
        lambda t, D, p: D.GeneralizedPareto(p["loc"], p["scale"], p["concentration"]),
        lambda t: _v(t, [0.5, 2.0, 0.5], t.float32),
    ),
    "VonMises": (
        lambda t: {"loc": _p(t, [0.0, 1.0, -2.0]), "concentration": _p(t, [0.5, 4.0, 10.0])},
        lambda t, D, p: D.VonMises(p["loc"], p["concentration"]),
        lambda t: _v(t, [0.1, 1.5, -2.5]),
    ),
    "ContinuousBernoulli": (
        lambda t: {"probs": _p(t, P3)},
        lambda t, D, p: D.ContinuousBernoulli(p["probs"]),
        lambda t: _v(t, Q3),
    ),
    "ContinuousBernoulli-logits": (
        lambda t: {"logits": _p(t, [-1.0, 0.001, 2.0])},
        lambda t, D, p: D.ContinuousBernoulli(logits=p["logits"]),
        lambda t: _v(t, Q3),
    ),
    "Gumbel": (
        lambda t: {"loc": _p(t, V3), "scale": _p(t, S3)},
        lambda t, D, p: D.Gumbel(p["loc"], p["scale"]),
        lambda t: _v(t, [0.1, 1.5, 3.0]),
    ),
    "LogNormal": (
        lambda t: {"loc": _p(t, V3), "scale": _p(t, S3)},
        lambda t, D, p: D.LogNormal(p["loc"], p["scale"]),
        lambda t: _v(t, [0.2, 1.0, 2.5]),
    ),
    "HalfNormal": (
        lambda t: {"scale": _p(t, S3)},
        lambda t, D, p: D.HalfNormal(p["scale"]),
        lambda t: _v(t, [0.2, 1.0, 2.5]),
    ),
    "HalfCauchy": (
        lambda t: {"scale": _p(t, S3)},
        lambda t, D, p: D.HalfCauchy(p["scale"]),
        lambda t: _v(t, [0.2, 1.0, 2.5]),
    ),
    "LogisticNormal": (
        lambda t: {
            "loc": _p(t, [[0.3, -0.2], [1.0, 0.5]]),
            "scale": _p(t, [[0.5, 1.0], [1.5, 0.7]]),
        },
        lambda t, D, p: D.LogisticNormal(p["loc"], p["scale"]),
        lambda t: _v(t, [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]),
    ),
    "RelaxedBernoulli": (
        lambda t: {"temperature": _p(t, 0.5), "probs": _p(t, P3)},
        lambda t, D, p: D.RelaxedBernoulli(p["temperature"], p["probs"]),
        lambda t: _v(t, Q3),
    ),
    "RelaxedOneHotCategorical": (
        lambda t: {"temperature": _p(t, 0.7), "logits": _p(t, [[0.2, -0.3, 1.0], [0.0, 2.0, 0.5]])},
        lambda t, D, p: D.RelaxedOneHotCategorical(p["temperature"], logits=p["logits"]),
        lambda t: _v(t, PROBS23),
    ),
    "Bernoulli": (
        lambda t: {"probs": _p(t, P3)},
        lambda t, D, p: D.Bernoulli(p["probs"]),
        lambda t: _v(t, [0.0, 1.0, 1.0]),
    ),
    "Bernoulli-logits": (
        lambda t: {"logits": _p(t, [-1.0, 0.0, 2.0])},
        lambda t, D, p: D.Bernoulli(logits=p["logits"]),
        lambda t: _v(t, [0.0, 1.0, 1.0]),
    ),
    "Categorical": (
        lambda t: {"probs": _p(t, [[1.0, 2.0, 3.0], [0.5, 0.2, 0.3]])},
        lambda t, D, p: D.Categorical(p["probs"]),
        lambda t: t.tensor([0, 2]),
    ),
    "Categorical-logits": (
        lambda t: {"logits": _p(t, [[0.2, -0.3, 1.0], [0.0, 2.0, 0.5]])},
        lambda t, D, p: D.Categorical(logits=p["logits"]),
        lambda t: t.tensor([[1, 2], [0, 0]]),
    ),
    "OneHotCategorical": (
        lambda t: {"probs": _p(t, PROBS23)},
        lambda t, D, p: D.OneHotCategorical(p["probs"]),
        lambda t: _v(t, [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    ),
    "Binomial": (
        lambda t: {"probs": _p(t, P3)},
        lambda t, D, p: D.Binomial(5, p["probs"]),
        lambda t: _v(t, [0.0, 2.0, 5.0]),
    ),
    "Binomial-logits": (
        lambda t: {"logits": _p(t, [-1.0, 0.0, 2.0])},
        lambda t, D, p: D.Binomial(t.tensor([3.0, 4.0, 5.0], dtype=t.float64), logits=p["logits"]),
        lambda t: _v(t, [0.0, 2.0, 5.0]),
    ),
    "Multinomial": (
        lambda t: {"probs": _p(t, PROBS23)},
        lambda t, D, p: D.Multinomial(4, p["probs"]),
        lambda t: _v(t, [[1.0, 2.0, 1.0], [4.0, 0.0, 0.0]]),
    ),
    "Poisson": (
        lambda t: {"rate": _p(t, [0.5, 2.0, 10.0])},
        lambda t, D, p: D.Poisson(p["rate"]),
        lambda t: _v(t, [0.0, 1.0, 7.0]),
    ),
    "Geometric": (
        lambda t: {"probs": _p(t, [0.2, 0.5, 0.9])},
        lambda t, D, p: D.Geometric(p["probs"]),
        lambda t: _v(t, [0.0, 1.0, 3.0]),
    ),
    "Geometric-logits": (
        lambda t: {"logits": _p(t, [-1.0, 0.0, 2.0])},
        lambda t, D, p: D.Geometric(logits=p["logits"]),
        lambda t: _v(t, [0.0, 1.0, 3.0]),
    ),
    "NegativeBinomial": (
        lambda t: {"total_count": _p(t, [2.0, 3.5, 5.0]), "probs": _p(t, [0.2, 0.5, 0.7])},
        lambda t, D, p: D.NegativeBinomial(p["total_count"], p["probs"]),
        lambda t: _v(t, [0.0, 1.0, 4.0]),
    ),
    "MultivariateNormal-cov": (
        lambda t: {"loc": _p(t, [[0.3, -0.2, 1.0], [1.0, 0.5, 0.0]]), "cov": _spd(t, COV)},
        lambda t, D, p: D.MultivariateNormal(p["loc"], p["cov"]),
        lambda t: _v(t, [[0.0, 0.1, 0.2], [1.5, -0.5, 0.3]]),
    ),
    "MultivariateNormal-tril": (
        lambda t: {
            "loc": _p(t, [0.3, -0.2, 1.0]),
            "tril": _p(t, [[1.5, 0, 0], [0.3, 1.0, 0], [0.1, -0.2, 0.7]]),
        },
        lambda t, D, p: D.MultivariateNormal(p["loc"], scale_tril=p["tril"]),
        lambda t: _v(t, [[0.0, 0.1, 0.2], [1.5, -0.5, 0.3]]),
    ),
    "MultivariateNormal-precision": (
        lambda t: {"loc": _p(t, [[0.3, -0.2, 1.0], [1.0, 0.5, 0.0]]), "prec": _spd(t, COV)},
        lambda t, D, p: D.MultivariateNormal(p["loc"], precision_matrix=p["prec"]),
        lambda t: _v(t, [[0.0, 0.1, 0.2], [1.5, -0.5, 0.3]]),
    ),
    "LowRankMultivariateNormal": (
        lambda t: {
            "loc": _p(t, [[0.3, -0.2, 1.0], [1.0, 0.5, 0.0]]),
            "W": _p(t, W32),
            "D": _p(t, [0.5, 1.0, 1.5]),
        },
        lambda t, D, p: D.LowRankMultivariateNormal(p["loc"], p["W"], p["D"]),
        lambda t: _v(t, [[0.0, 0.1, 0.2], [1.5, -0.5, 0.3]]),
    ),
    "Wishart": (
        lambda t: {"df": _p(t, [4.0, 5.5]), "cov": _spd(t, COV)},
        lambda t, D, p: D.Wishart(p["df"], covariance_matrix=p["cov"]),
        lambda t: _v(t, [[1.0, 0.2, 0.1], [0.2, 2.0, 0.3], [0.1, 0.3, 1.5]]),
    ),
    "LKJCholesky": (
        lambda t: {"concentration": _p(t, [0.5, 2.0])},
        lambda t, D, p: D.LKJCholesky(3, p["concentration"]),
        lambda t: _v(t, CHOL3),
    ),
    "Independent": (
        lambda t: {"loc": _p(t, [[0.3, -0.2, 1.0], [1.0, 0.5, 0.0]]), "scale": _p(t, S3)},
        lambda t, D, p: D.Independent(D.Normal(p["loc"], p["scale"]), 1),
        lambda t: _v(t, [[0.0, 0.1, 0.2], [1.5, -0.5, 0.3]]),
    ),
    "MixtureSameFamily": (
        lambda t: {"probs": _p(t, [0.2, 0.5, 0.3]), "loc": _p(t, V3), "scale": _p(t, S3)},
        lambda t, D, p: D.MixtureSameFamily(
            D.Categorical(p["probs"]), D.Normal(p["loc"], p["scale"])
        ),
        lambda t: _v(t, [[0.1], [1.5], [3.0]]),
    ),
    "TransformedDistribution": (
        lambda t: {"loc": _p(t, V3), "scale": _p(t, S3)},
        lambda t, D, p: D.TransformedDistribution(
            D.Normal(p["loc"], p["scale"]),
            [D.AffineTransform(1.0, p["scale"]), D.SigmoidTransform()],
        ),
        lambda t: _v(t, Q3),
    ),
}

_PROPERTIES = ("mean", "mode", "variance", "stddev")


def _try(fn):
    """A result, or the name of the exception it raised (compared between the libraries)."""
    try:
        return fn()
    except (NotImplementedError, ValueError) as e:
        return type(e).__name__


def _grads(t, out, params):
    grads = t.autograd.grad(out.sum(), list(params.values()), allow_unused=True)
    return [g if g is not None else "unused" for g in grads]


def _summary(t, name):
    params_fn, ctor, value_fn = CASES[name]
    params = params_fn(t)
    d = ctor(t, t.distributions, params)
    value = value_fn(t)
    out = {
        "shapes": (d.batch_shape, d.event_shape, d.has_rsample, d.has_enumerate_support),
        "repr": repr(d).split("(")[0],
        "log_prob": d.log_prob(value),
        "support": (type(d.support).__name__, d.support.event_dim, d.support.is_discrete),
        "arg_constraints": {k: type(c).__name__ for k, c in d.arg_constraints.items()},
    }
    out["log_prob_grads"] = _grads(t, out["log_prob"], params)
    with t.no_grad():  # values only (test_entropy_gradients covers the entropies' gradients)
        out["entropy"] = _try(d.entropy)
        out["perplexity"] = _try(d.perplexity)
        out.update({p: _try(lambda p=p: getattr(d, p)) for p in _PROPERTIES})
        out["cdf"] = _try(lambda: d.cdf(value))
        q = t.tensor(Q3[: d.batch_shape[-1]] if d.batch_shape else 0.3, dtype=t.float64)
        out["icdf"] = _try(lambda: d.icdf(q))
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_distribution_matches_torch(name):
    check(lambda t: _summary(t, name), rtol=1e-6, atol=1e-9)


def _entropy_grads(t, name):
    params_fn, ctor, _ = CASES[name]
    params = params_fn(t)
    entropy = ctor(t, t.distributions, params).entropy()
    return entropy, _grads(t, entropy, params)


# Entropies whose formulas hold special functions or branches (the rest are log(scale) + c).
@pytest.mark.parametrize("name", ["Gamma", "Beta", "Dirichlet", "StudentT", "Bernoulli-logits",
                                  "Categorical", "Binomial", "ContinuousBernoulli",
                                  "MultivariateNormal-cov", "LowRankMultivariateNormal",
                                  "Wishart"])
def test_entropy_gradients(name):
    check(lambda t: _entropy_grads(t, name), rtol=1e-6, atol=1e-9)


def _enumerate(t, name, expand):
    params_fn, ctor, _ = CASES[name]
    d = ctor(t, t.distributions, params_fn(t))
    with t.no_grad():
        support = d.enumerate_support(expand=expand)
        return support, d.log_prob(support)


@pytest.mark.parametrize("name", ["Bernoulli", "Categorical", "OneHotCategorical", "Binomial"])
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support(name, expand):
    check(lambda t: _enumerate(t, name, expand), rtol=1e-6, atol=1e-9)


def test_enumerate_support_errors():
    check(
        lambda t: t.distributions.Binomial(
            t.tensor([2.0, 3.0]), t.tensor([0.5, 0.5])
        ).enumerate_support(),
        raises=NotImplementedError,
    )
    check(
        lambda t: t.distributions.Independent(
            t.distributions.Bernoulli(t.tensor([[0.5, 0.5]])), 1
        ).enumerate_support(),
        raises=NotImplementedError,
    )
    check(lambda t: t.distributions.Normal(0.0, 1.0).enumerate_support(),
          raises=NotImplementedError)
