"""How jtorch compiles its eager kernels: ``jax.jit`` with options for many small programs.

Eager mode compiles one small XLA program per op signature (and per VJP), so a program's
first step is mostly XLA compile time. On the CPU backend these kernels skip XLA's newer
fusion emitters (``xla_cpu_use_fusion_emitters=false``): that halves their compile time
(the digits CNN's first step 3.1 -> 2.2 s cold) at no measured cost in steady-state
speed, because an eager kernel is one op and has little to fuse. They are also built at
LLVM optimisation level 1 (``xla_backend_optimization_level=1``): about 40% less compile
time again (an LSTM layer's forward and backward 1.0 -> 0.57 s; the LSTM language model's
cold run 22.7 -> 14.8 s), while steady steps stayed within run-to-run noise (MLP, CNN,
LSTM steps). Convolution and pooling kernels keep LLVM's default level
(``full_optimisation``): a transposed convolution runs 4x slower at level 1 or 2, pooling
about 10% slower. So do the few big programs compiled once and run every step (an
optimizer's parameter-group update, a fused backward: ``jit(fn, full_opt=True)``), whose
loops over whole parameter sets ran the MLP step about 25% slower at level 1. Programs compiled by
``torch.compile`` keep XLA's defaults. ``JTORCH_EAGER_XLA_DEFAULTS=1`` turns both off.

``jit(fn, **kw)`` is ``jax.jit`` with those options, built on its first call (kernels
defined at import start no JAX backend). JAX accepts compiler options only on a top-level
jit, so called inside another trace (``torch.compile``, ``torch.func``, a user's
``jax.jit``) a kernel runs as a plain nested ``jax.jit``.

JAX builds a fresh MLIR context for every program it lowers (about 3 ms here: dialect
registration), even when the executable then comes from the on-disk cache. With the first
kernel, jtorch has JAX reuse one context per thread for up to ``_CONTEXT_USES`` programs
(see ``share_mlir_context``): a warm start of the digits CNN lowers its 83 programs in
0.6 s instead of 0.8. ``JTORCH_SHARED_MLIR_CONTEXT=0`` turns this off.

Host data (``torch.tensor``, ``from_numpy``, checkpoints, boolean-mask indices) reaches
the device through ``device_array``, a plain transfer: ``jnp.asarray`` compiles a
conversion program for every new shape.
"""

from __future__ import annotations

import functools
import os
import threading

import jax
import jax.numpy as jnp
import numpy as np

_CPU_OPTIONS = {"xla_cpu_use_fusion_emitters": False, "xla_backend_optimization_level": 1}
_options: dict | None = None


def options() -> dict:
    """The compiler options eager kernels get (decided once, at the first kernel)."""
    global _options
    if _options is None:
        off = os.environ.get("JTORCH_EAGER_XLA_DEFAULTS", "") not in ("", "0")
        _options = {} if off or jax.default_backend() != "cpu" else dict(_CPU_OPTIONS)
        share_mlir_context()
    return _options


_CONTEXT_USES = 256  # a context's uniqued types and attributes grow with use: renew it
_shared = threading.local()


def share_mlir_context() -> bool:
    """Make JAX's lowering reuse one MLIR context per thread; True when it does.

    Only a context's uniqued types and attributes outlive a lowered program, so a thread
    renews its context every ``_CONTEXT_USES`` programs. Off with
    ``JTORCH_SHARED_MLIR_CONTEXT=0``, or if this JAX lacks the function it replaces.
    """
    if os.environ.get("JTORCH_SHARED_MLIR_CONTEXT", "1").strip() in ("0", "false", "off"):
        return False
    try:
        from jax._src.interpreters import mlir
    except ImportError:
        return False
    make = getattr(mlir, "make_ir_context", None)
    if make is None:
        return False
    if getattr(make, "_jtorch_shared", False):
        return True

    def make_ir_context():
        ctx, uses = getattr(_shared, "context", None), getattr(_shared, "uses", 0)
        if ctx is None or uses >= _CONTEXT_USES:
            ctx, uses = make(), 0
            _shared.context = ctx
        _shared.uses = uses + 1
        return ctx

    make_ir_context._jtorch_shared = True
    make_ir_context.__wrapped__ = make
    mlir.make_ir_context = make_ir_context
    return True


def full_optimisation(key) -> bool:
    """Whether the kernels of the op a dispatch ``key`` names (its first item, or the op
    of a replayed VJP's ``("backward", key, ...)``) keep LLVM's default optimisation
    level: XLA:CPU's convolutions with dilated inputs (transposed convolutions, input
    gradients of strided ones) run 4x slower below it, pooling about 10% slower."""
    op = key[0] if type(key) is tuple and key else key
    if op == "backward":
        return full_optimisation(key[1])
    return type(op) is str and ("conv" in op or "pool" in op)


def jit(fn=None, *, full_opt: bool = False, **kw):
    """``jax.jit(fn, **kw)`` with the eager kernels' options; ``@jit(**kw)`` decorates.
    ``full_opt``: keep LLVM's default optimisation level (see ``full_optimisation``)."""
    if fn is None:
        return lambda f: jit(f, full_opt=full_opt, **kw)
    top = None
    nested = jax.jit(fn, **kw)

    def kernel(*args, **kwargs):
        nonlocal top
        if top is None:
            opts = options()
            if full_opt:
                opts = {k: v for k, v in opts.items() if k != "xla_backend_optimization_level"}
            top = jax.jit(fn, compiler_options=opts, **kw) if opts else nested
        try:
            return top(*args, **kwargs)
        except ValueError as e:
            if top is nested or "top-level" not in str(e):
                raise
        return nested(*args, **kwargs)

    def cache_size():  # jax.jit's count of compiled signatures, both kernels together
        return nested._cache_size() + (top._cache_size() if top not in (None, nested) else 0)

    kernel.__wrapped__, kernel._cache_size = fn, cache_size
    return kernel


@functools.cache
def cpu_backend() -> bool:
    """Whether JAX's default backend is the CPU (host and device memory are one)."""
    return jax.default_backend() == "cpu"


def device_array(arr, dtype=None) -> jax.Array:
    """A host array that nothing else writes (it may be aliased on the CPU), as a device
    array of NumPy ``dtype`` on the default device: a transfer. ``jnp.asarray`` compiles
    and runs a conversion program for every new shape, tens of milliseconds each the
    first time, and a training run's first steps create many. A conversion runs on the
    host where NumPy's is XLA's (the same dtype; to a float type from bool, integer or
    float: exact or rounded to nearest even alike); any other keeps ``jnp.asarray``."""
    arr = np.asarray(arr)
    target = arr.dtype if dtype is None else np.dtype(dtype)
    if target != arr.dtype:
        if not (target.kind == "f" and arr.dtype.kind in "biuf"):
            return jnp.asarray(arr, dtype=target)
        with np.errstate(over="ignore"):  # out of range: inf, as XLA and PyTorch
            arr = arr.astype(target)
    return jax.device_put(arr)


try:  # private to JAX: without it, host fills are never used (XLA's always are correct)
    from jax._src.core import trace_state_clean as _untraced
except ImportError:  # pragma: no cover
    def _untraced() -> bool:
        return False


def host_fills() -> bool:
    """Whether fills may be built on the host now: the CPU backend, outside any JAX trace
    (inside one a host array would become a constant of the traced program)."""
    return cpu_backend() and _untraced()


def _on_host(*values) -> bool:
    """Whether arrays like ``values`` may be built on the host: ``host_fills()``, no traced
    value, nothing committed to a device (its result would belong there)."""
    if not host_fills():
        return False
    for v in values:
        if isinstance(v, jax.core.Tracer) or getattr(v, "committed", False):
            return False
    return True


def full_like(x, fill):
    """``jnp.full_like(x, fill)`` without a fill program per shape where the host can build
    it (see ``_on_host``); the eager optimizers' first state."""
    if not _on_host(x, fill):
        return jnp.full_like(x, fill)
    return jax.device_put(np.full(x.shape, fill, x.dtype))


def full(shape, fill, dtype, like=None):
    """``jnp.full(shape, fill, dtype)`` likewise (``fill`` a number or a 0-dim array), for a
    state of parameter ``like``."""
    if not _on_host(fill, like):
        return jnp.full(shape, fill, dtype)
    return jax.device_put(np.full(shape, fill, dtype))
