"""torch semantics as pure functions on jax.Array: usable from any JAX program.

Every function here is pure (no Tensor, no grad mode, no global RNG: random functions
take an explicit key) and works under ``jax.jit``, ``jax.vmap`` and ``jax.grad``.
Python scalars act as torch's "wrapped numbers" in type promotion.
"""

from .creation import arange, empty, eye, full, linspace, ones, zeros
from .elementwise import *  # noqa: F403
from .indexing import gather, index, index_add, index_put, masked_fill, scatter, scatter_add
from .linalg import matmul
from .random import normal, rand, randint, randn, uniform
from .reduction import max, max_dim, maximum, mean, min, min_dim, minimum, sum
from .shape import (
    apply_chain,
    as_strided,
    cat,
    diagonal,
    expand,
    narrow,
    permute,
    reshape,
    scatter_chain,
    select,
    squeeze,
    stack,
    t,
    transpose,
    unfold,
    unsqueeze,
    view,
)
