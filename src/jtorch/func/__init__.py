"""torch.func: functional transforms over jtorch code, and JAX interop (``to_jax``)."""

from __future__ import annotations

from ._jax import state_of, to_jax

__all__ = ["to_jax", "state_of"]
