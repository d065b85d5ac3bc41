"""torch.distributions.ExponentialFamily: entropy and KL from the log-normalizer's gradient."""

from __future__ import annotations

import jtorch

from ..functional.distributions import MATH
from ._kernel import call
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Densities ``exp(<t(x), theta> - F(theta) + k(x))``; ``_natural_params`` are ``theta``,
    ``_log_normalizer`` is ``F``, ``_mean_carrier_measure`` is ``E[k(x)]``."""

    @property
    def _natural_params(self) -> tuple:
        fn = MATH.get(f"{self._family}_natural_params") if self._family else None
        if fn is None:
            raise NotImplementedError
        return self._apply("natural_params")

    def _log_normalizer(self, *natural_params):
        fn = MATH.get(f"{self._family}_log_normalizer") if self._family else None
        if fn is None:
            raise NotImplementedError
        return call(fn, *natural_params, **self._normalizer_statics())

    def _normalizer_statics(self) -> dict:
        return {}

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self):
        """Entropy through the Bregman divergence of the log-normalizer (autograd)."""
        if self._family is not None and f"{self._family}_entropy" in MATH:
            return super().entropy()
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = jtorch.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for np_, g in zip(nparams, gradients, strict=True):
            result -= (np_ * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
