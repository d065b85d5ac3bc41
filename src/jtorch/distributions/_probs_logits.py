"""The shared parameterisation of distributions given either ``probs`` or ``logits``."""

from __future__ import annotations

from .utils import _NUMBER, broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class ProbsLogits:
    """Holds exactly one of ``probs``/``logits`` and derives the other lazily, as PyTorch."""

    _is_binary = True

    def _set_probs_or_logits(self, probs, logits):
        """Store the given parameter, broadcast to a tensor; return it and whether the
        argument was a Python number."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        (param,) = broadcast_all(given)
        setattr(self, name, param)
        return param, isinstance(given, _NUMBER)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=self._is_binary)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=self._is_binary)

    @property
    def param_shape(self):
        return self._param.size()
