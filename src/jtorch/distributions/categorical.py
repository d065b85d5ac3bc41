from __future__ import annotations

import jtorch

from ..functional.distributions import discrete as FD
from . import constraints
from ._kernel import call
from ._probs_logits import ProbsLogits
from .distribution import Distribution

__all__ = ["Categorical"]


class Categorical(ProbsLogits, Distribution):
    """A distribution over ``{0, ..., K-1}`` given ``probs`` or ``logits`` over the last dim."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True
    _is_binary = False
    _family, _params = "categorical", ("probs", "logits")

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = self._param = call(FD.categorical_normalize_probs, probs)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = self._param = call(FD.categorical_normalize_logits, logits)
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(Categorical, batch_shape, _instance, ("probs", "logits"))
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    def enumerate_support(self, expand=True):
        values = jtorch.arange(self._num_events, dtype=jtorch.long, device=self._param.device)
        return self._enumerate(values, expand)
