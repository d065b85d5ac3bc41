from __future__ import annotations

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["VonMises"]


class VonMises(Distribution):
    """The von Mises (circular normal) distribution, with values in [-pi, pi).

    Differences from PyTorch: ``variance`` is recomputed on each access instead of being a
    cached ``lazy_property``."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False
    _family, _params = "von_mises", ("loc", "concentration")

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            validate_args = self.__dict__.get("_validate_args")
            loc = self.loc.expand(batch_shape)
            concentration = self.concentration.expand(batch_shape)
            return type(self)(loc, concentration, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
