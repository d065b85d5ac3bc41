"""What every torch.func transform shares: user code as a pure JAX function, and back.

A transform (``grad``, ``vjp``, ``jvp``, ``vmap``, ...) is a JAX transformation of the
user's function turned into a pure function of arrays: the arrays arrive wrapped as
tensors, jtorch's eager code runs on JAX tracers, and tensors in the result leave as
arrays. ``evaluate(G, tensors)`` runs such a program ``G`` on tensors' values.

- **Sandbox.** The outermost transform runs inside ``compiler._record.sandbox``, so every
  effect on pre-existing state is undone and no tracer outlives the call. Writes to
  captured tensors follow PyTorch: an error inside ``grad``-like transforms; under
  ``vmap`` a write that does not depend on the batch is kept, a batched one is an error.
- **Levels.** While user code runs, ``LEVELS`` lists the transforms around it (innermost
  last): random draws consult it (``vmap``'s ``randomness``) and ``detach()``,
  ``.item()`` and ``autograd.Function`` behave as PyTorch's do inside transforms.
- **Compiled.** The outermost program is traced once per call and run as one cached
  executable (``_program``); one that needs concrete values runs op by op instead.
- **Autograd.** When grad mode is on and an input, or a tensor the function captured
  (a module parameter), requires grad, the result is recorded as ONE autograd node
  whose backward is the VJP of the whole program (itself recorded under
  ``create_graph=True``), so results carry history exactly where PyTorch's do.
"""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np

from ..compiler._record import _VALUE, sandbox
from ..eager import hooks
from ..eager.autograd import grad_mode
from ..eager.tensor import Tensor, wrap
from . import _patches
from . import _program as P

_Tracer = jax.core.Tracer
LEVELS: list = []  # the transforms around the user code now running, innermost last
RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap")
MUTATION_ERROR = ("During a grad (vjp, jvp, grad, etc) transform, the function provided "
                  "attempted to call an in-place operation that would mutate a captured "
                  "Tensor. This is not supported; please rewrite the function being "
                  "transformed to explicitly accept the mutated Tensor(s) as inputs.")


class Level:
    """One transform around running user code: ``kind`` is "grad" (reverse mode), "fwd"
    (forward mode) or "vmap"; a vmap level has its ``randomness`` and, for "different",
    the traced batch ``index`` folded into each random key."""

    __slots__ = ("kind", "randomness", "index")

    def __init__(self, kind: str, randomness: str = "error", index=None):
        self.kind, self.randomness, self.index = kind, randomness, index


# ------------------------------------------------------------------ pytrees


def _is_leaf(x) -> bool:
    return x is None or isinstance(x, Tensor)


def tree_flatten(tree):
    """``(leaves, treedef)`` with tensors and None as leaves, as torch's pytrees have them."""
    return jax.tree_util.tree_flatten(tree, is_leaf=_is_leaf)


def tree_unflatten(treedef, leaves):
    return jax.tree_util.tree_unflatten(treedef, leaves)


def to_arrays(tree):
    """Tensors in ``tree`` replaced by their (possibly traced) JAX values."""
    return jax.tree.map(lambda t: t._value if isinstance(t, Tensor) else t, tree,
                        is_leaf=_is_leaf)


def to_tensors(tree):
    """JAX arrays in ``tree`` wrapped as fresh tensors."""
    return jax.tree.map(lambda a: wrap(a) if isinstance(a, jax.Array) else a,
                        tree, is_leaf=lambda x: x is None)


def is_float(dtype) -> bool:
    return dtype.is_floating_point or dtype.is_complex


# ------------------------------------------------------------------ running user code


_DATA_DEPENDENT = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                   jax.errors.TracerIntegerConversionError,
                   jax.errors.NonConcreteBooleanIndexError)


def run_user(fn, args, kwargs, *levels: Level):
    """Call user code ``fn(*args, **kwargs)`` with ``levels`` pushed; a write to a tensor it
    captured raises inside grad-like transforms, as in PyTorch."""
    rec = hooks.RECORDER
    grad_like = any(lv.kind != "vmap" for lv in levels)
    before = len(rec.written) if rec is not None and grad_like else None
    LEVELS.extend(levels)
    try:
        out = fn(*args, **kwargs)
    except _DATA_DEPENDENT as exc:
        if P.tracing():
            raise P.NeedsEager from exc  # op by op, values are concrete under grad
        if not _OWN or not _OWN[-1]:
            raise  # inside a torch.compile trace: let it fall back to eager
        raise RuntimeError(
            f"{'vmap' if not grad_like else 'torch.func'}: an operation needs a concrete value "
            "or a data-dependent shape (.item(), a Python branch on a value under vmap, "
            "nonzero, boolean masks), which a JAX transformation cannot trace") from exc
    finally:
        del LEVELS[len(LEVELS) - len(levels):]
    if before is not None and len(rec.written) != before:
        raise RuntimeError(MUTATION_ERROR)
    return out


def nested() -> bool:
    """True inside user code that a transform is running (JAX composes the transforms)."""
    return bool(LEVELS)


class Draws:
    """Random draws of one transform call: the base (key, counter) of each draw is logged so
    a second run of the same program (its autograd node, ``create_graph``) sees the same
    numbers; vmap levels then fold their batch index in (``randomness="different"``)."""

    def __init__(self, base=None):
        self.base, self.log, self.pos = base, {}, {}

    def rewind(self) -> None:
        """Start the logged draws over (each chunk of a chunked vmap sees the same ones)."""
        self.pos = {}

    def replaying(self) -> Draws:
        d = Draws(self.base)
        d.log = self.log
        return d

    def __call__(self, gen):
        for lv in LEVELS:
            if lv.kind == "vmap" and lv.randomness == "error":
                raise RuntimeError(RANDOM_ERROR)
        log = self.log.setdefault(id(gen), [])
        i = self.pos.get(id(gen), 0)
        self.pos[id(gen)] = i + 1
        if i == len(log):
            key, counter = self.base(gen)
            if isinstance(counter, int):
                # An array, not a Python int: a compiled program takes it as an argument
                # instead of a literal that would make every call a new program.
                with jax.ensure_compile_time_eval():
                    counter = jnp.asarray(counter, jnp.uint32)
            log.append((key, counter))
        key, counter = log[i]
        for lv in LEVELS:
            if lv.kind == "vmap" and lv.randomness == "different":
                key = jax.random.fold_in(key, lv.index)
        return key, counter


_CURRENT: list = []  # the _Draws of the outermost call in progress
_OWN: list = []  # per outermost call: whether it owns its sandbox (not in a compile trace)


def _draw(gen):
    return _CURRENT[-1](gen)


def rewind_draws() -> None:
    """Let the next code of the outermost call draw again what it drew (vmap's chunks)."""
    if _CURRENT and not nested():
        _CURRENT[-1].rewind()


def _eager_base(gen):
    key, counter = gen._peek(0)
    gen._counter += 1
    return key, counter


@contextlib.contextmanager
def _scope(draws):
    """The outermost transform's sandbox, with its draws and tracer-aware tensor methods."""
    outer = hooks.RECORDER
    if outer is not None and draws.base is None:  # inside a torch.compile trace
        draws.base = _compile_base(outer)
    elif draws.base is None:
        draws.base = _eager_base
    _CURRENT.append(draws)
    _OWN.append(outer is None)
    try:
        with sandbox(_draw) as rec, _patches.installed():
            if outer is not None:
                prev, rec.draw = rec.draw, _draw
                try:
                    yield rec
                finally:
                    rec.draw = prev
            else:
                yield rec
    finally:
        _CURRENT.pop()
        _OWN.pop()


def _compile_base(rec):
    def base(gen):
        mine, rec.draw = rec.draw, None
        try:
            return rec.rng(gen)
        finally:
            rec.draw = mine

    return base


# ------------------------------------------------------------------ evaluation


def evaluate(G, tensors, draws=None, raw: bool = False):
    """``G(*values)`` (a pure program over the tensors' values that may run user code) as
    tensors; an autograd node when grad mode is on and something it reads requires grad.

    ``draws``: a ``Draws`` shared by runs of one program, so they see the same numbers.
    ``raw``: ``G`` returns ``(main, extra)``; only ``main`` becomes tensors (with history),
    ``extra`` (a pullback and its residuals) comes back as JAX values."""
    from ._lift import record

    vals = [t._value for t in tensors]
    if nested():
        out = G(*vals)
        return (to_tensors(out[0]), out[1]) if raw else to_tensors(out)
    draws = Draws() if draws is None else draws
    compiled = hooks.RECORDER is None  # inside a torch.compile trace: op by op
    try:
        program, boundary = _attempt(G, vals, draws, compiled)
    except P.NeedsEager:
        compiled = False
        program, boundary = _attempt(G, vals, draws, compiled)
    if grad_mode.is_grad_enabled():
        # Inputs by position (one tensor may come twice); captured tensors by their storage
        # (a tensor both passed and captured is differentiated along both paths).
        inputs = [i for i, t in enumerate(tensors) if t.requires_grad and is_float(t.dtype)]
        captured = [t for t in boundary if t.requires_grad and is_float(t.dtype)]
        if inputs or captured:  # the program runs in its node (the first run never does)
            G_main = (lambda *v: G(*v)[0]) if raw else G
            shapes = jax.tree.structure(program.shapes[0] if raw else program.shapes)
            result = record(G_main, tensors, inputs, captured, draws, shapes, compiled)
            return (result, None) if raw else result
    out = program()
    return (to_tensors(out[0]), out[1]) if raw else to_tensors(out)


class _Done:
    """An eager run's result, as a program that has run."""

    def __init__(self, out):
        self.shapes = out

    def __call__(self):
        return self.shapes


def _attempt(G, vals, draws, compiled: bool):
    """Trace (compiled) or run ``G`` in a sandbox: ``(program, captured tensors needing
    grad)``, the program a thunk giving ``G``'s output."""
    own = hooks.RECORDER is None
    with _scope(draws.replaying()) as rec:
        seen, before = set(rec.boundary), set(rec.written)
        program = P.trace(G, vals) if compiled else _Done(G(*vals))
        if compiled and len(rec.written) != len(before):
            raise P.NeedsEager  # a captured tensor was written: keep it or raise, op by op
        kept = _captured_writes(rec, before) if own else []
        boundary = [t for k, t in rec.boundary.items() if k not in seen]
    for st, v in kept:  # a vmap wrote a captured tensor with a value free of the batch
        st.value = v
    if kept:
        for vc, d in rec.deltas:
            vc.version += d
    return program, boundary


def run_compiled_or_eager(fn, draws, compiled: bool):
    """``fn(run)`` in a sandbox, where ``run(F, *xs)`` evaluates ``F`` as one compiled
    program when ``compiled`` (op by op if it must)."""
    if compiled:
        try:
            with _scope(draws.replaying()):
                return fn(lambda F, *xs: P.run(F, xs))
        except P.NeedsEager:
            pass
    with _scope(draws.replaying()):
        return fn(lambda F, *xs: F(*xs))


def _captured_writes(rec, before):
    """(storage, value) of pre-existing tensors the call wrote, to keep after the sandbox."""
    kept = []
    for i, st in rec.written.items():
        if i in before:
            continue
        v = _VALUE.__get__(st)
        if isinstance(v, _Tracer):
            raise RuntimeError(
                "vmap: in-place operation on a captured Tensor of shape "
                f"{list(np.shape(v))} with a value that depends on the mapped inputs; the "
                "captured Tensor is not batched (PyTorch: output with shape doesn't match "
                "the broadcast shape)")
        kept.append((st, v))
    return kept
