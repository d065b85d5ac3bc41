"""kl_divergence and register_kl: KL(p || q) dispatched on the most specific registered pair.

The closed forms live in ``jtorch.functional.distributions.kl``; each registered pair here
names the parameters it passes. ``ExponentialFamily`` pairs fall back to the Bregman
divergence of the log-normalizer, computed with autograd as PyTorch does.
"""

from __future__ import annotations

import math
import warnings
from functools import total_ordering

import jtorch

from ..functional.distributions import kl as FK
from ._kernel import call
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY: dict = {}  # the source of truth: a few general (type, type) pairs
_KL_MEMOIZE: dict = {}  # the lookup for each specific (type, type) pair seen


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for ``type_p`` and ``type_q``."""
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # the lookup order may have changed
        return fun

    return decorator


@total_ordering
class _Match:
    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types, strict=True):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    """The most specific registered implementation for the pair, warning on ambiguity."""
    matches = [(super_p, super_q) for super_p, super_q in _KL_REGISTRY
               if issubclass(type_p, super_p) and issubclass(type_q, super_q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning, stacklevel=2)
    return left_fun


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shapes."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _KL_MEMOIZE[type(p), type(q)] = _dispatch_kl(type(p), type(q))
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fun(p, q)


# ------------------------------------------------------------------ closed forms

# The parameters each family passes to the closed forms, in order.
_ARGS = {
    Bernoulli: ("probs", "logits"), Beta: ("concentration1", "concentration0"),
    Binomial: ("total_count", "probs", "logits"), Categorical: ("probs", "logits"),
    ContinuousBernoulli: ("probs", "logits"), Dirichlet: ("concentration",),
    Exponential: ("rate",), Gamma: ("concentration", "rate"), Gumbel: ("loc", "scale"),
    Geometric: ("probs", "logits"), HalfNormal: ("scale",), Laplace: ("loc", "scale"),
    LowRankMultivariateNormal: ("loc", "_unbroadcasted_cov_factor", "_unbroadcasted_cov_diag",
                                "_capacitance_tril"),
    MultivariateNormal: ("loc", "_unbroadcasted_scale_tril"), Normal: ("loc", "scale"),
    OneHotCategorical: ("probs", "logits"), Pareto: ("scale", "alpha"), Poisson: ("rate",),
    Uniform: ("low", "high"), Cauchy: ("loc", "scale"),
}
_NAMES = {
    Bernoulli: "bernoulli", Beta: "beta", Binomial: "binomial", Categorical: "categorical",
    ContinuousBernoulli: "continuous_bernoulli", Dirichlet: "dirichlet",
    Exponential: "exponential", Gamma: "gamma", Gumbel: "gumbel", Geometric: "geometric",
    HalfNormal: "half_normal", Laplace: "laplace",
    LowRankMultivariateNormal: "low_rank_multivariate_normal",
    MultivariateNormal: "multivariate_normal", Normal: "normal",
    OneHotCategorical: "categorical", Pareto: "pareto", Poisson: "poisson", Uniform: "uniform",
    Cauchy: "cauchy",
}
_MULTIVARIATE = (MultivariateNormal, LowRankMultivariateNormal)


def _closed_form(type_p, type_q):
    fn = getattr(FK, f"kl_{_NAMES[type_p]}_{_NAMES[type_q]}")

    def kl(p, q):
        statics = {}
        if type_p is ContinuousBernoulli:
            statics["p_lims"] = tuple(p._lims)
        if type_q is ContinuousBernoulli:
            statics["q_lims"] = tuple(q._lims)
        if type_p in _MULTIVARIATE and p.event_shape != q.event_shape:
            raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with "
                             "different event shapes cannot be computed")
        if type_p is Binomial and bool((p.total_count < q.total_count).any()):
            raise NotImplementedError("KL between Binomials where q.total_count > "
                                      "p.total_count is not implemented")
        args = [getattr(p, a) for a in _ARGS[type_p]] + [getattr(q, a) for a in _ARGS[type_q]]
        return call(fn, *args, **statics)

    kl.__name__ = fn.__name__
    return kl


_SAME = (Bernoulli, Beta, Binomial, Categorical, ContinuousBernoulli, Dirichlet, Exponential,
         Gamma, Gumbel, Geometric, HalfNormal, Laplace, LowRankMultivariateNormal,
         MultivariateNormal, Normal, OneHotCategorical, Pareto, Poisson, Uniform, Cauchy)
_CROSS = [
    (MultivariateNormal, LowRankMultivariateNormal),
    (LowRankMultivariateNormal, MultivariateNormal), (Bernoulli, Poisson),
    (Beta, ContinuousBernoulli), (Beta, Exponential), (Beta, Gamma), (Beta, Normal),
    (Beta, Uniform), (ContinuousBernoulli, Exponential), (ContinuousBernoulli, Normal),
    (ContinuousBernoulli, Uniform), (Exponential, Gamma), (Exponential, Gumbel),
    (Exponential, Normal), (Gamma, Exponential), (Gamma, Gumbel), (Gamma, Normal),
    (Gumbel, Normal), (Laplace, Normal), (Normal, Gumbel), (Normal, Laplace),
    (Pareto, Exponential), (Pareto, Gamma), (Pareto, Normal), (Uniform, Beta),
    (Uniform, ContinuousBernoulli), (Uniform, Exponential), (Uniform, Gamma),
    (Uniform, Gumbel), (Uniform, Normal), (Uniform, Pareto),
]
for _p, _q in [(t, t) for t in _SAME] + _CROSS:
    register_kl(_p, _q)(_closed_form(_p, _q))

# Pairs whose KL is infinite everywhere (q's support misses part of p's).
_INFINITE = {
    Beta: ((Pareto,), "concentration1"),
    ContinuousBernoulli: ((Pareto,), "probs"),
    Exponential: ((Beta, ContinuousBernoulli, Pareto, Uniform), "rate"),
    Gamma: ((Beta, ContinuousBernoulli, Pareto, Uniform), "concentration"),
    Gumbel: ((Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc"),
    Laplace: ((Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc"),
    Normal: ((Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc"),
    Pareto: ((Beta, ContinuousBernoulli, Uniform), "scale"),
    Poisson: ((Bernoulli, Binomial), "rate"),
}


def _infinity(attr):
    def kl(p, q):
        return jtorch.full_like(getattr(p, attr), math.inf)

    return kl


for _p, (_qs, _attr) in _INFINITE.items():
    for _q in _qs:
        register_kl(_p, _q)(_infinity(_attr))


# ------------------------------------------------------------------ structural pairs


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log-normalizer between the natural parameters."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot be computed using Bregman divergences")
    p_nparams = [np_.detach().requires_grad_() for np_ in p._natural_params]
    q_nparams = q._natural_params
    lg_normal = p._log_normalizer(*p_nparams)
    gradients = jtorch.autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients, strict=True):
        result -= _sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)
