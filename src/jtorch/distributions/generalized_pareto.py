from __future__ import annotations

from ..eager.tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import _all_numbers, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution with location, scale and shape ``concentration``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True
    _family, _params = "generalized_pareto", ("loc", "scale", "concentration")

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers = _all_numbers(loc, scale, concentration)
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(GeneralizedPareto, batch_shape, _instance, self._params)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._apply("log_survival_function", value)

    def log_cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._apply("log_cdf", value)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.loc, self._apply("upper"))
