"""The fused backward: a repeated graph's whole backward as one jitted program.

The engine (``engine.py``) walks a graph node by node, one VJP kernel dispatch each, so a
training step's backward pays JAX's per-call cost once per op. When a plain
``backward()`` meets a graph it has already seen ``AFTER - 1`` times (same ops, same
shapes, same wiring) and nothing asks for the per-node view -- no hooks, ``retain_grad``,
``create_graph``, anomaly mode, profiler or ``torch.compile`` trace, only op nodes and
leaves with dense gradients -- it runs every node's VJP inside one jitted program keyed by
the graph's structure, then accumulates into the leaves as the engine does. The same VJPs
run in the same order and gradients are summed in the same order; XLA may fuse across
nodes, so results agree with the node-by-node walk within float rounding.

Graphs that change from step to step never reach ``AFTER`` and cost only the structure
walk. ``AFTER`` is 50: compiling the program costs 0.05-0.2 s on the CPU, about what it saves
in a thousand steps of a small model (0.1-0.2 ms a step), so a graph seen a few dozen times
(a short run, the last partial batch of each epoch) is not worth one on a first run. Where
there is a background compile thread (``_kernels.ahead``) the program compiles there; the
graph keeps walking until its ``AFTER + AFTER // 2``-th sighting, which waits for the
compile if it is not over (or compiles it, without the thread): results may differ from
the walk's in the last bit, so the step that switches must not depend on how fast a
compile was (a seeded program gives the same numbers on every run, cold or warm; see
``lazy._left``).
A plain ``backward()`` (no ``retain_graph``) of such a graph whose gradients are small
(``lazy.MAX_BYTES``) and whose nodes all recompute (recorded ops) is itself recorded into
the lazy segment (``eager/lazy.py``), once its program has run once (for its results'
types), and the segment stays open until the next op making an autograd node (the next
step's forward): a repeated step's segment (the forward, this backward, the update; and
the next steps', ``lazy.step``) then fuses into one program, inside which the gradients
the update reads and frees stay.
The key is the graph's structure as ``_walk`` reaches it from the roots (one number per
node description), so graphs of one structure share a program whatever order their ops
were made in; the program runs the nodes in the first graph's topological order, kept
with it. Saved tensors are checked first
without running anything (``OpNode.saved_intact``); a value that may have changed without
a version bump (a write through ``.data``) takes the unrecorded way, whose check
(``check_saved``) reads it.
Graphs with convolutions or recurrent layers keep the walk too: their VJPs are
compute-bound, so fusing saves little per step, while compiling them again as part of
one program cost whole seconds of a short run (the LSTM language model: +2.4 s) and made
the DCGAN's steps slower. ``JTORCH_FUSED_BACKWARD_AFTER`` sets the count (0: off).
"""

from __future__ import annotations

import itertools
import os

import jax.numpy as jnp
from jax._src.array import ArrayImpl

from ... import _kernels
from ..._device import PLACEMENT
from .. import dispatch, hooks, lazy
from ..hooks import EPOCH
from ..tensor import Tensor, wrap
from . import engine, grad_mode
from .node import HOOKED, AccumulateGrad, OpNode, torch_vjp

AFTER = int(os.environ.get("JTORCH_FUSED_BACKWARD_AFTER", "50"))
MAX_NODES = 400  # bigger graphs keep the walk: one program's compile time grows with them
_HEAVY = ("_rnn", "conv")  # op names (prefixes) whose graphs keep the walk (see above)
_SEEN: dict = {}  # graph key -> sightings so far, then [program, Event or None]
_PROGRAMS: dict = {}


def try_fused(roots, seeds, retain_graph, accumulate) -> bool:
    """Run this backward as one program if the graph qualifies; True when it did."""
    if (AFTER <= 0 or grad_mode._state.anomaly or PLACEMENT.blocking
            or hooks.RECORDER is not None or dispatch.PROFILER is not None):
        return False
    walked = _walk(roots)
    if walked is None:
        return False
    found, leaves, plan, root_targets = walked
    values = []
    for g in seeds:
        if isinstance(g, Tensor):
            if g.is_sparse:
                return False
            g = g._value
        values.append(g)
    key = (plan, root_targets, len(leaves))
    # One lookup (hashing the plan is a good part of this function's cost): the count of
    # sightings, then [program, its recorded forms, Event of its background compile or
    # None, sightings left to walk].
    entry = _SEEN.get(key)
    if type(entry) is not list:
        seen = (entry or 0) + 1
        if seen < AFTER:
            if len(_SEEN) > 4096:  # graphs that keep changing: forget them
                _SEEN.clear()
            _SEEN[key] = seen
            return False
        kept = _PROGRAMS.get(key)
        done = None
        if kept is None:
            # The program runs the nodes in a topological order (inputs are older than
            # their users), kept with it: the same for every graph of this key.
            order = tuple(sorted(range(len(found)), key=lambda i: -found[i]._seq))
            ops = [found[i] for i in order]
            for n in ops:  # recorded inputs (eager/lazy.py) become arrays
                if n._pending:
                    n._resolve()
            fns = [n._replay[1] for n in ops]
            # The nodes in full, in that order: what the program runs, and its name on
            # disk (kept there where every recomputed op's key names its function;
            # ``key``'s numbers are this process's).
            at = {i: k for k, i in enumerate(order)}
            moved = lambda edges: tuple(  # noqa: E731 -- walk positions to program positions
                (at[i] if i is not None and i >= 0 else i, nr) for i, nr in edges)
            full = tuple((*_described(n), moved(plan[i][1])) for n, i in zip(ops, order))
            roots_at = moved(root_targets)
            name = ("fused_backward", (full, roots_at, len(leaves))) if all(
                p[2] is None or dispatch._name("forward", p[2][0]) is not None
                for p in full) else None
            fn = _program(full, fns, roots_at, len(leaves))
            program = _kernels.jit(fn, full_opt=True, name=name)  # see _kernels
            # With its recorded forms (``_recordable``) and the order.
            kept = _PROGRAMS[key] = program, {}, order
            _PURE[key] = fn, name
            # Compiled on the background thread where there is one; the graph walks meanwhile.
            done = program.compile_ahead(_inputs(ops), values)
        entry = _SEEN[key] = [*kept, done, lazy._left(AFTER, seen)]
    program, forms, order, done, left = entry
    if left:  # compiling: walked for a fixed count of sightings (``lazy._left``)
        left = entry[4] = left - 1
        if left:
            return False
    if done is not None:  # the same step switches however fast it compiled (see lazy)
        done.wait()
        entry[3] = None
    ops = [found[i] for i in order]
    grads = rec = None
    if not retain_graph:  # recorded, then run with the recorded ops before it (one program)
        flat, arity = _flat(ops, values)
        if flat is not None:
            rec = forms.get(arity)
            if rec is None:
                rec = forms[arity] = _recordable(key, program, arity)
            if rec[1] and _intact(ops):
                grads = lazy.record(rec[0], flat, rec[1])
            flat = None  # its Pendings' counts say what leaves the segment (``lazy._live``)
    recorded = grads is not None
    if not recorded:
        lazy.flush()  # recorded ops run first: their nodes hold their results
        for n in ops:
            n.check_saved()  # PyTorch's errors for modified saved tensors; recomputes stale VJPs
        grads = program(_inputs(ops), values)
        if rec is not None:  # the results' types for these operand types, where small
            akey = lazy.operand_key(rec[0], _flat(ops, values)[0])
            if akey is not None and akey not in rec[1] and grads and all(
                    type(g) is ArrayImpl and g.nbytes <= lazy.MAX_BYTES for g in grads):
                rec[1][akey] = lazy.recorded(rec[0], [g.aval for g in grads])
    if accumulate:
        for n, g in zip(leaves, grads, strict=True):
            if g is not None:
                v = n.variable
                if v._grad is None and v._stride is None:  # ``_accumulate``'s first case
                    EPOCH[0] += 1  # ``hooks.grad_write``, inline (no recorder here)
                    v._grad = wrap(g)
                else:
                    engine._accumulate(v, g, False)
    if not retain_graph:
        for n in ops:
            n.release()
    if recorded:
        # The segment ends where the next step's forward begins (its first op making a
        # node, ``lazy._Segment.ended``), so that segments repeat: the update between
        # joins it, and gradients it reads and frees (``grad = None``) stay inside.
        lazy._seg.ended = True
    return True


def _walk(roots):
    """The graph from ``roots`` as a fused backward keys it, or None where it does not
    qualify (see the module's docstring): its op nodes and its leaves (``AccumulateGrad``)
    in the order first reached (from the roots, each node's edges in order: the same for
    every graph of one structure), per op node its description's number (``_number``:
    ints hash and compare in no time) and its edges, and the roots' edges; an edge is
    (an op node's place, ``~j`` for the ``j``-th leaf, or None for no input; its output
    number). One pass, in place of the engine's ``_collect`` and a sort."""
    hooked = HOOKED[0]
    index = {None: None}
    found, leaves, plan = [], [], []
    root_targets = _reach(roots, index, found, leaves, hooked)
    k = 0
    while root_targets is not None and k < len(found):  # the op nodes reached, each once
        n = found[k]
        k += 1
        targets = _reach(n.next_functions, index, found, leaves, hooked)
        if targets is None:
            return None
        d = _BY_SK.get(n._sk)
        plan.append((d if d is not None else _number(n), targets))
    return None if root_targets is None else (found, leaves, tuple(plan), root_targets)


def _reach(edges, index, found, leaves, hooked):
    """``edges`` as ``_walk`` numbers them, a node reached here first entered (op nodes
    in ``found``, leaves in ``leaves``); None where one does not qualify: a hook of any
    kind or a retain_grad (looked for once any node or tensor has had one), a node freed,
    heavy (``_HEAVY``) or of another kind, a sparse leaf gradient, or too many nodes."""
    targets = []  # a loop, not a comprehension: one or two edges, and no call
    for n, nr in edges:
        i = index.get(n, _NEW)
        if i is _NEW:  # first reached
            if hooked and (n._pre_hooks or n._hooks or n._node_pre_hooks or n._retained):
                return None
            kind = type(n)
            if kind is OpNode:
                if n._freed or len(found) >= MAX_NODES:
                    return None
                heavy = _HEAVY_FN.get(n._replay[1])
                if heavy is None:
                    heavy = _heavy(n._replay)
                if heavy:
                    return None
                i = index[n] = len(found)
                found.append(n)
            elif kind is AccumulateGrad:
                v = n.variable
                if hooked and (v._leaf_hooks or v._post_acc_hooks) or (
                        v._grad is not None and v._grad.is_sparse):
                    return None
                i = index[n] = ~len(leaves)
                leaves.append(n)
            else:
                return None
        targets.append((i, nr))
    return tuple(targets)


_NEW = object()  # a node not reached before (``_reach``)


_HEAVY_FN: dict = {}  # an op node's function -> whether its op is ``_HEAVY``


def _heavy(replay) -> bool:
    """Whether the op of a node's ``_replay`` keeps its graph walking (``_HEAVY``)."""
    op = replay[0]
    op = op[0] if type(op) is tuple else op
    if len(_HEAVY_FN) >= 4096:
        _HEAVY_FN.clear()
    heavy = _HEAVY_FN[replay[1]] = type(op) is str and op.startswith(_HEAVY)
    return heavy


_PURE: dict = {}  # graph key -> (the program's pure function, its on-disk name or None)


def _intact(ops) -> bool:
    """``OpNode.saved_intact`` of every node (one that saved nothing is)."""
    for n in ops:
        if n._saved and not n.saved_intact():
            return False
    return True


def _flat(ops, values):
    """The program's operands as one flat list, and the count per node (then seeds), where
    every node recomputes (keeps no VJP: recorded ops do); (None, None) otherwise."""
    flat, arity = [], []
    for n in ops:
        if n._vjp is not None:
            return None, None
        vals = n._replay[2] if not n._abstract else n.replay_vals()
        flat.extend(vals)
        arity.append(len(vals))
    flat.extend(values)
    arity.append(len(values))
    return flat, tuple(arity)


def _recordable(key, program, arity):
    """How graph ``key``'s program is recorded as an op (``lazy.record``): its entry, and
    the results' types known so far (none). Kept per operand counts in the graph's entry
    (``try_fused``) with ``{operand types: its results' types}`` (``lazy.recorded``): the
    graph key holds its ops' output types, not their operands', so the results' types are
    learnt per operand types (``lazy.operand_key``), from a run; only small ones are kept
    (a large gradient is better computed at once: see ``lazy.MAX_BYTES``)."""
    pure, name = _PURE[key]

    def nest(flat):
        vjps, i = [], 0
        for k in arity[:-1]:
            vjps.append(list(flat[i:i + k]))
            i += k
        return vjps, list(flat[i:])

    def kernel(*flat):
        return program(*nest(flat))

    def fn(*flat):
        return pure(*nest(flat))

    # Named on disk (inside a segment's program) where the program is.
    entry = lazy.entry((*name, arity) if name else (None, key), fn, kernel, kernel)
    return entry, {}


def _inputs(ops):
    """The program's first argument: per node, its inputs (recomputing) or its VJP."""
    return [n._vjp if n._vjp is not None else n._replay[2] if not n._abstract
            else n.replay_vals() for n in ops]


_DESC: dict = {}  # a node's description (``_described``) -> its number in graph keys
_BY_SK: dict = {}  # a lane-made node's ``OpNode._sk`` -> that number
_numbers = itertools.count()  # never reused: a key made before a ``_DESC`` reset never matches


def _number(n) -> int:
    """The number standing for node ``n``'s description in a graph's key (``_BY_SK``'s
    miss): equal descriptions have one number, however the node was made (by the lane or
    not: a graph's first step is not), so a graph has one key."""
    d = _described(n)
    k = _DESC.get(d)
    if k is None:
        if len(_DESC) >= 4096:  # descriptions that keep coming (shapes that change)
            _DESC.clear()
            _BY_SK.clear()
        k = _DESC[d] = next(_numbers)
    sk = n._sk
    if sk is not None:
        if len(_BY_SK) >= 4096:
            _BY_SK.clear()
        _BY_SK[sk] = k
    return k


def _described(n) -> tuple:
    """What a node is to the program: its outputs' types, which edges get gradients, and
    for a recomputing node (no VJP kept: it enters the program as its op and inputs) its
    op's key and differentiable operands."""
    r = n._replay
    return n._out_meta, n._diff_edges, None if n._vjp is not None else (r[0], r[3])


def _program(plan, fns, root_targets, n_leaves):
    """The pure function ``(vjps, seeds) -> leaf gradients`` of one graph structure; a
    recomputing node's entry in ``vjps`` is its inputs, and ``fns`` holds its op."""

    def backward(vjps, seeds):
        buf: dict = {}

        def add(target, g):
            old = buf.get(target)
            buf[target] = g if old is None else old + g

        for target, g in zip(root_targets, seeds, strict=True):
            add(target, g)
        for i, (metas, diff_edges, op, targets) in enumerate(plan):
            cts = []
            for nr, meta in enumerate(metas):
                if meta is not None:
                    g = buf.pop((i, nr), None)
                    cts.append(jnp.zeros(meta[0], meta[1]) if g is None else g)
            targets = [None if t[0] is None else t for t in targets]  # (None, nr): no input
            vjp = vjps[i]
            if op is not None:
                vjp = dispatch.fwd_vjp(fns[i], op[1])(*vjp)[1]
            partial = torch_vjp(vjp, tuple(cts))
            for e, g in zip(diff_edges, partial, strict=False):
                target = targets[e]
                if target is not None and g is not None:
                    add(target, g)
        return [buf.get((~j, 0)) for j in range(n_leaves)]

    return backward
