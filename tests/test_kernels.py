"""Eager kernels (jtorch/_kernels.py): compiled with jtorch's CPU options at top level,
and still usable inside another trace, where JAX refuses per-jit compiler options."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import jtorch
from jtorch import _kernels


def test_kernel_top_level_and_nested_agree():
    k = _kernels.jit(lambda a, b: jnp.exp(a) * b)
    a, b = jnp.arange(3.0), jnp.full(3, 2.0)
    top = k(a, b)
    nested = jax.jit(lambda a, b: k(a, b) + 1)(a, b)
    np.testing.assert_allclose(np.asarray(nested), np.asarray(top) + 1)
    assert k._cache_size() == 1  # nested, it is traced into the outer program, not compiled
    if jax.default_backend() == "cpu":
        assert _kernels.options() == {"xla_cpu_use_fusion_emitters": False}


def test_kernel_decorator_with_static_args_and_errors_pass_through():
    @_kernels.jit(static_argnums=1)
    def first(x, n):
        if n > x.shape[0]:
            raise ValueError("n too large")
        return x[:n]

    assert first(jnp.arange(5), 2).tolist() == [0, 1]
    try:
        first(jnp.arange(5), 9)
    except ValueError as e:  # the kernel's own error, not swallowed by the nested fallback
        assert "n too large" in str(e)
    else:
        raise AssertionError("expected ValueError")


def test_eager_ops_inside_a_users_jax_jit():
    # jtorch ops called on tracers (torch.func / to_jax / torch.compile all do this)
    f = jtorch.func.to_jax(lambda x: (x * 2).exp().sum())
    x = np.linspace(0, 1, 4, dtype=np.float32)
    np.testing.assert_allclose(float(jax.jit(f)(x)), float(np.exp(2 * x).sum()), rtol=1e-6)
