"""Sampling, checked within jtorch (JAX's random streams differ from PyTorch's): sample shapes
and dtypes against PyTorch, goodness of fit on large samples with fixed seeds, pathwise
(rsample) gradients of expectations against the analytic gradient, and reproducibility."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from scipy import stats
from test_distributions import CASES

import jtorch

N = 20000
# Univariate cases whose cdf is known: goodness of fit by the Kolmogorov-Smirnov distance.
# (Chi2 is Gamma(df / 2, 1 / 2) through Gamma's own sampler, so Gamma's test covers it.)
KS = ["Normal", "Uniform", "Laplace", "Cauchy", "Exponential", "Gamma", "Beta",
      "Pareto", "Weibull", "InverseGamma", "Kumaraswamy", "GeneralizedPareto",
      "ContinuousBernoulli", "Gumbel", "LogNormal", "HalfNormal", "HalfCauchy", "StudentT",
      "FisherSnedecor", "VonMises", "RelaxedBernoulli"]
# Discrete cases: empirical frequencies against exp(log_prob) over the support.
DISCRETE = {"Bernoulli": 2, "Categorical": 3, "Binomial": 6, "Poisson": 30, "Geometric": 60,
            "NegativeBinomial": 60}
# The rest: sample mean (and variance) against the analytic moments.
MOMENTS = ["Dirichlet", "OneHotCategorical", "Multinomial", "MultivariateNormal-cov",
           "MultivariateNormal-tril", "LowRankMultivariateNormal", "Wishart", "Independent",
           "MixtureSameFamily"]


def _np_params(params):
    return {k: np.asarray(v.detach()._value, dtype=np.float64) for k, v in params.items()}


def _wrapped_von_mises_cdf(p, x):
    y = np.mod(x - p["loc"] + np.pi, 2 * np.pi) - np.pi  # the draw's angle relative to loc
    return stats.vonmises(p["concentration"]).cdf(np.sort(y, axis=0))


# Reference cdfs (SciPy or closed form) where the distribution itself has none.
REFERENCE_CDF = {
    "Beta": lambda p, x: stats.beta(p["c1"], p["c0"]).cdf(x),
    "StudentT": lambda p, x: stats.t(p["df"], p["loc"], p["scale"]).cdf(x),
    "FisherSnedecor": lambda p, x: stats.f(p["df1"], p["df2"]).cdf(x),
    "VonMises": _wrapped_von_mises_cdf,
    "RelaxedBernoulli": lambda p, x: 1 / (1 + np.exp(-(p["temperature"] * np.log(x / (1 - x))
                                                       - np.log(p["probs"] / (1 - p["probs"]))))),
}


def _dist(t, name):
    params_fn, ctor, _ = CASES[name]
    params = params_fn(t)
    return ctor(t, t.distributions, params), params


# Pathwise gradients are checked for these (the others are sampled without a gradient).
PATHWISE = {"Normal", "Gamma", "Dirichlet", "MultivariateNormal-tril", "Uniform",
            "RelaxedOneHotCategorical", "InverseGamma"}


def _draw(name):
    """A jtorch sample of N draws (reparameterised for PATHWISE) and its distribution."""
    jtorch.manual_seed(0)
    d, params = _dist(jtorch, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no spurious warning from any sampler
        x = d.rsample((N,)) if name in PATHWISE else d.sample((N,))
    ref, _ = _dist(torch, name)
    expected = ref.sample((N,))
    assert tuple(x.shape) == tuple(expected.shape), name
    assert str(x.dtype) == str(expected.dtype), name
    return d, params, x


def _np(x):
    return np.asarray(x.detach()._value, dtype=np.float64)


@pytest.mark.parametrize("name", KS)
def test_goodness_of_fit(name):
    d, params, x = _draw(name)
    xs = jtorch.sort(x.detach(), dim=0).values
    if name in REFERENCE_CDF:
        f = REFERENCE_CDF[name](_np_params(params), _np(xs) if name != "VonMises" else _np(x))
    else:
        with jtorch.no_grad():
            f = _np(d.cdf(xs))
    ecdf = np.arange(1, N + 1)[:, None] / N
    ks = np.max(np.maximum(np.abs(f - ecdf), np.abs(f - ecdf + 1 / N)), axis=0)
    assert (ks < 2.0 / np.sqrt(N)).all(), (name, ks)  # P(KS > 2/sqrt(N)) < 1e-3
    if name in PATHWISE:
        _check_pathwise_gradient(name, d, params, x)


@pytest.mark.parametrize("name", list(DISCRETE))
def test_discrete_frequencies(name):
    d, _, x = _draw(name)
    k = DISCRETE[name]
    values = jtorch.arange(k, dtype=x.dtype).reshape((k,) + (1,) * len(d.batch_shape))
    with jtorch.no_grad():
        pmf = np.exp(_np(d.log_prob(values.expand((k,) + tuple(d.batch_shape)))))
    freq = (_np(x)[None] == np.arange(k).reshape((k,) + (1,) * (x.dim()))).mean(1)
    sd = np.sqrt(pmf * (1 - pmf) / N)
    assert (np.abs(freq - pmf) <= 5 * sd + 1e-4).all(), (name, freq, pmf)


@pytest.mark.parametrize("name", MOMENTS)
def test_sample_moments(name):
    d, params, x = _draw(name)
    samples = _np(x)
    mean = _np(d.mean)
    var = _np(d.variance)
    tol = 6 * np.sqrt(var / N) + 1e-3
    assert (np.abs(samples.mean(0) - mean) <= tol).all(), (name, samples.mean(0), mean)
    assert (np.abs(samples.var(0) - var) <= 0.1 * var + 1e-3).all(), (name, samples.var(0), var)
    if name in PATHWISE:
        _check_pathwise_gradient(name, d, params, x)


def test_logistic_normal_is_normal_before_stick_breaking():
    d, _, x = _draw("LogisticNormal")
    z = _np(d.transforms[0].inv(x))
    loc, scale = _np(d.loc), _np(d.scale)
    assert (np.abs(z.mean(0) - loc) <= 6 * scale / np.sqrt(N)).all()
    assert (np.abs(z.std(0) / scale - 1) <= 0.05).all()


def test_relaxed_one_hot_argmax_is_categorical():
    """Gumbel-max: the argmax of a relaxed one-hot draw is distributed as Categorical(probs)."""
    d, params, x = _draw("RelaxedOneHotCategorical")
    probs = _np(d.probs)
    freq = (_np(x).argmax(-1)[..., None] == np.arange(3)).mean(0)
    assert (np.abs(freq - probs) <= 5 * np.sqrt(probs * (1 - probs) / N) + 1e-3).all()
    assert np.allclose(_np(x).sum(-1), 1.0)
    (g,) = jtorch.autograd.grad(x[..., 0].mean(), [params["logits"]])
    assert np.isfinite(_np(g)).all() and np.abs(_np(g)).max() > 1e-3


def _correlations(chol):
    corr = chol @ np.swapaxes(chol, -1, -2)
    return corr, corr[..., [0, 0, 1], [1, 2, 2]]


def test_lkj_cholesky_correlations():
    """Unit-diagonal correlation matrices from lower-triangular factors; the off-diagonal
    correlations have mean 0 and the variances of PyTorch's onion sampler (the first is
    LKJ's 1 / (2 eta + d - 1); PyTorch's later ones are slightly wider, and so are these)."""
    d, _, x = _draw("LKJCholesky")
    chol = _np(x)
    corr, r = _correlations(chol)
    assert np.allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0)
    assert np.allclose(np.triu(chol, 1), 0.0)
    torch.manual_seed(0)
    ref = torch.distributions.LKJCholesky(3, torch.tensor([0.5, 2.0])).sample((N,))
    ref_var = _correlations(ref.double().numpy())[1].var(0)
    eta = _np(d.concentration)
    assert np.allclose(ref_var[:, 0], 1 / (2 * eta + 2), rtol=0.05)
    assert (np.abs(r.mean(0)) <= 6 * np.sqrt(ref_var / N)).all()
    assert (np.abs(r.var(0) / ref_var - 1) <= 0.06).all()


def _check_pathwise_gradient(name, d, params, x):
    """d/dtheta of the Monte-Carlo mean of rsample equals d/dtheta of the analytic mean."""
    var = _np(d.variance)
    finite = np.isfinite(_np(d.mean)) & np.isfinite(var)
    w = jtorch.tensor(finite.astype(np.float64), dtype=x.dtype)
    leaves = list(params.values())
    mc = jtorch.autograd.grad((x.mean(0) * w).sum(), leaves, allow_unused=True,
                              retain_graph=True)
    exact = jtorch.autograd.grad((d.mean * w).sum(), leaves, allow_unused=True)
    for n, g, e in zip(params, mc, exact, strict=True):
        if e is None:
            continue
        tol = np.sqrt(var[finite].max() / N) * 10 + 0.05 * np.abs(_np(e)).max()
        assert np.abs(_np(g) - _np(e)).max() <= tol, (name, n, _np(g), _np(e))


def test_manual_seed_reproduces_samples():
    D = jtorch.distributions
    d = D.Normal(jtorch.zeros(3), jtorch.ones(3))
    c = D.Categorical(logits=jtorch.zeros(4))
    jtorch.manual_seed(5)
    a, b = d.sample((2,)), c.sample((6,))
    jtorch.manual_seed(5)
    assert a.tolist() == d.sample((2,)).tolist() and b.tolist() == c.sample((6,)).tolist()
    assert a.tolist() != d.sample((2,)).tolist()  # the stream advances
