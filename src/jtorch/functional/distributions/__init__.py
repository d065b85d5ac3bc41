"""The math of torch.distributions as pure functions on JAX arrays.

Densities, cdfs, entropies, moments, samplers (given a key), transforms and KL
divergences. ``jtorch.distributions`` keeps parameters, shapes and validation and calls
these through the eager dispatcher, so the same math runs eagerly, compiled and from JAX.
A family's functions are named ``<family>_<what>``; ``MATH`` maps each name to its function.
"""

from __future__ import annotations

from . import continuous, discrete, gamma, kl, multivariate, other, transforms

MATH = {
    name: fn
    for module in (continuous, discrete, gamma, multivariate, other)
    for name, fn in vars(module).items()
    if callable(fn) and not name.startswith("_")
    and getattr(fn, "__module__", "") == module.__name__
}

__all__ = ["MATH", "continuous", "discrete", "gamma", "kl", "multivariate", "other", "transforms"]
