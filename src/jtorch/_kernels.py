"""How jtorch compiles its eager kernels: ``jax.jit`` with options for many small programs.

Eager mode compiles one small XLA program per op signature (and per VJP), so a program's
first step is mostly XLA compile time. On the CPU backend these kernels skip XLA's newer
fusion emitters (``xla_cpu_use_fusion_emitters=false``): that halves their compile time
(the digits CNN's first step 3.1 -> 2.2 s cold) at no measured cost in steady-state
speed, because an eager kernel is one op and has little to fuse. They are also built at
LLVM optimisation level 1 (``xla_backend_optimization_level=1``): about 40% less compile
time again (an LSTM layer's forward and backward 1.0 -> 0.57 s; the LSTM language model's
cold run 22.7 -> 14.8 s), while steady steps stayed within run-to-run noise (MLP, CNN,
LSTM steps). The gradients of convolutions and pooling, and transposed convolutions, keep
LLVM's default level (``full_optimisation``): a transposed convolution runs 4x slower at
level 1 or 2, pooling's gradient up to 15% slower. So does a fused backward
(``jit(fn, full_opt=True)``). An optimizer's update of a group of fewer than ``MANY``
(16) parameters is built at level 1 like any eager kernel: 2-3x less compile time than
the default level (an LSTM language model's Adam over 11 parameters 1.15 -> 0.35 s, on
the background thread, where it slowed the main thread's first step by as much), and
runs as fast (interleaved runs of SGD and Adam over MLP, CNN, LSTM and 2M-parameter
groups: level 1 / default 0.92-1.14, 1.03 on average). The update of a group of ``MANY``
parameters or more, and ``clip_grad_norm_`` of as many gradients, keep XLA's fusion
emitters (``jit(fn, xla_defaults=True)``): one independent loop per tensor, and many of
them compile 1.5-3x faster with the emitters (a GPT's AdamW groups of 34 and 18
parameters: 1.95 -> 0.65 s and 1.42 -> 0.98 s of CPU time). Programs compiled by
``torch.compile`` keep XLA's defaults (but for the convolutions below).
``JTORCH_EAGER_XLA_DEFAULTS=1`` turns both off.

On the CPU a convolution's kernels (``convolution``: its forward, VJP and backward), and a
whole program (``torch.compile``, ``torch.func``) holding a convolution of ``CONV_MACS``
multiply-adds or more (``program_options``), run convolutions in XLA's own (Eigen) code
rather than YNNPACK, to which jaxlib 0.10 hands them by default (``cpu_library_options``).
Setting that option also drops YNNPACK's other default fusions, which a small CNN's whole
compiled step needs (the digits CNN's 1.5-1.9 -> 3.9 ms on one core), so other programs
keep XLA's defaults. On one core (``taskset -c 0``), a 32->64 channel 3x3 layer on 64 26x26
images (the MNIST example's second) 55 -> 21 ms forward (PyTorch's oneDNN 17-21 ms), 144 ->
48 ms for its input and weight gradients; smaller layers' gradients 1.2-1.7x faster, their
forwards within 0.8-1.1x. XLA's convolution also runs on the CPU client's thread pool,
which ``--xla_cpu_multi_thread_eigen=false`` no longer limits: on two cores that layer's
forward takes 10.6 ms. ``JTORCH_YNNPACK_CONVOLUTIONS=1`` keeps XLA's default everywhere.

``jit(fn, **kw)`` is ``jax.jit`` with those options, built on its first call (kernels
defined at import start no JAX backend). JAX accepts compiler options only on a top-level
jit, so called inside another trace (``torch.compile``, ``torch.func``, a user's
``jax.jit``) a kernel runs as a plain nested ``jax.jit``.

JAX builds a fresh MLIR context for every program it lowers (about 3 ms here: dialect
registration), even when the executable then comes from the on-disk cache. With the first
kernel, jtorch has JAX reuse one context per thread for up to ``_CONTEXT_USES`` programs
(see ``share_mlir_context``): a warm start of the digits CNN lowers its 83 programs in
0.6 s instead of 0.8. ``JTORCH_SHARED_MLIR_CONTEXT=0`` turns this off.

A kernel given a ``name`` that says completely which function it is (an op's key: see
``_executables``) keeps its compiled programs on disk under that name and its operand
types, so a warm start loads them without tracing or lowering: the digits CNN's warm
first step 0.6-1.0 s -> 0.15-0.2 s.

Programs needed soon but not yet are compiled ahead, on one background thread (``ahead``):
a node's backward kernel when its forward meets new types, an optimizer's first step
when it is built, a fused backward (``eager/autograd/fused.py``). XLA compiles without
the interpreter lock, so a first step's backward and optimizer compile on a second core
while the forward runs (the digits CNN's first step 2.3 -> 1.4 s cold).
``JTORCH_BACKGROUND_COMPILE=0`` turns it off; it is off by default on a single CPU.

Host data (``torch.tensor``, ``from_numpy``, checkpoints, boolean-mask indices) reaches
the device through ``device_array``, a plain transfer: ``jnp.asarray`` compiles a
conversion program for every new shape.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import math
import os
import threading

import jax
import jax.numpy as jnp
import numpy as np

from . import _executables

_CPU_OPTIONS = {"xla_cpu_use_fusion_emitters": False, "xla_backend_optimization_level": 1}
MANY = 16  # tensors from which a program of one loop per tensor gets XLA's defaults
_options: dict | None = None


def options() -> dict:
    """The compiler options eager kernels get (decided once, at the first kernel)."""
    global _options
    if _options is None:
        off = os.environ.get("JTORCH_EAGER_XLA_DEFAULTS", "") not in ("", "0")
        _options = {} if off or jax.default_backend() != "cpu" else dict(_CPU_OPTIONS)
        share_mlir_context()
    return _options


# What XLA:CPU may hand to YNNPACK: dots only, not convolutions (see the module docstring).
_NO_YNN_CONVOLUTIONS = {"xla_cpu_experimental_ynn_fusion_type":
                        "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT"}


@functools.cache
def cpu_library_options() -> dict:
    """The compiler options of a program whose convolutions should run in XLA's own code
    rather than YNNPACK's (``convolution`` kernels; programs with a large convolution:
    ``program_options``), on the CPU where this XLA has the option; else none."""
    flag = os.environ.get("JTORCH_YNNPACK_CONVOLUTIONS", "").strip().lower()
    if flag in ("1", "true", "on") or jax.default_backend() != "cpu":
        return {}
    return dict(_NO_YNN_CONVOLUTIONS) if _accepted(_NO_YNN_CONVOLUTIONS) else {}


def _accepted(opts: dict) -> bool:
    """Whether this XLA takes compiler options ``opts`` (an option it lacks fails every
    compile). A trial compile costs ~40 ms, most of it JAX's first lowering, which a warm
    start that loads its kernels (``_executables``) never does: its answer is kept per
    JAX version in the cache directory."""
    import jaxlib

    from . import _cache

    path = None
    if _cache.cache_dir() is not None:
        tag = repr((jax.__version__, jaxlib.__version__, sorted(opts.items())))
        name = hashlib.sha256(tag.encode()).hexdigest()[:24]
        path = os.path.join(_cache.cache_dir(), "jtorch-options", name)
        try:
            with open(path) as f:
                return f.read() == "1"
        except OSError:
            pass
    try:
        jax.jit(lambda: np.float32(0), compiler_options=opts).lower().compile()
        ok = True
    except Exception:  # noqa: BLE001 -- JaxRuntimeError: no such option, or value
        ok = False
    if path is not None:
        _cache.write_file(path, b"1" if ok else b"0")
    return ok


# A whole program (torch.compile, torch.func) keeps XLA's defaults unless it has a
# convolution of at least this many multiply-adds: the digits CNN's compiled step (4.7M a
# convolution) ran 1.5-1.9 -> 3.9 ms on one core with the option set, the MNIST CNN's
# second layer (680M) runs 2.6-3x faster with it; between them a DCGAN's 4x4 stride-2
# layer (134M) 1.1-1.2x.
CONV_MACS = 50_000_000


def convolution(key) -> bool:
    """Whether the op a dispatch ``key`` names is a convolution (``full_optimisation``'s
    reading of a key): its kernels keep convolutions out of YNNPACK."""
    op = key[0] if type(key) is tuple and key else key
    if op == "backward":
        return convolution(key[1])
    return type(op) is str and "conv" in op


def program_options(jaxpr) -> dict:
    """``cpu_library_options`` for a traced program (a ClosedJaxpr or Jaxpr) holding a
    convolution of ``CONV_MACS`` multiply-adds or more, else no options."""
    if not cpu_library_options():
        return {}
    todo = [getattr(jaxpr, "jaxpr", jaxpr)]
    while todo:
        for eqn in todo.pop().eqns:
            if eqn.primitive.name == "conv_general_dilated":
                out, rhs = eqn.outvars[0].aval, eqn.invars[1].aval
                per_output = math.prod(rhs.shape) // max(
                    rhs.shape[eqn.params["dimension_numbers"].rhs_spec[0]], 1)
                if math.prod(out.shape) * per_output >= CONV_MACS:
                    return cpu_library_options()
            for v in eqn.params.values():  # the bodies of pjit, scan, cond, custom rules
                for sub in v if isinstance(v, tuple | list) else (v,):
                    sub = getattr(sub, "jaxpr", sub)  # a ClosedJaxpr's, or a Jaxpr
                    if hasattr(sub, "eqns"):
                        todo.append(sub)
    return {}


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


def full_optimisation(key, forward: bool = False) -> bool:
    """Whether the kernels of the op a dispatch ``key`` names (its first item, or the op
    of a replayed VJP's ``("backward", key, ...)``) keep LLVM's default optimisation
    level: XLA:CPU's convolutions with dilated inputs (transposed convolutions, input
    gradients of strided ones) run 4x slower below it, pooling's gradients up to 15%
    slower. ``forward``: for the op's forward kernels (with or without the residuals of
    its VJP), where only transposed convolutions need it: a plain convolution's or
    pooling's forward runs as fast at level 1 and compiles in half the time (the digits
    CNN's pooling forward 200 -> 110 ms, first convolution 120 -> 70 ms)."""
    op = key[0] if type(key) is tuple and key else key
    if op == "backward":
        return full_optimisation(key[1])
    if type(op) is not str:
        return False
    if forward:
        return "conv_transpose" in op
    return "conv" in op or "pool" in op


TIER_AFTER = 50  # a tiered kernel's calls before its full level compiles (see ``jit``)


def tiered(key) -> bool:
    """Whether a full-optimisation kernel of the op ``key`` names starts at level 1
    (``jit(tiered=True)``): a convolution's gradient (not a transposed one's), compiled
    3.5-8x faster at level 1 (the digits CNN's second layer 290 -> 73 ms, the MNIST CNN's
    28x28 one 369 -> 76 ms), whose code runs at 0.5-2.1x the default level's time depending
    on its shapes (a 1-channel 28x28 layer's weight gradient 4.0 -> 8.3 ms): a first step's
    backward gets the quick compile, a long run the default level's code."""
    op = key[0] if type(key) is tuple and key else key
    return type(op) is str and "conv" in op and "conv_transpose" not in op


def jit(fn=None, *, full_opt: bool = False, xla_defaults: bool = False, conv: bool = False,
        name=None, tiered: bool = False, **kw):
    """``jax.jit(fn, **kw)`` with the eager kernels' options; ``@jit(**kw)`` decorates.
    ``full_opt``: keep LLVM's default optimisation level (see ``full_optimisation``).
    ``xla_defaults``: XLA's own options (its fusion emitters, LLVM's default level), for
    an optimizer's update of a big parameter group (see the module's docstring).
    ``conv``: a convolution's kernel, its convolutions kept out of YNNPACK
    (``cpu_library_options``).
    ``name``: a value naming ``fn`` completely in any process (an op's key): its compiled
    programs are then kept on disk and loaded without tracing (``_executables``) where
    ``_executables.stable`` can write the name down.
    ``tiered`` (with ``full_opt``): the kernel starts at the eager options (LLVM level 1,
    compiled 3.5-8x faster), queues ``full_opt``'s compile on the background thread at its
    ``TIER_AFTER``-th call behind every other job (a short program never pays for it) and
    moves to it at its ``TIER_AFTER + TIER_AFTER // 2``-th call, waiting for a compile not
    over by then: the two levels may differ in the last bit (a bias gradient's sum), so the
    move comes at a fixed call, never "once the compile is ready", and a seeded program
    gives the same numbers on every run (as ``lazy._left``). Without the background thread
    it is ``full_opt``'s from the start."""
    if fn is None:
        return lambda f: jit(f, full_opt=full_opt, xla_defaults=xla_defaults, conv=conv,
                             name=name, tiered=tiered, **kw)
    top = None
    nested = jax.jit(fn, **kw)
    # tiered: the calls so far, then (full-level jit, Event of its compile, calls), then
    # False once that jit is ``top`` (or where there is nothing to move to).
    upgrade = 0 if tiered and full_opt and not xla_defaults else False

    def make(full: bool):
        opts = options()
        if xla_defaults:
            opts = {}
        elif full:
            opts = {k: v for k, v in opts.items() if k != "xla_backend_optimization_level"}
        if conv:
            opts = {**opts, **cpu_library_options()}
        made = jax.jit(fn, compiler_options=opts, **kw) if opts else nested
        text = _executables.stable(name) if name is not None and not kw else None
        if text is not None:
            made = _executables.persistent(made, fn, f"{text}|{sorted(opts.items())}")
        return made

    def build():
        nonlocal top, upgrade
        if type(upgrade) is int and not (BACKGROUND and options()):
            upgrade = False  # no thread to compile the full level on, or nothing to move to
        top = make(full_opt and upgrade is False)
        return top

    def move(args):  # tiered: count calls, queue the full level's compile, then take it
        nonlocal top, upgrade
        if type(upgrade) is int:
            upgrade += 1
            if upgrade == TIER_AFTER:
                full = make(True)
                done = ahead(full, args, later=True)
                if done is None:  # no thread after all: the full level from now on
                    top, upgrade = full, False
                else:
                    upgrade = (full, done, TIER_AFTER)
            return
        full, done, calls = upgrade
        calls += 1
        if calls < TIER_AFTER + TIER_AFTER // 2:
            upgrade = (full, done, calls)
            return
        done.wait()  # at a fixed call however fast it compiled (see above)
        top, upgrade = full, False

    def kernel(*args, **kwargs):
        if upgrade is not False:
            if top is None:
                build()
            if upgrade is not False:
                move(args)
        try:
            return (top or build())(*args, **kwargs)
        except ValueError as e:
            if top is nested or "top-level" not in str(e):
                raise
        return nested(*args, **kwargs)

    def cache_size():  # jax.jit's count of compiled signatures, both kernels together
        return nested._cache_size() + (top._cache_size() if top not in (None, nested) else 0)

    def compile_ahead(*args):  # queue this kernel's compile for ``args`` (see ``ahead``)
        return ahead(top or build(), args)

    kernel.__wrapped__, kernel._cache_size, kernel.compile_ahead = fn, cache_size, compile_ahead
    kernel.jitted = lambda: top or build()  # the top-level jax.jit
    return kernel


# --- compiling ahead of need, on a background thread ---------------------------------------


def _background_default() -> bool:
    flag = os.environ.get("JTORCH_BACKGROUND_COMPILE", "").strip().lower()
    if flag in ("0", "false", "off", "1", "true", "on"):
        return flag in ("1", "true", "on")
    try:
        return len(os.sched_getaffinity(0)) > 1
    except AttributeError:  # pragma: no cover (not Linux)
        return (os.cpu_count() or 1) > 1


BACKGROUND = _background_default()
TRACES = [0]  # JAX traces outside the background thread: a change means new kernel types
_TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"


def _count_trace(event: str, _secs: float, **_) -> None:
    if event == _TRACE_EVENT and threading.get_ident() != _AHEAD.ident:
        TRACES[0] += 1


jax.monitoring.register_event_duration_secs_listener(_count_trace)


class _Ahead:
    """One daemon thread compiling queued kernels, newest first, each signature once.

    The main thread queues a program it will need soon (a node's backward, known when its
    forward runs) and goes on; XLA compiles with the interpreter lock released, so a
    first step's backward compiles on a second core while the forward runs. A kernel
    called before its queued compile is done waits for it inside JAX, which compiles a
    lowered program once however many threads ask. Errors are dropped here: the call
    itself compiles again and raises them where the user's code is. Jobs queued ``later``
    (a tiered kernel's full level: ``jit``) run only when no other job waits.
    """

    def __init__(self):
        self.queue: list = []
        self.later: list = []
        self.ready = threading.Condition()
        self.seen: dict = {}  # signature -> Event set when its compile is over
        self.thread: threading.Thread | None = None
        self.ident = None  # the thread's, once it runs
        self.closing = False

    def submit(self, sig, job, later: bool = False) -> threading.Event:
        with self.ready:
            done = self.seen.get(sig)
            if done is not None:
                return done
            done = threading.Event()
            if self.closing:
                done.set()
                return done
            if len(self.seen) > 65536:
                self.seen.clear()
            self.seen[sig] = done
            (self.later if later else self.queue).append((job, done))
            if self.thread is None:
                self.thread = threading.Thread(target=self._work, name="jtorch-compile",
                                               daemon=True)
                self.thread.start()
                atexit.register(self.close)
            self.ready.notify()
        return done

    def _work(self) -> None:
        self.ident = threading.get_ident()
        while True:
            with self.ready:
                while not self.queue and not self.later and not self.closing:
                    self.ready.wait()
                if self.closing:
                    return
                # The newest (a backward needs it first); a later job when none waits.
                job, done = (self.queue or self.later).pop()
            try:
                job()
            except Exception:  # noqa: BLE001 -- the kernel's own call reports it
                pass
            done.set()

    def close(self) -> None:
        """Drop what is queued and wait for the compile in progress (at exit, before JAX
        tears its backends down; before a fork, so no lock is held in the child)."""
        with self.ready:
            self.closing = True
            for _, done in self.queue + self.later:
                done.set()
            self.queue.clear()
            self.later.clear()
            self.ready.notify_all()
            thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def after_fork(self) -> None:
        self.__init__()


def _signature(leaf):
    if isinstance(leaf, jax.Array):
        return leaf.shape, leaf.dtype, leaf.weak_type, leaf.committed
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf.shape, leaf.dtype, leaf.weak_type, None
    return type(leaf)


_AHEAD = _Ahead()


def ahead(jitted, args, later: bool = False) -> threading.Event | None:
    """Compile ``jitted`` (a ``jax.jit``) for ``args`` (arrays or ``jax.ShapeDtypeStruct``s
    of the types it will be called with) on the background thread; the Event returned is
    set once that is over. None when background compiling is off
    (``JTORCH_BACKGROUND_COMPILE=0``, or a single CPU). ``later``: once no other job waits."""
    if not BACKGROUND:
        return None
    args = jax.tree.map(_abstract, args)  # holds no memory while it waits
    sig = (id(jitted), tuple(_signature(a) for a in jax.tree.leaves(args)))
    return _AHEAD.submit(sig, _compile_job(jitted, args), later)


def compile_for(jitted, *args) -> None:
    """Compile (or load, for a kernel kept on disk) ``jitted`` (a kernel's ``jitted()``)
    for ``args`` here and now: what a job given to ``ahead_job`` calls."""
    _compile_job(jitted, args)()


def _compile_job(jitted, args):
    """A no-argument function compiling ``jitted`` for ``args``: one that loads it from
    disk where the kernel is kept there (``_executables``), else lower and compile."""
    job = getattr(jitted, "_jtorch_ahead", None)
    job = job(*args) if job is not None else None
    return job or (lambda: jitted.lower(*args).compile())


def _abstract(leaf):
    """An uncommitted array as its type (a committed one's placement is part of its), and a
    traced operand as its type (a kernel called inside a user's ``jax.jit``)."""
    if isinstance(leaf, jax.core.Tracer):
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, weak_type=leaf.aval.weak_type)
    if isinstance(leaf, jax.Array) and not leaf.committed:
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, weak_type=leaf.weak_type)
    return leaf


def ahead_job(sig, job) -> threading.Event | None:
    """Run ``job()`` (which compiles what it needs) on the background thread, once per
    hashable ``sig``; as ``ahead``."""
    return _AHEAD.submit(sig, job) if BACKGROUND else None


_READY: dict = {}  # op key -> Event of its kernel's background compile, True, or a count
HOST_CALLS = 8  # without a background thread, the host does a type's first 8 calls


def while_compiling(key, kernel, *args) -> bool:
    """Whether a host path (exact NumPy work that needs no program) should serve the op
    ``key`` names this time, rather than its kernel (``kernel()``, called for ``args``'
    types). The first call queues the kernel's compile on the background thread; calls say
    yes until it is over. Without the thread the first ``HOST_CALLS`` calls say yes (a
    model's initialisation), then the kernel compiles where it is called. A host path
    costs a transfer, tens of microseconds, more than a compiled kernel's call."""
    ready = _READY.get(key)
    if ready is True:
        return False
    if ready is None:
        if len(_READY) > 4096:
            _READY.clear()
        done = kernel().compile_ahead(*args) if BACKGROUND else None
        _READY[key] = done if done is not None else 1
        return True
    if type(ready) is int:
        if ready >= HOST_CALLS:
            _READY[key] = True
            return False
        _READY[key] = ready + 1
        return True
    if ready.is_set():
        _READY[key] = True
        return False
    return True


def wait_ahead() -> None:
    """Wait until every compile queued so far is over (tests count compiles with it)."""
    with _AHEAD.ready:
        pending = list(_AHEAD.seen.values())
    for done in pending:
        done.wait()


def _before_fork() -> None:
    if _AHEAD.thread is not None:
        _AHEAD.close()


os.register_at_fork(before=_before_fork, after_in_parent=_AHEAD.after_fork,
                    after_in_child=_AHEAD.after_fork)


@functools.cache
def cpu_backend() -> bool:
    """Whether JAX's default backend is the CPU (host and device memory are one)."""
    return jax.default_backend() == "cpu"


def host_converts(source, target) -> bool:
    """Whether NumPy converts ``source`` values to ``target`` (NumPy dtypes) exactly as XLA
    and PyTorch do: to a float type from bool, integer or float, except float64 to float16,
    which XLA and PyTorch round twice (through float32) and NumPy once."""
    return (target.kind == "f" and source.kind in "biuf"
            and not (target.itemsize == 2 and source.kind == "f" and source.itemsize == 8))


def device_array(arr, dtype=None) -> jax.Array:
    """A host array that nothing else writes (it may be aliased on the CPU), as a device
    array of NumPy ``dtype`` on the default device: a transfer. ``jnp.asarray`` compiles
    and runs a conversion program for every new shape, tens of milliseconds each the
    first time, and a training run's first steps create many. A conversion runs on the
    host where NumPy's is XLA's (``host_converts``); any other keeps ``jnp.asarray``."""
    arr = np.asarray(arr)
    target = arr.dtype if dtype is None else np.dtype(dtype)
    if target != arr.dtype:
        if not host_converts(arr.dtype, target):
            return jnp.asarray(arr, dtype=target)
        with np.errstate(over="ignore"):  # out of range: inf, as XLA and PyTorch
            arr = arr.astype(target)
    return put(arr)


try:  # private to JAX: without it, host fills are never used (XLA's always are correct)
    from jax._src.core import trace_state_clean as _untraced
except ImportError:  # pragma: no cover
    def _untraced() -> bool:
        return False
untraced = _untraced  # whether no JAX trace is in progress (False when unknown)

try:  # JAX internals behind ``jax.device_put``; without them ``put`` is device_put itself
    from jax._src import core as _jcore
    from jax._src.interpreters import pxla as _pxla
    from jax._src.lib import xla_client as _xc
    from jax._src.sharding_impls import SingleDeviceSharding as _OneDevice

    _PUT = callable(getattr(_xc, "batched_device_put", None)) and callable(
        getattr(_pxla, "get_default_device", None))
except ImportError:  # pragma: no cover (another JAX)
    _PUT = False
_SHARDINGS: dict = {}  # device -> its single-device sharding


def put(arr) -> jax.Array:
    """``jax.device_put(arr)`` of a NumPy array outside any trace: the same transfer, to
    the default device, uncommitted, through the call device_put ends in
    (``batched_device_put``) without its Python around it (a primitive's bind, sharding
    checks, deferred arguments): 70 -> 10 us here for a DataLoader's batch of 32x10
    floats, each of which a loader pays per tensor per batch."""
    if not _PUT or type(arr) is not np.ndarray or not _untraced():
        return jax.device_put(arr)
    dev = _pxla.get_default_device()
    sharding = _SHARDINGS.get(dev)
    if sharding is None:
        sharding = _SHARDINGS[dev] = _OneDevice(dev)
    return _xc.batched_device_put(_jcore.ShapedArray(arr.shape, arr.dtype), sharding, [arr],
                                  [dev], False)


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
    return put(np.full(x.shape, fill, x.dtype))


def full(shape, fill, dtype, like=None):
    """``jnp.full(shape, fill, dtype)`` likewise (``fill`` a number or a 0-dim array), for a
    state of parameter ``like``."""
    if not _on_host(fill, like):
        return jnp.full(shape, fill, dtype)
    return put(np.full(shape, fill, dtype))
