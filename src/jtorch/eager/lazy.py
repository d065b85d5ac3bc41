"""Lazy eager ops: record runs of small ops, run them as one program when a value is read.

Each eager op used to be one XLA dispatch (about 8 us on a CPU, more than PyTorch's whole
op), so a step of twenty tiny ops paid twenty. Here an op whose kernel has run once for
its operands' types is recorded instead of run: its result is a ``Pending`` (the type
learnt on that first run) held by a ``LazyStorage``. The recorded ops of the current
segment run when anything reads a pending value (``Storage.value``: printing, ``.item()``,
an op that is not recorded, a backward) or the segment reaches ``MAX_OPS``; a segment
whose signature (ops, wiring) has come ``FUSE_AFTER`` times runs as one jitted program,
compiled on the background thread where there is one, else op by op through the ops' own
kernels. Nothing is ever computed from a storage read later than the op: operands are
captured as values (an array, or the Pending of an earlier op of the segment). A fused
segment's results may differ from the op-by-op ones in the last bit: XLA:CPU computes a
multiply feeding an add as one fused multiply-add.

Recorded: single-output kernels of at most ``MAX_BYTES`` (16 KiB) of result, of plain
(non-view) tensors and Python numbers, on the main thread, without a profiler, device
placement, ``torch.compile`` trace or ``CUDA_LAUNCH_BLOCKING`` (their callers do not
reach here), not convolutions or pooling (their kernels compile with other options).
An autograd node that keeps a Pending (an input, a saved output) swaps in its array when
the backward checks it (``OpNode.check_saved``); a backward runs the segment first.
``JTORCH_LAZY=0`` turns recording off.
"""

from __future__ import annotations

import os
import threading

import jax
from jax._src import core as _core
from jax._src.array import ArrayImpl

from .. import _kernels
from .._device import PLACEMENT
from .storage import _SLOT, LazyStorage, Storage

ON = os.environ.get("JTORCH_LAZY", "1") != "0"
# A fused segment costs its compile (tens of ms, on the background thread, whose tracing
# holds the interpreter lock) and saves a few us per op per run: worth it from hundreds of
# runs (a short program's 20th run fused its segments just to finish: slower overall).
FUSE_AFTER = int(os.environ.get("JTORCH_LAZY_FUSE_AFTER", "100"))
MAX_OPS = 64
# Only results this small are recorded: a segment holds every result until it has run
# (eager frees a dead one at once), so recording large ones would multiply peak memory;
# and dispatch, what recording saves, is a small part of a larger op's time, while
# deferring it loses the overlap of its computation with the Python that follows (the
# VAE's step, Linear layers of 128x200, before its segments fuse: 4-19% slower with
# recording up to 1 MiB, 2-4% up to 16 KiB; fused, the same either way).
MAX_BYTES = 1 << 14
_MAIN = threading.main_thread().ident
_ident = threading.get_ident
_EVAL = _core.EvalTrace


class Pending:
    """The result of a recorded op: its type now, its array once its segment has run."""

    __slots__ = ("aval", "shape", "dtype", "weak_type", "array", "idx", "entry", "args")

    def __init__(self, aval, idx, entry, args):
        self.aval, self.shape, self.dtype = aval, aval.shape, aval.dtype
        self.weak_type, self.array, self.idx = aval.weak_type, None, idx
        self.entry, self.args = entry, args  # until it has run: another thread may need it


class _Segment:
    __slots__ = ("ops", "ext", "pend", "sig")

    def __init__(self):
        self.ops, self.ext, self.pend, self.sig = [], [], [], []


_seg = _Segment()
_AVALS: dict = {}  # (entry id, operand types) -> the result's aval, False: not recorded
_IDS: dict = {}  # id(entry) -> (entry, small id); holds the entries so ids stay unique
_SEEN: dict = {}  # segment signature -> sightings, then [program, Event or None]
_NEXT = [0]  # the first id of the current _IDS


def _entry_id(e) -> int:
    hit = _IDS.get(id(e))
    if hit is None:
        if len(_IDS) >= 65536:  # entries that keep coming (statics that change): restart
            _IDS.clear()
            _AVALS.clear()
            _SEEN.clear()
            _NEXT[0] += 65536  # ids never repeat, so no old key meets a new entry
        hit = _IDS[id(e)] = (e, _NEXT[0] + len(_IDS))
    return hit[1]


def call(e, vals):
    """Run kernel entry ``e`` = (key, pure fn, kernel, top-level jit) on operand values
    (arrays, Pendings, Python numbers), or record it: an array or a ``Pending``."""
    if not ON or _ident() != _MAIN or PLACEMENT.active or PLACEMENT.blocking:
        return now(e, vals)
    ident = _IDS.get(id(e))
    ident = _entry_id(e) if ident is None else ident[1]
    akey, refs, ext = [ident], [], []
    for v in vals:
        t = type(v)
        if t is Pending:
            if v.array is None:
                akey.append(v.aval)
                refs.append(v.idx)
                continue
            v = v.array
            t = type(v)
        if t is ArrayImpl:
            akey.append(v.aval)
        elif t is float or t is int:
            akey.append(t)
        else:  # a tracer (a user's jax.jit), a host array: run now
            return now(e, vals)
        refs.append(-1)
        ext.append(v)
    akey = tuple(akey)
    aval = _AVALS.get(akey)
    if not aval:
        if aval is None:  # first sight: run it, and learn its result's type
            out = now(e, vals)
            ok = type(out) is ArrayImpl and out.nbytes <= MAX_BYTES and not (
                _kernels.full_optimisation(e[0]))
            if len(_AVALS) > 8192:
                _AVALS.clear()
            _AVALS[akey] = out.aval if ok else False
            return out
        return now(e, vals)
    seg = _seg
    p = Pending(aval, len(seg.pend), e, vals)
    refs = tuple(refs)
    seg.pend.append(p)
    seg.ops.append((e, refs))
    seg.sig.append((akey, refs))  # operand types too: one program per key
    seg.ext += ext
    if len(seg.ops) >= MAX_OPS:
        flush()
    return p


def now(e, vals):
    """Run ``e`` on ``vals`` at once (their Pendings' segment first)."""
    for v in vals:
        if type(v) is Pending:
            vals = resolve(list(vals))
            break
    try:
        return e[3](*vals)
    except ValueError:  # under a JAX trace: the kernel's own fallback
        return e[2](*vals)


def resolve(vals: list) -> list:
    """``vals`` with each Pending replaced by its array (in place), its segment run."""
    for i, v in enumerate(vals):
        if type(v) is Pending:
            vals[i] = v.array if v.array is not None else array(v)
    return vals


def array(p: Pending):
    """``p``'s array: the main thread runs the segment; another thread computes ``p``
    alone, from its own record, leaving the segment to the main thread."""
    if p.array is None:
        if _ident() == _MAIN:
            flush()
        else:
            _compute(p)
        if p.array is None:
            raise RuntimeError("the recorded op that computes this tensor failed when its "
                               "segment ran (the error was raised then); compute it again")
    return p.array


def _compute(p: Pending):
    if p.array is None:
        e, args = p.entry, p.args
        vals = [(_compute(v) if type(v) is Pending else v) for v in args]
        try:
            p.array = e[3](*vals)
        except ValueError:  # under a JAX trace: the kernel's own fallback
            p.array = e[2](*vals)
    return p.array


def storage(p):
    """A storage for an op's result: a LazyStorage holding ``p`` until something reads it
    (``LazyStorage.value`` then keeps ``p``'s array), a Storage once ``p`` has run."""
    if type(p) is not Pending:
        return Storage(p)
    if p.array is not None:
        return Storage(p.array)
    st = Storage(p)
    st.__class__ = LazyStorage
    return st


def assign(dst: Storage, src: LazyStorage) -> None:
    """``dst.value = src.value`` without running ``src``'s op: ``dst`` holds it too."""
    p = src.pending
    if p.array is not None or type(dst) not in (Storage, LazyStorage):
        dst.value = src.value
        return
    _SLOT.__set__(dst, p)
    dst.__class__ = LazyStorage


def flush() -> None:
    """Run the current segment's ops: each Pending gets its array (the storages holding it
    take it when read). Only the main thread records, and only it runs the segment."""
    global _seg
    seg = _seg
    if not seg.ops or _ident() != _MAIN:
        return
    _seg = _Segment()
    if type(_core.trace_ctx.trace) is _EVAL:
        _run(seg)
    else:  # read inside a JAX trace (torch.func, torch.compile): still concrete
        with jax.ensure_compile_time_eval():
            _run(seg)


def _run(seg) -> None:
    ops, ext, pend = seg.ops, seg.ext, seg.pend
    if len(ops) > 1 and FUSE_AFTER > 0:
        key = tuple(seg.sig)
        entry = _SEEN.get(key)
        if type(entry) is not list:
            seen = (entry or 0) + 1
            if seen < FUSE_AFTER:
                if len(_SEEN) > 4096:  # segments that keep changing: forget them
                    _SEEN.clear()
                _SEEN[key] = seen
            else:
                program = _kernels.jit(_program(tuple(ops)), name=_name(ops))
                entry = _SEEN[key] = [program, program.compile_ahead(*ext)]
        if type(entry) is list:
            program, done = entry
            if done is None or done.is_set():
                entry[1] = None
                for p, a in zip(pend, program(*ext), strict=True):
                    p.array, p.args = a, None
                return
    it = iter(ext)
    for (e, refs), p in zip(ops, pend, strict=True):
        args = [next(it) if r < 0 else pend[r].array for r in refs]
        try:
            p.array = e[3](*args)
        except ValueError:  # under a JAX trace: the kernel's own fallback
            p.array = e[2](*args)
        p.args = None


def _name(ops):
    """The on-disk name of a segment's program (see ``_executables``): its ops' keys and
    operand wiring, where every op's key names its function (``dispatch._name``)."""
    from .dispatch import _name as op_name

    if all(op_name("forward", e[0]) is not None for e, _ in ops):
        return ("segment", tuple((e[0], refs) for e, refs in ops))
    return None


def _program(ops):
    """The pure function of a segment: its external operands in, every result out."""
    plan = tuple((e[1], refs) for e, refs in ops)

    def segment(*ext):
        it = iter(ext)
        env = []
        for fn, refs in plan:
            env.append(fn(*[next(it) if r < 0 else env[r] for r in refs]))
        return tuple(env)

    return segment
