from __future__ import annotations

import jtorch

from ..eager.tensor import Size
from . import constraints
from ._probs_logits import ProbsLogits
from .exp_family import ExponentialFamily

__all__ = ["Bernoulli"]


class Bernoulli(ProbsLogits, ExponentialFamily):
    """The Bernoulli distribution, given ``probs`` or ``logits`` (not both)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0
    _family, _params = "bernoulli", ("probs", "logits")

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._param, is_scalar = self._set_probs_or_logits(probs, logits)
        batch_shape = Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Bernoulli, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return self.probs

    def enumerate_support(self, expand=True):
        values = jtorch.arange(2, dtype=self._param.dtype, device=self._param.device)
        return self._enumerate(values, expand)
