from __future__ import annotations

from ..eager.tensor import Size
from . import constraints
from ._probs_logits import ProbsLogits
from .exp_family import ExponentialFamily
from .utils import clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ProbsLogits, ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem & Cunningham, 2019)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True
    _family, _params = "continuous_bernoulli", ("probs", "logits")

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        self._param, is_scalar = self._set_probs_or_logits(probs, logits)
        if probs is not None:
            # PyTorch checks (and clamps) probs here only when validate_args is given.
            if validate_args is not None and not self.arg_constraints["probs"].check(
                    self.probs).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        batch_shape = Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(ContinuousBernoulli, batch_shape, _instance,
                                  ("probs", "logits"))
        new._lims = self._lims
        return new

    def _statics(self):
        return {"lims": tuple(self._lims)}

    def _normalizer_statics(self):
        return self._statics()

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _cont_bern_log_norm(self):
        return self._apply("log_norm")

    @property
    def _natural_params(self):
        return (self.logits,)
