from __future__ import annotations

import jax.numpy as jnp

import jtorch

from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import _all_numbers, broadcast_all

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """The Gumbel (type-1 extreme value) distribution."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    _family, _params = "gumbel", ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        fi = jnp.finfo(self.loc.dtype.np)
        if _all_numbers(loc, scale):
            base_dist = Uniform(float(fi.tiny), float(1 - fi.eps), validate_args=validate_args)
        else:
            base_dist = Uniform(jtorch.full_like(self.loc, float(fi.tiny)),
                                jtorch.full_like(self.loc, float(1 - fi.eps)),
                                validate_args=validate_args)
        transforms = [ExpTransform().inv,
                      AffineTransform(loc=0, scale=-jtorch.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    log_prob = Distribution.log_prob

    @property
    def mode(self):
        return self.loc
