from __future__ import annotations

import jtorch

from ..eager.tensor import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _all_numbers, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """The exponential distribution with rate ``rate``."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0
    _family, _params = "exponential", ("rate",)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if _all_numbers(rate) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Exponential, batch_shape, _instance, self._params)

    @property
    def mode(self):
        return jtorch.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()
