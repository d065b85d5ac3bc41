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
        assert _kernels.options() == {"xla_cpu_use_fusion_emitters": False,
                                      "xla_backend_optimization_level": 1}


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


def test_lowering_shares_one_mlir_context_per_thread():
    """JAX lowers into a reused MLIR context (see _kernels.share_mlir_context): programs
    lowered one after another give the same results as with fresh contexts, another thread
    gets its own context, and the context is renewed after _CONTEXT_USES programs."""
    import threading

    from jax._src.interpreters import mlir

    assert _kernels.share_mlir_context()
    assert getattr(mlir.make_ir_context, "_jtorch_shared", False)
    first, second = mlir.make_ir_context(), mlir.make_ir_context()
    assert first is second or _kernels._shared.uses == 1  # renewed between the two calls
    fresh = mlir.make_ir_context.__wrapped__()
    assert fresh is not first
    other = []
    t = threading.Thread(target=lambda: other.append(mlir.make_ir_context()))
    t.start()
    t.join()
    assert other[0] is not mlir.make_ir_context()
    last = mlir.make_ir_context()
    _kernels._shared.uses = _kernels._CONTEXT_USES  # used up: the next program gets a new one
    renewed = mlir.make_ir_context()
    assert renewed is not last and _kernels._shared.uses == 1
    for n in range(1, 6):  # several new programs through the shared context, exact results
        x = np.arange(n * 7, dtype=np.float32)
        out = jax.jit(lambda a, n=n: jnp.cumsum(a * n) - a)(x)
        np.testing.assert_array_equal(np.asarray(out), np.cumsum(x * n) - x)
    assert jtorch.allclose(jtorch.arange(5.0) ** 2, jtorch.tensor([0.0, 1, 4, 9, 16]))


def test_convolution_kernels_keep_full_optimisation():
    """Convolutions (and their backward application) keep LLVM's default level: XLA:CPU's
    dilated-input convolutions run 4x slower below it. Other kernels get level 1."""
    full = _kernels.full_optimisation
    assert full(("conv_transpose2d", ("input",))) and full("conv2d") and not full("add")
    assert full(("max_pool2d_with_indices", ("input",)))
    assert full(("backward", ("conv2d", ("input",)), (0,), 2))
    assert not full(("mul", ("input", "other"))) and not full(7)
    m = jtorch.nn.ConvTranspose2d(4, 3, 4, 2, 1)
    x = jtorch.randn(2, 4, 3, 3, requires_grad=True)
    m(x).sum().backward()  # runs through the full-optimisation kernels
    assert x.grad.shape == x.shape
