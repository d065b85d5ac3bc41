from __future__ import annotations

from . import constraints
from .binomial import _CountProbsLogits
from .distribution import Distribution

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_CountProbsLogits, Distribution):
    """The number of successes before ``total_count`` failures of Bernoulli(probs) trials."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer
    _family, _params = "negative_binomial", ("total_count", "probs", "logits")

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self._set_count(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(NegativeBinomial, batch_shape, _instance,
                                   ("total_count", "probs", "logits"))
