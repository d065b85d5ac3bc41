from __future__ import annotations

import jtorch

from . import constraints
from ._kernel import call
from ._probs_logits import ProbsLogits
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Binomial"]


class _CountProbsLogits(ProbsLogits):
    """``total_count`` broadcast with whichever of ``probs``/``logits`` is given."""

    def _set_count(self, total_count, probs, logits):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name = "probs" if probs is not None else "logits"
        count, param = broadcast_all(total_count, probs if probs is not None else logits)
        self.total_count = count.type_as(param)
        setattr(self, name, param)
        self._param = param


class Binomial(_CountProbsLogits, Distribution):
    """The number of successes in ``total_count`` Bernoulli(probs) trials."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True
    _family, _params = "binomial", ("total_count", "probs", "logits")

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self._set_count(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Binomial, batch_shape, _instance,
                                   ("total_count", "probs", "logits"))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    def _homogeneous_count(self, what: str) -> int:
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        n = self._homogeneous_count("entropy")
        return call(self._math("entropy"), *self._param_values(), n=n)

    def enumerate_support(self, expand=True):
        n = self._homogeneous_count("enumerate_support")
        values = jtorch.arange(1 + n, dtype=self._param.dtype, device=self._param.device)
        return self._enumerate(values, expand)
