from __future__ import annotations

from ..eager.tensor import Size
from . import constraints
from ._probs_logits import ProbsLogits
from .distribution import Distribution

__all__ = ["Geometric"]


class Geometric(ProbsLogits, Distribution):
    """The number of failures before the first success in Bernoulli(probs) trials."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer
    _family, _params = "geometric", ("probs", "logits")

    def __init__(self, probs=None, logits=None, validate_args=None):
        param, is_scalar = self._set_probs_or_logits(probs, logits)
        batch_shape = Size() if is_scalar else param.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not valid.all():
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to be positive but found "
                    f"invalid values:\n{value.data[~valid]}")

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Geometric, batch_shape, _instance, ("probs", "logits"))
