"""Factories and random ops (bound by eager/creation.py and eager/random_ops.py).

The in-place random ops' "check" validates their parameters on the host (PyTorch's
errors) and may return them normalised; it gets ``(dtype, params dict)``.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes as D
from .._registry import op
from ..functional import creation, random

_F = dict(kind="factory", method=False)
op("zeros", creation.zeros, varargs="size", **_F)
op("ones", creation.ones, varargs="size", **_F)
op("empty", creation.empty, varargs="size", **_F)
op("full", creation.full, **_F)
op("arange", creation.arange, **_F)
op("linspace", creation.linspace, **_F)
op("logspace", creation.logspace, **_F)
op("eye", creation.eye, **_F)
op("rand", random.rand, kind="random", varargs="size", method=False)
op("randn", random.randn, kind="random", varargs="size", method=False)
op("randint", random.randint, kind="random", method=False)
op("randperm", random.randperm, kind="random", method=False)
op("normal", random.normal_tensor, kind="random", method=False)


def _bernoulli_p(operands, statics):
    p = operands.get("p")
    x = operands["input"]
    if isinstance(p, bool | int | float) and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    probs = x if p is None else p
    if hasattr(probs, "dtype") and probs.dtype._kind >= 2 and probs.numel():
        host = np.asarray(probs._value)
        if not ((host >= 0) & (host <= 1)).all():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")


def _multinomial(operands, statics):
    x = operands["input"]
    if x.dtype._kind == 2 and x.dim() in (1, 2) and x.numel():
        host = np.asarray(x._value, dtype=np.float64)
        if not np.isfinite(host).all() or (host < 0).any():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (host.reshape(-1, host.shape[-1]).sum(-1) <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _poisson(operands, statics):
    x = operands["input"]
    if x.dtype._kind == 2 and x.numel() and (np.asarray(x._value) < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")


op("bernoulli", random.bernoulli, kind="random", extra={"check": _bernoulli_p})
op("poisson", random.poisson, kind="random", method=False, extra={"check": _poisson})
op("binomial", random.binomial, kind="random", method=False)
op("multinomial", random.multinomial, kind="random", static=("num_samples", "replacement"),
   extra={"check": _multinomial})


def _positive(op_name, name, label=None, floating=True):
    def check(dtype, vals):
        v = vals[name]
        if not v > 0:
            raise RuntimeError(f"{op_name} expects {label or name} > 0.0, but found "
                               f"{label or name}={v}")

    return check


def _normal_check(dtype, vals):
    random.check_normal(dtype, vals["std"])


def _uniform_check(dtype, vals):
    random.check_uniform(dtype, vals["low"], vals["high"])


def _bernoulli_inplace(dtype, vals):
    p = vals["p"]
    if isinstance(p, bool | int | float):
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    else:
        _bernoulli_p({"input": p}, {})


def _geometric_check(dtype, vals):
    p = vals["p"]
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")


def _random_check(dtype, vals):
    low, high = random.random_range(dtype, vals["low"], vals["high"])
    if dtype._kind == 3:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    return {"low": low, "high": high}


_R = dict(kind="random_", function=False)
op("normal_", random.normal, **_R, extra={"check": _normal_check})
op("uniform_", random.uniform, **_R, extra={"check": _uniform_check})
op("bernoulli_", random.bernoulli_, **_R, extra={"check": _bernoulli_inplace},
   grad_name=lambda s, v: f"BernoulliBackward{1 if isinstance(v['p'], float | int) else 2}")
op("exponential_", random.exponential, **_R,
   extra={"check": _positive("exponential_", "lambd", "lambda")})
op("geometric_", random.geometric, **_R, extra={"check": _geometric_check})
op("log_normal_", random.log_normal, **_R, extra={"check": _positive("log_normal_", "std")})
op("cauchy_", random.cauchy, **_R, extra={"check": _positive("cauchy_", "sigma")})
op("random_", random.random_, **_R, static=("low", "high"), extra={"check": _random_check},
   grad_name=lambda s, v: "RandomBackward0")
del D
