"""How jtorch compiles its eager kernels: ``jax.jit`` with options for many small programs.

Eager mode compiles one small XLA program per op signature (and per VJP), so a program's
first step is mostly XLA compile time. On the CPU backend these kernels skip XLA's newer
fusion emitters (``xla_cpu_use_fusion_emitters=false``): that halves their compile time
(the digits CNN's first step 3.1 -> 2.2 s cold) at no measured cost in steady-state
speed, because an eager kernel is one op and has little to fuse. Programs compiled by
``torch.compile`` keep XLA's defaults. ``JTORCH_EAGER_XLA_DEFAULTS=1`` turns this off.

``jit(fn, **kw)`` is ``jax.jit`` with those options, built on its first call (kernels
defined at import start no JAX backend). JAX accepts compiler options only on a top-level
jit, so called inside another trace (``torch.compile``, ``torch.func``, a user's
``jax.jit``) a kernel runs as a plain nested ``jax.jit``.
"""

from __future__ import annotations

import os

import jax

_CPU_OPTIONS = {"xla_cpu_use_fusion_emitters": False}
_options: dict | None = None


def options() -> dict:
    """The compiler options eager kernels get (decided once, at the first kernel)."""
    global _options
    if _options is None:
        off = os.environ.get("JTORCH_EAGER_XLA_DEFAULTS", "") not in ("", "0")
        _options = {} if off or jax.default_backend() != "cpu" else dict(_CPU_OPTIONS)
    return _options


def jit(fn=None, **kw):
    """``jax.jit(fn, **kw)`` with the eager kernels' options; ``@jit(**kw)`` decorates."""
    if fn is None:
        return lambda f: jit(f, **kw)
    top = None
    nested = jax.jit(fn, **kw)

    def kernel(*args, **kwargs):
        nonlocal top
        if top is None:
            opts = options()
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
