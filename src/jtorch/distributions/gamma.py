from __future__ import annotations

import jtorch

from ..eager.tensor import Size, Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _all_numbers, broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0
    _family, _params = "gamma", ("concentration", "rate")

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch_shape = Size() if _all_numbers(concentration, rate) else self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gamma, batch_shape, _instance, ("concentration", "rate"))

    def log_prob(self, value):
        if not isinstance(value, Tensor):  # PyTorch's Gamma alone accepts a Python number
            value = jtorch.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        return super().log_prob(value)
