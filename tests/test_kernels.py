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


def test_cpu_convolutions_run_in_xla_not_ynnpack(tmp_path, monkeypatch):
    """On the CPU a convolution's kernels, and whole programs with a large convolution,
    keep convolutions out of YNNPACK (see _kernels); other programs keep XLA's defaults.
    The option is tried once per JAX version and the answer kept in the cache directory;
    an option this XLA lacks is left out."""
    if jax.default_backend() != "cpu":
        return
    opts = _kernels.cpu_library_options()
    assert opts == _kernels._NO_YNN_CONVOLUTIONS  # this project's jaxlib has the option
    assert _kernels.convolution(("conv2d", ("input",))) and not _kernels.convolution("add")
    assert _kernels.convolution(("backward", ("conv_transpose2d",), (0,), 2))
    seen = []
    real = jax.jit
    monkeypatch.setattr(jax, "jit", lambda fn, **kw: seen.append(kw) or real(fn, **kw))
    _kernels.jit(lambda x: x, conv=True)(jnp.ones(2))
    _kernels.jit(lambda x: x)(jnp.ones(2))
    built = [kw["compiler_options"] for kw in seen if "compiler_options" in kw]
    assert built[-2].items() >= opts.items()
    assert "xla_cpu_experimental_ynn_fusion_type" not in built[-1]
    monkeypatch.undo()

    def step(x, w):  # a convolution inside a checkpoint inside a scan
        body = jax.checkpoint(lambda c, _: (jax.lax.conv_general_dilated(
            c, w, (1, 1), "SAME"), None))
        return jax.lax.scan(body, x, None, length=2)[0]

    small = jax.make_jaxpr(step)(jnp.ones((2, 4, 8, 8)), jnp.ones((4, 4, 3, 3)))
    big = jax.make_jaxpr(step)(jnp.ones((64, 32, 26, 26)), jnp.ones((32, 32, 3, 3)))
    assert _kernels.program_options(small) == {} and _kernels.program_options(big) == opts

    def conv(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "VALID")

    x, w = jnp.ones((2, 8, 10, 10), jnp.float32), jnp.ones((8, 8, 3, 3), jnp.float32)
    text = jax.jit(conv, compiler_options=opts).lower(x, w).compile().as_text()
    assert "convolution(" in text and "ynn_fusion" not in text
    m = jtorch.nn.Conv2d(8, 8, 3)  # an eager convolution and its gradients: XLA's values
    xt = jtorch.tensor(np.asarray(x), requires_grad=True)
    m(xt).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), np.asarray(jax.grad(
        lambda a: (conv(a, m.weight._value) + m.bias._value[:, None, None]).sum())(x)),
        rtol=1e-5)

    from jtorch import _cache
    monkeypatch.setattr(_cache, "_DIR", str(tmp_path))
    bogus = {"xla_cpu_no_such_option_for_jtorch": "1"}
    assert not _kernels._accepted(bogus) and _kernels._accepted(opts)
    kept = sorted(p.read_text() for p in (tmp_path / "jtorch-options").iterdir())
    assert kept == ["0", "1"]
    monkeypatch.setattr(jax, "jit", None)  # asked again, the answers come from the files
    assert not _kernels._accepted(bogus) and _kernels._accepted(opts)


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


def test_optimizer_group_updates_compile_with_xla_defaults(monkeypatch):
    """An optimizer's update of a big parameter group is built with XLA's own options (its
    fusion emitters: see _kernels); a small group's and other kernels with the eager
    options."""
    from jtorch.optim import optimizer

    seen = []
    real = jax.jit

    def spy(fn, **kw):
        seen.append((fn, kw.get("compiler_options")))
        return real(fn, **kw)

    monkeypatch.setattr(jax, "jit", spy)
    def update(p, g, s, lr, probe):
        return p - lr * g, s

    def options(kernel):  # those of the jit the kernel calls (the last one built for it)
        return [o for fn, o in seen if fn is kernel.__wrapped__][-1]

    x = jnp.ones(3)
    small, big = (optimizer._kernel(update, (("probe", 1),), n) for n in (2, _kernels.MANY))
    for step, n in ((small, 2), (big, _kernels.MANY)):
        out = step([x * 3] * n, [x] * n, [{}] * n, {"lr": 0.5})
        np.testing.assert_array_equal(np.asarray(out[-1][0]), np.full(3, 2.5))
    plain = _kernels.jit(lambda x: x * 2)
    plain(x)
    assert options(big) is None
    if jax.default_backend() == "cpu":
        assert options(small) == options(plain) == _kernels.options()


def test_training_keeps_uncommitted_arrays_so_kernels_compile_once():
    """jit compiles a kernel again when an argument turns committed. Parameters, gradients
    and optimizer state created on the default device stay uncommitted through backward
    and the optimizer step, so the second training step compiles nothing new; a
    committed output keeps a committed seed."""
    from jtorch.eager import dispatch

    jtorch.manual_seed(0)
    m = jtorch.nn.Sequential(jtorch.nn.Linear(3, 5), jtorch.nn.Tanh(), jtorch.nn.Linear(5, 2))
    opt = jtorch.optim.Adam(m.parameters(), 1e-2)
    x, y = jtorch.randn(4, 3), jtorch.randint(0, 2, (4,))

    def compiled():
        return sum(k._cache_size() for k in (*dispatch._FWD.values(), *dispatch._VJP.values()))

    sizes = []
    for _ in range(3):
        loss = jtorch.nn.functional.cross_entropy(m(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sizes.append(compiled())
    assert sizes[1] == sizes[2] == sizes[0], sizes
    for p in m.parameters():
        assert not p._value.committed and not p.grad._value.committed
        assert not any(s._value.committed for s in opt.state[p].values()
                       if isinstance(s, jtorch.Tensor))
    w = jtorch.ones(2, requires_grad=True)
    w._storage.value = jax.device_put(w._value, jax.devices()[0])  # as placement commits it
    assert w._value.committed
    (w * 2).sum().backward()
    assert w.grad._value.committed and w.grad.tolist() == [2.0, 2.0]


def test_fills_inside_a_jax_trace_stay_in_the_program():
    """Host-built fills are for eager code: under a JAX trace a fill is a traced op, not a
    host array captured as a constant (which would grow the program with the fill)."""

    def f(x):
        return x + (jtorch.zeros(3) + jtorch.full((3,), 2.0))._value

    jaxpr = jax.make_jaxpr(f)(jnp.ones(3))
    assert not jaxpr.consts and "device_put" not in str(jaxpr), jaxpr
    assert jax.jit(f)(jnp.ones(3)).tolist() == [3.0, 3.0, 3.0]


def test_put_is_device_put_without_its_python():
    """``_kernels.put`` gives what ``jax.device_put`` gives for NumPy arrays (values, dtype,
    shape, device, uncommitted, not weakly typed), strided and empty ones included, and is
    ``jax.device_put`` itself inside a trace."""
    cases = [np.random.default_rng(0).standard_normal((32, 10)).astype(np.float32),
             np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2], np.array(2.5),
             np.ones((0, 3), np.float32), np.array([True, False]),
             np.arange(3, dtype=np.uint8), np.ones(4, jtorch.bfloat16.np)]
    for a in cases:
        got, want = _kernels.put(a), jax.device_put(a)
        assert (got.dtype, got.shape, got.committed, got.weak_type, got.sharding) == (
            want.dtype, want.shape, want.committed, want.weak_type, want.sharding)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    traced = jax.jit(lambda x: x + _kernels.put(np.ones(3, np.float32)))(jnp.ones(3))
    np.testing.assert_array_equal(np.asarray(traced), np.full(3, 2.0, np.float32))


def test_committed_output_recorded_lazily_keeps_a_committed_seed(monkeypatch):
    """An output a recorded op computes (eager/lazy.py) gets its implicit seed after it
    has run on the node-by-node walk, so a committed graph still commits the seed and the
    gradients that derive from the seed alone (``w * 2``'s)."""
    from jtorch.eager.autograd import fused

    monkeypatch.setattr(fused, "AFTER", 0)  # the walk
    for _ in range(3):  # the ops' types seen: now they are recorded
        w = jtorch.ones(2, requires_grad=True)
        (w * 2).sum().backward()
    w = jtorch.ones(2, requires_grad=True)
    w._storage.value = jax.device_put(w._value, jax.devices()[0])
    loss = (w * 2).sum()
    assert type(loss._storage).__name__ == "LazyStorage"
    loss.backward()
    assert w.grad._value.committed and w.grad.tolist() == [2.0, 2.0]
