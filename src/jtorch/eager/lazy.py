"""Lazy eager ops: record runs of small ops, run them as one program when a value is read.

Each eager op used to be one XLA dispatch (about 8 us on a CPU, more than PyTorch's whole
op), so a step of twenty tiny ops paid twenty. Here an op whose kernel has run once for
its operands' types is recorded instead of run: its result is a ``Pending`` (the type
learnt on that first run) held by a ``LazyStorage``. The recorded ops of the current
segment run when anything reads a pending value (``Storage.value``: printing, ``.item()``,
an op that is not recorded, a backward) or the segment reaches ``MAX_OPS``; a segment
whose signature (ops, wiring) has come ``FUSE_AFTER`` times runs as one jitted program
(compiled on the background thread where there is one, used from a fixed later
sighting), else op by op through the ops' own kernels. Nothing is ever computed from a
storage read later than the op: operands are captured as values (an array, or the
Pending of an earlier op of the segment). A fused segment's results may differ from the
op-by-op ones in the last bit: XLA:CPU computes a multiply feeding an add as one fused
multiply-add; so the switch comes at a fixed sighting, never when a compile happens to
be ready (``_left``). A fused segment's program returns only the results something
outside the segment still holds (``_live``): a temporary stays inside it. A repeated
graph's fused backward whose gradients are small records itself too (``record``: one
op, one ``item`` op per gradient) and leaves the segment open until the next op making
an autograd node (``_Segment.ended``), so a training step of small ops (the forward, the
backward, the update) comes to run as one program. A segment that began with a step takes
the next ones too (``step``: up to ``STEPS`` steps, ``STEP_OPS`` ops), so that program
runs once every few steps: each run costs ~15-20 us of the main thread (JAX's call, and
the XLA CPU client waking a pool thread for it), what a polynomial step's ops cost in
Python (its 30,000 steps: 147 -> 117 us a step with 4 a program). Sightings count steps.

Recorded: single-output kernels of at most ``MAX_BYTES`` (16 KiB) of result, of plain
(non-view) tensors and Python numbers, on the main thread, without a profiler, device
placement, ``torch.compile`` trace or ``CUDA_LAUNCH_BLOCKING`` (their callers do not
reach here), not convolutions or pooling (their kernels compile with other options).
An autograd node that keeps a Pending (an input, a saved output) swaps in its array when
the backward checks it (``OpNode.check_saved``); a backward runs the segment first.
``JTORCH_LAZY=0`` turns recording off.
"""

from __future__ import annotations

import itertools
import operator
import os
import sys
import threading

import jax
from jax._src import core as _core
from jax._src.array import ArrayImpl

from .. import _kernels
from .._device import PLACEMENT
from .storage import _SLOT_SET, LazyStorage, Storage

ON = os.environ.get("JTORCH_LAZY", "1") != "0"
# A fused segment costs its compile (tens of ms, on the background thread, whose tracing
# holds the interpreter lock) and saves a few us per op per run: worth it from hundreds of
# runs (a short program's 20th run fused its segments just to finish: slower overall).
FUSE_AFTER = int(os.environ.get("JTORCH_LAZY_FUSE_AFTER", "100"))
MAX_OPS = 64
# A segment of whole steps (see ``step``): its steps and ops at most. A program of a few
# small steps compiles in about the time of one; more steps save less and fuse later.
STEPS, STEP_OPS = 4, 128
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
    """The result of a recorded op: its type now, its array once its segment has run. Made
    by ``pending``."""

    __slots__ = ("aval", "type", "shape", "dtype", "weak_type", "array", "idx", "entry",
                 "args", "inner")


def pending(result, idx, entry, args, inner) -> Pending:
    """A new ``Pending`` (one per recorded op: built without a class call)."""
    p = _new(Pending)
    # The result's aval, its type number (see ``call``), shape, dtype, weak type:
    p.aval, p.type, p.shape, p.dtype, p.weak_type, _ = result  # ``_result``
    p.array, p.idx = None, idx
    # The kernel entry and its operands (arrays, numbers, and where ``inner`` the
    # Pendings of earlier ops of the segment), until it has run: the segment runs
    # from them, and another thread may compute this value alone.
    p.entry, p.args, p.inner = entry, args, inner
    return p


_new = object.__new__


class _Segment:
    __slots__ = ("pend", "sig", "ext", "prior", "ended", "steps", "limit")

    def __init__(self):
        self.pend, self.sig = [], []  # the Pendings; per op (its key or key number, wiring)
        self.ext = []  # the operands from outside, in order: its program's arguments
        # The count of ops before its last ``record``: the sightings of their signature are
        # credited to it (looked up only where its own signature has not fused).
        self.prior = 0
        # A backward was recorded (``record``): the next op making an autograd node (the
        # next step's forward) or recorded backward runs the segment first (``flush``).
        self.ended = False
        # The steps it holds, where it began with one (``step``), else 0; its cap of ops.
        self.steps, self.limit = 0, MAX_OPS


def step() -> None:
    """The next step's forward begins (its first op making a node, ``_Segment.ended``):
    the segment takes it too where it began with a step, has fewer than ``STEPS`` and
    room for one more like them (``STEP_OPS``); else it runs and the next one begins with
    this step. Its steps come as a whole and repeat, as one step's ops do. Only the main
    thread's ops make a segment's steps."""
    if _ident() != _MAIN:
        return
    seg = _seg
    n = seg.steps
    if n and n < STEPS and (n + 1) * len(seg.pend) <= n * STEP_OPS:
        seg.steps, seg.ended, seg.limit = n + 1, False, STEP_OPS
        return
    flush()
    _seg.steps = 1


_seg = _Segment()
_AVALS: dict = {}  # (entry number, operand types) -> ``_result``, False: not recorded
_SEEN: dict = {}  # segment signature -> sightings, then its ``_Fused``
# Operand types as numbers, so that keys hash as ints (an aval hashes in Python: 0.1 us):
_TYPES: dict = {}  # id(aval) -> (aval, number); the aval kept alive so its id stays its own
_NUMBERS: dict = {}  # aval -> number, by value: equal types from distinct avals share one
_count = itertools.count(1)  # entry and type numbers: never reused, so no stale key matches


def _result(aval, number: int, key: int = 0) -> tuple:
    """What a Pending of this type holds of it (``Pending.__init__``), then ``key``: in
    ``_AVALS``, a number naming the op's key there (its signature's entry: an int hashes
    and compares in no time, the key's tuple item by item, and a step's segment signature
    is hashed and compared whole each run)."""
    return aval, number, aval.shape, aval.dtype, aval.weak_type, key


def entry(key, fn, kernel, top) -> tuple:
    """A kernel entry as ``call`` takes it: (key, pure function, kernel, the kernel's
    top-level ``jax.jit``, a number naming the entry in recorded signatures)."""
    return key, fn, kernel, top, next(_count)


def _number(aval) -> int:
    """``aval``'s type number."""
    n = _TYPES.get(id(aval))
    return n[1] if n is not None else _type(aval)


def _type(aval) -> int:
    """``aval``'s type number (``_TYPES``' miss)."""
    n = _NUMBERS.get(aval)
    if n is None:
        if len(_NUMBERS) >= 4096:  # types that keep changing (a length per step)
            _NUMBERS.clear()
        n = _NUMBERS[aval] = next(_count)
    if len(_TYPES) >= 4096:  # avals that keep coming (each new host array has its own)
        _TYPES.clear()
    _TYPES[id(aval)] = (aval, n)
    return n


def call(e, vals):
    """Run kernel entry ``e`` (see ``entry``) on operand values (arrays, Pendings, Python
    numbers), or record it: an array or a ``Pending``."""
    if not ON or _ident() != _MAIN or PLACEMENT.active or PLACEMENT.blocking:
        return now(e, vals)
    akey = [e[4]]  # the entry, then each operand's type: the result's type's key
    mixed = False
    for v in vals:
        t = type(v)
        if t is ArrayImpl:  # ``_number``, inline: every recorded op comes through here
            a = v.aval
            n = _TYPES.get(id(a))
            akey.append(n[1] if n is not None else _type(a))
        elif t is Pending:  # run or not, its type is its array's
            akey.append(v.type)
            mixed = True
        elif t is float or t is int:
            akey.append(t)
        else:  # a tracer (a user's jax.jit), a host array: run now
            return now(e, vals)
    if not mixed:  # all from outside the segment
        args, n = vals, len(vals)
        refs, inner, outer = _OUTERS[n] if n < 16 else (-1,) * n, False, vals
    else:  # the wiring: per operand the earlier op of this segment computing it (-1: from
        # outside), the operands with run Pendings as their arrays, those from outside
        refs, args, inner, outer = [], [], False, []
        for v in vals:
            if type(v) is Pending:
                if v.array is None:  # the result of an earlier op of this segment
                    refs.append(v.idx)
                    args.append(v)
                    inner = True
                    continue
                v = v.array
            refs.append(-1)
            args.append(v)
            outer.append(v)
        refs = tuple(refs)
    akey = tuple(akey)
    res = _AVALS.get(akey)
    if not res:
        if res is None:  # first sight: run it, and learn its result's type
            out = now(e, vals)
            ok = type(out) is ArrayImpl and out.nbytes <= MAX_BYTES and not (
                _kernels.full_optimisation(e[0]))
            if len(_AVALS) > 8192:
                _AVALS.clear()
            _AVALS[akey] = _result(out.aval, _type(out.aval), next(_count)) if ok else False
            return out
        return now(e, vals)
    seg = _seg
    pend = seg.pend
    p = pending(res, len(pend), e, args, inner)
    pend.append(p)
    seg.sig.append((res[5], refs))  # operand types too (akey's number): one program per key
    seg.ext += outer
    if len(pend) >= seg.limit:
        flush()
    return p


_OUTERS = [(-1,) * n for n in range(16)]  # the wiring of n operands from outside


def operand_key(e, vals) -> tuple | None:
    """Entry ``e`` and its operands' types, as ``call`` keys an op (a Pending by its
    result's type: the same number as its array's), or None for an operand ``record``
    does not take."""
    keyed = _keyed(e, vals)
    return keyed[0] if keyed is not None else None


def _keyed(e, vals) -> tuple | None:
    """(``operand_key``, then ``call``'s wiring of them: refs, args, inner, outer) of
    ``vals`` in one pass, or None."""
    akey, refs, args, inner, outer = [e[4]], [], [], False, []
    for v in vals:
        t = type(v)
        if t is Pending:
            if v.array is None:  # the result of an earlier op of this segment
                akey.append(v.type)
                refs.append(v.idx)
                args.append(v)
                inner = True
                continue
            v = v.array
            t = type(v)
        if t is ArrayImpl:
            akey.append(_number(v.aval))
        elif t is float or t is int:
            akey.append(t)
        else:
            return None
        refs.append(-1)
        args.append(v)
        outer.append(v)
    return tuple(akey), tuple(refs), args, inner, outer


def record(e, vals, known: dict) -> list | None:
    """Record entry ``e``, an op with several results, on ``vals`` (arrays, Python numbers,
    Pendings): a Pending per result, each read from the op's by an ``item`` op of the
    segment. ``known`` maps ``operand_key``s to the results' types (``recorded``), learnt
    from runs of the op; None where it cannot be recorded (those operand types not yet
    run, another thread, a trace): the caller runs it. The fused backward records itself
    so (``autograd/fused.py``): a step's update, forward and backward then run as one
    program."""
    if (not ON or _ident() != _MAIN or PLACEMENT.active or PLACEMENT.blocking
            or type(_core.trace_ctx.trace) is not _EVAL):
        return None
    if _seg.ended:  # a second backward: its own segment, as the first's
        flush()
    keyed = _keyed(e, vals)
    found = known.get(keyed[0]) if keyed is not None else None
    if found is None:
        return None
    whole_res, items = found
    if len(_seg.pend) + 1 + len(items) > _seg.limit:
        flush()
        keyed = _keyed(e, vals)  # the segment's results are arrays now
    # The ops before it have come as often as their signature says: so has the segment
    # with it (a step's forward, then its backward), which then fuses as soon (``_run``).
    _seg.prior = len(_seg.sig)
    _, refs, args, inner, outer = keyed
    pend, sig = _seg.pend, _seg.sig
    whole = pending(whole_res, len(pend), e, args, inner)
    pend.append(whole)
    sig.append((whole_res[5], refs))  # its operand types by number (``recorded``)
    _seg.ext += outer
    out, wired = [], (whole.idx,)
    for item, res, skey in items:
        p = pending(res, len(pend), item, [whole], True)
        pend.append(p)
        sig.append((skey, wired))
        out.append(p)
    return out


def recorded(e, avals) -> tuple:
    """What ``record`` keeps of entry ``e``'s results for some operand types (``known``'s
    values): the whole op's ``_result``, whose key is a new number naming those types in
    segment signatures, and per result its ``item`` entry, ``_result`` and signature key."""
    items = tuple((item, _result(aval, _number(aval)), (item[4], e[4]))
                  for item, aval in zip(map(_item, range(len(avals))), avals, strict=True))
    return _result(avals[0], next(_count)), items


_ITEMS: list = []  # entry j: result j of a recorded op with several (``record``)


def _item(j: int) -> tuple:
    while len(_ITEMS) <= j:
        get = operator.itemgetter(len(_ITEMS))
        _ITEMS.append(entry(("item", len(_ITEMS)), get, get, get))
    return _ITEMS[j]


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
        # Computed alone: on another thread, one its segment's program dropped, a deferred
        # op's (``deferred.py``); read inside a JAX trace, still concrete (as ``flush``).
        if p.array is None and p.args is not None:
            if type(_core.trace_ctx.trace) is _EVAL:
                _compute(p)
            else:
                with jax.ensure_compile_time_eval():
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


def assign(dst: Storage, src: LazyStorage) -> None:
    """``dst.value = src.value`` without running ``src``'s op: ``dst`` holds it too."""
    p = src.pending
    if p.array is not None or type(dst) not in (Storage, LazyStorage):
        dst.value = src.value
        return
    _SLOT_SET(dst, p)
    dst.__class__ = LazyStorage


def flush() -> None:
    """Run the current segment's ops: each Pending gets its array (the storages holding it
    take it when read). Only the main thread records, and only it runs the segment."""
    global _seg
    seg = _seg
    if not seg.pend or _ident() != _MAIN:
        return
    _seg = _Segment()
    if type(_core.trace_ctx.trace) is _EVAL:
        _run(seg)
    else:  # read inside a JAX trace (torch.func, torch.compile): still concrete
        with jax.ensure_compile_time_eval():
            _run(seg)


def _run(seg) -> None:
    pend = seg.pend
    if len(pend) > 1 and FUSE_AFTER > 0:
        sig = tuple(seg.sig)
        fused = _SEEN.get(sig)
        if type(fused) is not _Fused:
            prior = 0
            if seg.prior:  # the sightings of the ops before a ``record`` (see there)
                before = _SEEN.get(tuple(seg.sig[:seg.prior]))
                prior = FUSE_AFTER if type(before) is _Fused else (before or 0)
            seen = max(fused or 0, prior) + (seg.steps or 1)  # in steps
            if seen < FUSE_AFTER:
                if len(_SEEN) > 4096:  # segments that keep changing: forget them
                    _SEEN.clear()
                _SEEN[sig] = seen
            else:
                fused = _SEEN[sig] = _Fused(sig, _left(FUSE_AFTER, seen))
        if type(fused) is _Fused:
            live = _live(pend, fused.held)
            ext = seg.ext
            entry = fused.programs.get(live)
            if entry is None or not _alike(entry[3], ext):
                entry = _entry(fused, pend, sig, live, ext)
            if fused.left:  # compiling: op by op for a fixed count of sightings
                fused.left -= 1
            if not fused.left:
                program, done, held, _, take = entry
                if done is not None:  # the same run switches however fast it compiled
                    done.wait()
                    entry[1] = None
                for i, a in zip(held, program(*(take(ext) if take else ext)), strict=True):
                    p = pend[i]
                    p.array, p.args = a, None
                return
    for p in pend:
        args = p.args
        if p.inner:
            args = [a.array if type(a) is Pending else a for a in args]
        try:
            p.array = p.entry[3](*args)
        except ValueError:  # under a JAX trace: the kernel's own fallback
            p.array = p.entry[2](*args)
        p.args = None


def _entry(fused, pend, sig, live, ext) -> list:
    """Segment ``fused``'s program for these ``live`` results and ``ext``'s repeated
    operands, made and its compile queued on first need: [program, Event of that compile
    or None, the positions of the results' Pendings, ``_repeats(ext)``, a function taking
    one of each operand from ``ext`` or None]. An operand from outside that comes several
    times (a step's ``x`` read by four ops, a learning rate by four updates) is one
    argument of the program: JAX's dispatch costs per argument (a polynomial step's
    program, 19 arguments of which 12 distinct: 33 -> 26 us a call). The first entry made
    for ``live`` is ``fused.programs``' (checked per run by ``_alike``); another pattern
    of repeats (rare: an operand that used to repeat no longer does) has its own."""
    dups = _repeats(ext)
    entry = fused.aliased.get((live, dups))
    if entry is None:
        ops = tuple((p.entry, refs) for p, (_, refs) in zip(pend, sig, strict=True))
        src = dict(dups)
        keep = [i for i in range(len(ext)) if i not in src]  # each operand's first place
        slot = {i: k for k, i in enumerate(keep)}
        where = tuple(slot[src.get(i, i)] for i in range(len(ext))) if dups else None
        take = None if not dups else operator.itemgetter(*keep) if len(keep) > 1 else (
            lambda ext, i=keep[0]: (ext[i],))
        program = _kernels.jit(_program(ops, live, where), name=_name(ops, live, dups))
        entry = fused.aliased[(live, dups)] = [
            program, program.compile_ahead(*(take(ext) if take else ext)),
            tuple(i for i, keep in enumerate(live) if keep), dups, take]
        fused.programs.setdefault(live, entry)
    return entry


def _repeats(ext) -> tuple:
    """(position, its first position) of each operand that is an earlier one again."""
    first, dups = {}, []
    for i, v in enumerate(ext):
        j = first.setdefault(id(v), i)
        if j != i:
            dups.append((i, j))
    return tuple(dups)


def _alike(dups, ext) -> bool:
    """Whether ``ext`` repeats (at least) ``dups``' operands: the program taking them
    once gives the same results."""
    for i, j in dups:
        if ext[i] is not ext[j]:
            return False
    return True


def _left(after: int, seen: int) -> int:
    """How many sightings, from the ``seen``-th, still run without the program queued at
    the ``after``-th, counting this one: it is first used at the ``after + after // 2``-th,
    compiled meanwhile where a background thread does (``_kernels.ahead``), else by that
    call.

    The switch from op-by-op kernels to one program may change results in the last bit
    (XLA fuses a multiply feeding an add into one instruction), so it comes at a fixed
    sighting, waiting for a compile not over by then, never "once the compile is ready":
    a seeded program then gives the same numbers on every run, cold or warm, with or
    without the thread (it used to differ from run to run, by how fast the thread was)."""
    lag = after // 2
    return max(after + lag - seen, 0) + 1


class _Fused:
    """A segment signature that has come ``FUSE_AFTER`` times: its programs, one per set
    of results still held when it runs (``_live``), per op the references its result has
    when only the segment holds it (``held``: the segment's list, the count's argument,
    and one per later op of the segment using it), and the sightings left before the
    first use (``_left``)."""

    __slots__ = ("held", "programs", "aliased", "left")

    def __init__(self, sig, left: int):
        held = [2] * len(sig)
        for _, refs in sig:
            for r in refs:
                if r >= 0:
                    held[r] += 1
        self.held, self.programs, self.left = held, {}, left
        self.aliased = {}  # (live, repeats) -> the entry (see ``_entry``)


def _live(pend, held) -> tuple:
    """Per Pending, whether anything outside the segment holds it (a tensor's storage, an
    autograd node, another storage that took it): only those leave the program. A result
    that nothing else will read (a temporary, a forward value whose node the backward has
    released) stays inside, where XLA fuses it away. A Pending has no weak references, so
    its reference count says it all: ``held`` counts the segment's own (no local variable
    may hold it here)."""
    if not _COUNTED:
        return (True,) * len(pend)
    # Each count taken as the argument of one call, as ``held`` counts it; no bytecode per
    # result (a step's segment has dozens).
    return tuple(map(operator.gt, map(_refcount, pend), held))


_refcount = sys.getrefcount
# A free-threaded CPython may defer or split reference counts: there, every result leaves.
_COUNTED = getattr(sys, "_is_gil_enabled", lambda: True)()


def _name(ops, live, dups=()):
    """The on-disk name of a segment's program (see ``_executables``): its ops' keys and
    operand wiring, where every op's key names its function (``dispatch._name``), which
    results it returns and which operands it takes once for several (``_repeats``)."""
    from .dispatch import _name as op_name

    if all(op_name("forward", e[0]) is not None for e, _ in ops):
        name = ("segment", tuple((e[0], refs) for e, refs in ops), live)
        return name + (dups,) if dups else name
    return None


def _program(ops, live, where=None):
    """The pure function of a segment: its external operands in, the ``live`` results out.
    ``where``: per operand of the segment, its position among the program's arguments
    (each repeated operand taken once: ``_entry``); None where they are the same."""
    plan = tuple((e[1], refs) for e, refs in ops)

    def segment(*ext):
        if where is not None:
            ext = [ext[k] for k in where]
        it = iter(ext)
        env = []
        for fn, refs in plan:
            env.append(fn(*[next(it) if r < 0 else env[r] for r in refs]))
        return tuple(v for v, keep in zip(env, live, strict=True) if keep)

    return segment
