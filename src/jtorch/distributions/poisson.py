from __future__ import annotations

from ..eager.tensor import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _all_numbers, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """The Poisson distribution with rate ``rate``."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer
    _family, _params = "poisson", ("rate",)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if _all_numbers(rate) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Poisson, batch_shape, _instance, self._params)

    @property
    def mean(self):
        return self.rate

    @property
    def variance(self):
        return self.rate
