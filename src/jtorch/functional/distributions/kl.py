"""Closed-form KL divergences KL(p || q) between the families PyTorch pairs.

``kl_<p>_<q>(*p_params, *q_params)``: each family's parameters in the order its
Distribution lists them for KL (see ``jtorch.distributions.kl``).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from . import continuous as C
from . import discrete as D
from . import gamma as G
from . import other as O
from ._common import EULER, digamma, erf, half_log_det, lgamma, mahalanobis, solve_tril, tabs, xlogy
from .multivariate import lowrank_logdet, lowrank_mahalanobis

_LOG_2PI = math.log(2 * math.pi)
_sp = jax.nn.softplus


def _inf_where(cond, x):
    return jnp.where(cond, jnp.inf, x)


# ------------------------------------------------------------------ same family


def kl_bernoulli_bernoulli(pp, pl, qp, ql):
    t1 = pp * (_sp(-ql) - _sp(-pl))
    t1 = jnp.where(pp == 0, 0, _inf_where(qp == 0, t1))
    t2 = (1 - pp) * (_sp(ql) - _sp(pl))
    t2 = jnp.where(pp == 1, 0, _inf_where(qp == 1, t2))
    return t1 + t2


def kl_beta_beta(p1, p0, q1, q0):
    sp, sq = p1 + p0, q1 + q0
    t1 = lgamma(q1) + lgamma(q0) + lgamma(sp)
    t2 = lgamma(p1) + lgamma(p0) + lgamma(sq)
    t3 = (p1 - q1) * digamma(p1)
    t4 = (p0 - q0) * digamma(p0)
    t5 = (sq - sp) * digamma(sp)
    return t1 - t2 + t3 + t4 + t5


def kl_binomial_binomial(pn, pp, pl, qn, qp, ql):
    kl = pn * (pp * (pl - ql) + jnp.log1p(-pp) - jnp.log1p(-qp))
    return _inf_where(pn > qn, kl)


def kl_categorical_categorical(pp, pl, qp, ql):
    t = pp * (pl - ql)
    t = jnp.where(jnp.broadcast_to(pp == 0, t.shape), 0,
                  _inf_where(jnp.broadcast_to(qp == 0, t.shape), t))
    return jnp.sum(t, -1)


def kl_continuous_bernoulli_continuous_bernoulli(pp, pl, qp, ql, p_lims, q_lims):
    t1 = O.continuous_bernoulli_mean(pp, pl, p_lims) * (pl - ql)
    t2 = O.continuous_bernoulli_log_norm(pp, pl, p_lims) + jnp.log1p(-pp)
    t3 = -O.continuous_bernoulli_log_norm(qp, ql, q_lims) - jnp.log1p(-qp)
    return t1 + t2 + t3


def kl_dirichlet_dirichlet(pc, qc):
    sp, sq = jnp.sum(pc, -1), jnp.sum(qc, -1)
    t1 = lgamma(sp) - lgamma(sq)
    t2 = jnp.sum(lgamma(pc) - lgamma(qc), -1)
    t4 = digamma(pc) - digamma(sp)[..., None]
    return t1 - t2 + jnp.sum((pc - qc) * t4, -1)


def kl_exponential_exponential(pr, qr):
    ratio = qr / pr
    return -jnp.log(ratio) + ratio - 1


def kl_gamma_gamma(pc, pr, qc, qr):
    t1 = qc * jnp.log(pr / qr)
    t2 = lgamma(qc) - lgamma(pc)
    t3 = (pc - qc) * digamma(pc)
    t4 = (qr - pr) * (pc / pr)
    return t1 + t2 + t3 + t4


def kl_gumbel_gumbel(pl, ps, ql, qs):
    ct1, ct2, ct3 = ps / qs, ql / qs, pl / qs
    t1 = -jnp.log(ct1) - ct2 + ct3
    t3 = jnp.exp(ct2 + lgamma(1 + ct1) - ct3)
    return t1 + ct1 * EULER + t3 - (1 + EULER)


def kl_geometric_geometric(pp, pl, qp, ql):
    return -D.geometric_entropy(pp, pl) - jnp.log1p(-qp) / pp - ql


def kl_half_normal_half_normal(ps, qs):
    return kl_normal_normal(jnp.zeros_like(ps), ps, jnp.zeros_like(qs), qs)


def kl_laplace_laplace(pl, ps, ql, qs):
    ratio = ps / qs
    diff = tabs(pl - ql)
    return -jnp.log(ratio) + diff / qs + ratio * jnp.exp(-diff / ps) - 1


def _trace_xxt(m):
    return jnp.sum(m**2, (-2, -1))


def _lowrank_a(W, D, C):
    wt_dinv = jnp.swapaxes(W, -1, -2) / D[..., None, :]
    shape = jnp.broadcast_shapes(C.shape[:-2], wt_dinv.shape[:-2])
    return solve_tril(jnp.broadcast_to(C, shape + C.shape[-2:]),
                      jnp.broadcast_to(wt_dinv, shape + wt_dinv.shape[-2:]))


def kl_low_rank_multivariate_normal_low_rank_multivariate_normal(pl, pW, pD, pC,
                                                                 ql, qW, qD, qC):
    term1 = lowrank_logdet(qW, qD, qC) - lowrank_logdet(pW, pD, pC)
    term3 = lowrank_mahalanobis(qW, qD, ql - pl, qC)
    A = _lowrank_a(qW, qD, qC)
    term21 = jnp.sum(pD / qD, -1)
    term22 = _trace_xxt(pW * jax.lax.rsqrt(qD)[..., None])
    term23 = _trace_xxt(A * jnp.sqrt(pD)[..., None, :])
    term24 = _trace_xxt(A @ pW)
    return 0.5 * (term1 + term21 + term22 - term23 - term24 + term3 - pl.shape[-1])


def kl_multivariate_normal_low_rank_multivariate_normal(pl, pL, ql, qW, qD, qC):
    term1 = lowrank_logdet(qW, qD, qC) - 2 * half_log_det(pL)
    term3 = lowrank_mahalanobis(qW, qD, ql - pl, qC)
    A = _lowrank_a(qW, qD, qC)
    term21 = _trace_xxt(pL * jax.lax.rsqrt(qD)[..., None])
    term22 = _trace_xxt(A @ pL)
    return 0.5 * (term1 + term21 - term22 + term3 - pl.shape[-1])


def _solve_batched(L, B):
    shape = jnp.broadcast_shapes(L.shape[:-2], B.shape[:-2])
    return solve_tril(jnp.broadcast_to(L, shape + L.shape[-2:]),
                      jnp.broadcast_to(B, shape + B.shape[-2:]))


def kl_low_rank_multivariate_normal_multivariate_normal(pl, pW, pD, pC, ql, qL):
    term1 = 2 * half_log_det(qL) - lowrank_logdet(pW, pD, pC)
    term3 = mahalanobis(qL, ql - pl)
    d_sqrt = jnp.sqrt(pD)[..., None] * jnp.eye(pD.shape[-1], dtype=pD.dtype)
    term21 = _trace_xxt(_solve_batched(qL, pW))
    term22 = _trace_xxt(_solve_batched(qL, d_sqrt))
    return 0.5 * (term1 + term21 + term22 + term3 - pl.shape[-1])


def kl_multivariate_normal_multivariate_normal(pl, pL, ql, qL):
    half_term1 = half_log_det(qL) - half_log_det(pL)
    term2 = _trace_xxt(_solve_batched(qL, pL))
    term3 = mahalanobis(qL, ql - pl)
    return half_term1 + 0.5 * (term2 + term3 - pl.shape[-1])


def kl_normal_normal(pl, ps, ql, qs):
    var_ratio = (ps / qs) ** 2
    t1 = ((pl - ql) / qs) ** 2
    return 0.5 * (var_ratio + t1 - 1 - jnp.log(var_ratio))


def kl_pareto_pareto(ps, pa, qs, qa):
    scale_ratio, alpha_ratio = ps / qs, qa / pa
    result = qa * jnp.log(scale_ratio) - jnp.log(alpha_ratio) + alpha_ratio - 1
    return _inf_where(ps < qs, result)


def kl_poisson_poisson(pr, qr):
    return pr * (jnp.log(pr) - jnp.log(qr)) - (pr - qr)


def kl_uniform_uniform(plo, phi, qlo, qhi):
    result = jnp.log((qhi - qlo) / (phi - plo))
    return _inf_where((qlo > plo) | (qhi < phi), result)


def kl_cauchy_cauchy(pl, ps, ql, qs):
    t1 = jnp.log((ps + qs) ** 2 + (pl - ql) ** 2)
    return t1 - jnp.log(4 * ps * qs)


# ------------------------------------------------------------------ across families


def kl_bernoulli_poisson(pp, pl, qr):
    return -D.bernoulli_entropy(pp, pl) - (pp * jnp.log(qr) - qr)


def kl_beta_continuous_bernoulli(p1, p0, qp, ql, q_lims):
    return (-_beta_entropy(p1, p0) - G.beta_mean(p1, p0) * ql - jnp.log1p(-qp)
            - O.continuous_bernoulli_log_norm(qp, ql, q_lims))


def _beta_entropy(p1, p0):
    return G.dirichlet_entropy(jnp.stack([p1, p0], -1))


def kl_beta_exponential(p1, p0, qr):
    return -_beta_entropy(p1, p0) - jnp.log(qr) + qr * (p1 / (p1 + p0))


def kl_beta_gamma(p1, p0, qc, qr):
    t1 = -_beta_entropy(p1, p0)
    t2 = lgamma(qc) - qc * jnp.log(qr)
    t3 = (qc - 1) * (digamma(p1) - digamma(p1 + p0))
    t4 = qr * p1 / (p1 + p0)
    return t1 + t2 - t3 + t4


def kl_beta_normal(p1, p0, ql, qs):
    e_beta = p1 / (p1 + p0)
    var_normal = qs**2
    t1 = -_beta_entropy(p1, p0)
    t2 = 0.5 * jnp.log(var_normal * 2 * math.pi)
    t3 = (e_beta * (1 - e_beta) / (p1 + p0 + 1) + e_beta**2) * 0.5
    t4 = ql * e_beta
    t5 = ql**2 * 0.5
    return t1 + t2 + (t3 - t4 + t5) / var_normal


def kl_beta_uniform(p1, p0, qlo, qhi):
    result = -_beta_entropy(p1, p0) + jnp.log(qhi - qlo)
    return _inf_where((qlo > 0.0) | (qhi < 1.0), result)


def kl_continuous_bernoulli_exponential(pp, pl, qr, p_lims):
    return (-O.continuous_bernoulli_entropy(pp, pl, p_lims) - jnp.log(qr)
            + qr * O.continuous_bernoulli_mean(pp, pl, p_lims))


def kl_continuous_bernoulli_normal(pp, pl, ql, qs, p_lims):
    t1 = -O.continuous_bernoulli_entropy(pp, pl, p_lims)
    t2 = 0.5 * (_LOG_2PI + (ql / qs) ** 2) + jnp.log(qs)
    mean = O.continuous_bernoulli_mean(pp, pl, p_lims)
    var = O.continuous_bernoulli_variance(pp, pl, p_lims)
    t3 = (var + mean**2 - 2.0 * ql * mean) / (2.0 * qs**2)
    return t1 + t2 + t3


def kl_continuous_bernoulli_uniform(pp, pl, qlo, qhi, p_lims):
    result = -O.continuous_bernoulli_entropy(pp, pl, p_lims) + jnp.log(qhi - qlo)
    return jnp.where((qlo >= 0.0) | (qhi <= 1.0), jnp.ones_like(result) * jnp.inf, result)


def kl_exponential_gamma(pr, qc, qr):
    ratio = qr / pr
    return (-qc * jnp.log(ratio) + ratio + lgamma(qc) + qc * EULER - (1 + EULER))


def kl_exponential_gumbel(pr, ql, qs):
    prod = pr * qs
    ratio = ql / qs
    t1 = jnp.log(prod) - 1
    t2 = jnp.exp(ratio) * prod / (prod + 1)
    return t1 - ratio + t2 + 1 / prod


def kl_exponential_normal(pr, ql, qs):
    var_normal, rate_sqr = qs**2, pr**2
    t1 = 0.5 * jnp.log(rate_sqr * var_normal * 2 * math.pi)
    t2, t3, t4 = 1 / rate_sqr, ql / pr, ql**2 * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


def kl_gamma_exponential(pc, pr, qr):
    return -G.gamma_entropy(pc, pr) - jnp.log(qr) + qr * pc / pr


def kl_gamma_gumbel(pc, pr, ql, qs):
    prod = pr * qs
    ratio = ql / qs
    t1 = (pc - 1) * digamma(pc) - lgamma(pc) - pc
    t2 = jnp.log(prod) + pc / prod
    t3 = jnp.exp(ratio) * (1 + 1 / prod) ** -pc - ratio
    return t1 + t2 + t3


def kl_gamma_normal(pc, pr, ql, qs):
    var_normal, beta_sqr = qs**2, pr**2
    t1 = 0.5 * jnp.log(beta_sqr * var_normal * 2 * math.pi) - pc - lgamma(pc)
    t2 = 0.5 * (pc**2 + pc) / beta_sqr
    t3 = ql * pc / pr
    t4 = 0.5 * ql**2
    return t1 + (pc - 1) * digamma(pc) + (t2 - t3 + t4) / var_normal


def kl_gumbel_normal(pl, ps, ql, qs):
    ratio = ps / qs
    t1 = jnp.log(ratio / math.sqrt(2 * math.pi))
    t2 = (math.pi * ratio * 0.5) ** 2 / 3
    t3 = ((pl + ps * EULER - ql) / qs) ** 2 * 0.5
    return -t1 + t2 + t3 - (EULER + 1)


def kl_laplace_normal(pl, ps, ql, qs):
    var_normal = qs**2
    ratio = ps**2 / var_normal
    t1 = 0.5 * jnp.log(2 * ratio / math.pi)
    t2, t3, t4 = 0.5 * pl**2, pl * ql, 0.5 * ql**2
    return -t1 + ratio + (t2 - t3 + t4) / var_normal - 1


def kl_normal_gumbel(pl, ps, ql, qs):
    mean_ratio = pl / qs
    var_ratio = (ps / qs) ** 2
    loc_ratio = ql / qs
    t1 = jnp.log(var_ratio) * 0.5
    t2 = mean_ratio - loc_ratio
    t3 = jnp.exp(-mean_ratio + 0.5 * var_ratio + loc_ratio)
    return -t1 + t2 + t3 - (0.5 * (1 + _LOG_2PI))


def kl_normal_laplace(pl, ps, ql, qs):
    diff = pl - ql
    ratio = ps / qs
    diff_ratio = diff / ps
    t1 = jnp.log(ratio)
    t2 = math.sqrt(2 / math.pi) * ps * jnp.exp(-0.5 * diff_ratio**2)
    t3 = diff * erf(math.sqrt(0.5) * diff_ratio)
    return -t1 + (t2 + t3) / qs - (0.5 * (1 + math.log(0.5 * math.pi)))


def kl_pareto_exponential(ps, pa, qr):
    prod = ps * qr
    result = jnp.log(pa / prod) - 1 / pa + pa * prod / (pa - 1) - 1
    return _inf_where(pa <= 1, result)


def kl_pareto_gamma(ps, pa, qc, qr):
    common = jnp.log(ps) + 1 / pa
    t1 = jnp.log(pa) - common
    t2 = lgamma(qc) - qc * jnp.log(qr)
    t3 = (1 - qc) * common
    t4 = qr * pa * ps / (pa - 1)
    return _inf_where(pa <= 1, t1 + t2 + t3 + t4 - 1)


def kl_pareto_normal(ps, pa, ql, qs):
    var_normal = 2 * qs**2
    common = ps / (pa - 1)
    t1 = jnp.log(math.sqrt(2 * math.pi) * qs * pa / ps)
    t2 = 1 / pa
    t3 = pa * common**2 / (pa - 2)
    t4 = (pa * common - ql) ** 2
    return _inf_where(pa <= 2, t1 - t2 + (t3 + t4) / var_normal - 1)


def kl_uniform_beta(plo, phi, q1, q0):
    common = phi - plo
    t1 = jnp.log(common)
    t2 = (q1 - 1) * (xlogy(phi, phi) - xlogy(plo, plo) - common) / common
    t3 = (q0 - 1) * (xlogy(1 - phi, 1 - phi) - xlogy(1 - plo, 1 - plo) + common) / common
    t4 = lgamma(q1) + lgamma(q0) - lgamma(q1 + q0)
    return _inf_where((phi > 1.0) | (plo < 0.0), t3 + t4 - t1 - t2)


def kl_uniform_continuous_bernoulli(plo, phi, qp, ql, q_lims):
    result = (-C.uniform_entropy(plo, phi) - C.uniform_mean(plo, phi) * ql - jnp.log1p(-qp)
              - O.continuous_bernoulli_log_norm(qp, ql, q_lims))
    return jnp.where((phi >= 1.0) | (plo <= 0.0), jnp.ones_like(result) * jnp.inf, result)


def kl_uniform_exponential(plo, phi, qr):
    result = qr * (phi + plo) / 2 - jnp.log((phi - plo) * qr)
    return _inf_where(plo < 0.0, result)


def kl_uniform_gamma(plo, phi, qc, qr):
    common = phi - plo
    t2 = lgamma(qc) - qc * jnp.log(qr)
    t3 = (1 - qc) * (xlogy(phi, phi) - xlogy(plo, plo) - common) / common
    t4 = qr * (phi + plo) / 2
    return _inf_where(plo < 0.0, -jnp.log(common) + t2 + t3 + t4)


def kl_uniform_gumbel(plo, phi, ql, qs):
    common = qs / (phi - plo)
    high_diff, low_diff = (phi - ql) / qs, (plo - ql) / qs
    t1 = jnp.log(common) + 0.5 * (high_diff + low_diff)
    t2 = common * (jnp.exp(-high_diff) - jnp.exp(-low_diff))
    return t1 - t2


def kl_uniform_normal(plo, phi, ql, qs):
    common = phi - plo
    t1 = jnp.log(math.sqrt(math.pi * 2) * qs / common)
    t2 = common**2 / 12
    t3 = ((phi + plo - 2 * ql) / 2) ** 2
    return t1 + 0.5 * (t2 + t3) / qs**2


def kl_uniform_pareto(plo, phi, qs, qa):
    support = phi - plo
    t1 = jnp.log(qa * qs**qa * support)
    t2 = (xlogy(phi, phi) - xlogy(plo, plo) - support) / support
    return _inf_where(plo < qs, t2 * (qa + 1) - t1)
