"""The bindings' fast paths: a generated binding's shorter routes to its cached kernel.

``call`` (``bind.py``) handles every way an op can be called: it splits the arguments into
dynamic operands and statics, runs host checks, builds the kernel key. Most calls are
simpler, and a binding tries these first, in the lines ``_fast_prologue`` generates:

- the lane, inline in the binding: plain tensors (and Python numbers after the first
  operand), none needing a gradient, no profiler, device placement, torch.compile trace
  or autocast route: the jitted kernel runs on the storages' values and its result is
  wrapped; where some need a gradient (none a view), ``grad_lane`` records the op with
  its autograd node from the values the binding read;
- ``fast_call``: an op without statics on tensors and Python numbers;
- ``fast_static_call``: an op with static arguments, its kernel looked up per their values;
- ``fast_checked_call``: an op with a host check or constant operands (``x ** 2``).

Each keys the kernel exactly as ``call`` does, so both reach one compiled program, and
returns ``_MISS`` for anything it leaves to ``call``. ``bind.route`` (autocast) swaps them
all out of a routed binding.
"""

from __future__ import annotations

import inspect

import jax
from jax._src.array import ArrayImpl

from .. import _dtypes, _strides
from .._device import PLACEMENT
from .._tensoriter import output_strides
from . import dispatch, hooks, lazy
from .autograd import grad_mode
from .autograd.node import op_node
from .storage import _SLOT_SET, LazyStorage, Storage
from .tensor import Tensor, wrap

_GRAD_FWD = dispatch._GRAD_FWD  # key -> (kernel, its top-level jit, lazy.call's entry)
_AVALS, _TYPES, Pending, _pending = lazy._AVALS, lazy._TYPES, lazy.Pending, lazy.pending
_MAIN, _ident = lazy._MAIN, lazy._ident

_FNS: dict = {}  # kernel key -> the pure function its kernel jits
# A fast entry's number -> the entry ``grad_lane`` records its op with (``_GRAD_FWD``'s), or
# False where the op's node keeps its VJP or saves its output.
_LANE: dict = {}
# ``nn.Parameter`` (set by ``nn/parameter.py``): a plain tensor to the lanes that take one
# from outside a binding's inline lane (``fast_call``'s, the static and checked paths',
# ``inplace_lane``); a user's subclass of Tensor keeps the generic way.
_PARAM = Tensor
_MISSING = inspect.Parameter.empty
_MISS = object()  # a fast path's "not mine: ask call"
_NAMED: dict = {}  # a kernel entry's number -> its node's name, where statics decide it


def _op_fn(spec, names, lens, statics):
    """The pure function a kernel jits: leaves in, the op's functional result out."""
    kw_static = dict(zip(spec.static, statics))
    # Number operands the op asked to see as constants (see ``bind._constant_operands``).
    kw_static.update((n, v) for n, _, v in statics[len(spec.static):])

    def fn(*leaves):
        kw, i = {}, 0
        for name, n in zip(names, lens):
            if n < 0:
                kw[name] = leaves[i]
                i += 1
            else:
                kw[name] = tuple(leaves[i : i + n])
                i += n
        return spec.fn(**kw, **kw_static)

    return fn


def _name_thunk(name_fn, static_names, statics, names, vals):
    return lambda: name_fn(dict(zip(static_names, statics)), dict(zip(names, vals)))


def _layout(result, leaves) -> None:
    """Give a pointwise result its inputs' memory order, as PyTorch's TensorIterator does."""
    for x in leaves:  # the common case, all inputs contiguous, leaves the result as it is
        if isinstance(x, Tensor) and x._stride is not None and not _strides.is_contiguous(
                x._shape, x._stride):
            break
    else:
        return
    inputs = [(x._shape, x._stride) for x in leaves if isinstance(x, Tensor)]
    full = [(sh, st if st is not None else _strides.contiguous_strides(sh)) for sh, st in inputs]
    for r in result if isinstance(result, tuple) else (result,):
        r._stride = output_strides(r._shape, full)


class _Missing:
    """The default of a required parameter an alias may supply. Using it (an attribute, a
    comparison, a conversion) raises the TypeError Python would have raised for the missing
    argument, so the binding needs no test for it on the common path."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        object.__setattr__(self, "message", message)

    def _raise(self, *args, **kwargs):
        raise TypeError(object.__getattribute__(self, "message"))

    __getattr__ = __bool__ = __index__ = __float__ = __int__ = __len__ = __iter__ = _raise
    __lt__ = __le__ = __gt__ = __ge__ = _raise

    def __repr__(self) -> str:
        return "<required>"


def _fast_prologue(spec, dyn, req, g) -> list:
    """Lines trying the fast paths first, for ops they can run (no structured results),
    taken when the optional operands keep their defaults: ``fast_static_call`` for ops with
    statics, ``fast_checked_call`` for those with a host check or constant operands, else
    the lane, then ``fast_call``.

    The lane, inline: the first operand a plain ``Tensor`` (no subclass, no view), the
    others plain tensors or Python numbers, with no profiler, device placement,
    torch.compile trace or autocast route in use, and the kernel already looked up (by an
    earlier call through ``fast_call``). None needing a gradient: the jitted kernel runs
    on the storages' values (a number as ``dispatch.run`` passes it) and its result is
    wrapped, as ``fast_call`` would, without its calls; some needing one and none a view:
    ``grad_lane`` on those values. Otherwise ``fast_call``."""
    if spec.returns is not None or not req:
        return []
    if spec.static:
        return [] if spec.extra else _static_prologue(spec, dyn, req, g)
    if spec.extra:
        return _checked_prologue(spec, dyn, req, g)
    g.update(_fast=fast_call, _fc={}, _fnames=tuple(req), _MISS=_MISS, _lane=True, _T=Tensor,
             _D=_dtypes._default, _DP=dispatch, _H=hooks, _PL=PLACEMENT, _st=grad_mode._state,
             _wrap=wrap, _layout=_layout, _rest=_lane_rest, _SC=dispatch._scalar,
             _LZ=lazy.call, _LS=LazyStorage, _GL=grad_lane)
    cond = [f"{p.name} is _d_{p.name}" for p in dyn if p.default is not _MISSING]
    if spec.out:
        cond.append("out is None")
    test = " and ".join(cond) if cond else "True"
    ops = ", ".join(req)
    # The first operand a plain tensor; the others plain tensors or Python numbers (given
    # to the kernel as ``dispatch.run`` gives them: ``x * 2.0``, ``lr * p.grad``).
    first, rest = req[0], req[1:]
    plain = " and ".join([f"type({first}) is _T and not {first}._chain"] + [
        f"(type({n}) is _T and not {n}._chain or type({n}) is float or type({n}) is int)"
        for n in rest])
    needs = "{0}._grad_fn is not None or {0}._requires_grad or {0}._base is not None"
    grad = " or ".join([needs.format(first)] + [f"type({n}) is _T and ({needs.format(n)})"
                                                 for n in rest])
    raw = "({0}._storage.pending if type({0}._storage) is _LS else {0}._storage.value)"
    vals = ", ".join([raw.format(first)] + [
        f"({raw.format(n)} if type({n}) is _T else _SC({n}))" for n in rest])
    noview = " and ".join([f"{first}._base is None"] + [
        f"(type({n}) is not _T or {n}._base is None)" for n in rest])
    lane = ["        _e = _fc.get(_D[0])",
            f"        if (_lane and _e is not None and {plain} and _DP.PROFILER is None",
            "                and _H.RECORDER is None and not _PL.active):",
            f"            if not (_st.enabled and ({grad})):",
            f"                _o = _LZ(_e, ({vals},))  # run, or recorded (see lazy.py)",
            "                if type(_o) is tuple or _PL.blocking:",
            f"                    return _rest(_spec, _o, ({ops},))",
            "                _r = _wrap(_o)",
            *_layout_lines(spec, first, rest, ops, "                "),
            "                return _r",
            f"            if {noview}:",
            f"                _r = _GL(_spec, _e, ({ops},), [{vals}])",
            *_layout_lines(spec, first, rest, ops, "                "),
            "                return _r"]
    lines = [f"    if {test}:", *lane,
             f"        _r = _fast(_spec, _fc, _fnames, ({ops},))",
             "        if _r is not _MISS:",
             "            return _r"]
    opt = [p.name for p in dyn if p.default is not _MISSING]
    if opt:  # every optional operand given (``F.linear(x, w, b)``): ``fast_call`` on all,
        # named as ``call`` names them (the required, then the optional), so one kernel
        g.update(_fca={}, _fnames_all=tuple(req + opt))
        given = [f"{n} is not _d_{n}" for n in opt] + (["out is None"] if spec.out else [])
        lines += [f"    if {' and '.join(given)}:",
                  f"        _r = _fast(_spec, _fca, _fnames_all, ({', '.join(req + opt)},))",
                  "        if _r is not _MISS:",
                  "            return _r"]
    return lines


def _layout_lines(spec, first, rest, ops, indent) -> list:
    """The lane's lines giving a pointwise result ``_r`` its inputs' memory order."""
    if not spec.pointwise:
        return []
    strided = [f"{first}._stride is not None"] + [
        f"type({n}) is _T and {n}._stride is not None" for n in rest]
    return [f"{indent}if {' or '.join(strided)}:", f"{indent}    _layout(_r, ({ops},))"]


def grad_lane(spec, e, args, vals, name=None):
    """``fast_call`` of the lane's operands (plain tensors, none a view, and Python numbers;
    see ``_fast_prologue``) when some need a gradient, grad mode on: ``vals`` are their
    values as the lane read them (a storage's array or Pending, a number as
    ``dispatch._scalar`` gives it), ``e`` the kernel entry of ``fast_call``'s cache.

    An op ``lazy.call`` would record (a known result type, a node that recomputes) is
    recorded here with its node, from one pass over the operands: ``lazy.call``'s key and
    wiring and ``dispatch._apply_with_grad``'s gradient mask, edges and saved inputs, for
    operands the binding already checked as plain (a polynomial step's forward: 9 such
    ops). Anything else goes to ``_apply_with_grad``. ``name``: the node's name where the
    caller resolved it (else ``spec.grad_name``)."""
    le = _LANE.get(e[4])  # the recording entry, looked up by the entry's number
    if le is None:
        k = _GRAD_FWD.get(e[0])
        if k is None:  # not learnt yet (``_apply_with_grad`` learns it)
            return _grad_lane_rest(spec, e, args, vals, name)
        if len(_LANE) >= 4096:  # entries that keep coming (statics that change per call)
            _LANE.clear()
        saves = spec.saves
        le = _LANE[e[4]] = k[2] if k and saves != "out" and saves != "all" else False
    if not le or not lazy.ON or _ident() != _MAIN or PLACEMENT.blocking:
        return _grad_lane_rest(spec, e, args, vals, name)
    if lazy._seg.ended:  # the next step's forward: the last step's segment runs first
        lazy.step()
    key, saves = e[0], spec.saves
    # Per operand: its type in ``lazy.call``'s key, its wiring (the op of this segment
    # computing it, or -1: from outside), and its node's edge.
    akey, refs, outer, lz = [le[4]], [], [], False
    diff_idx, edges, diff_edges, scalar_edges = (), [], [], spec.scalar_edges
    for i, a in enumerate(args):
        v = vals[i]
        t = type(v)
        if t is ArrayImpl:
            n = _TYPES.get(id(v.aval))
            akey.append(n[1] if n is not None else lazy._type(v.aval))
            refs.append(-1)
            outer.append(v)
        elif t is Pending:
            if v.array is None:  # a result of the current segment
                akey.append(v.type)
                refs.append(v.idx)
                lz = True
            else:
                v = vals[i] = v.array
                akey.append(lazy._number(v.aval))
                refs.append(-1)
                outer.append(v)
        elif t is float or t is int:
            akey.append(t)
            refs.append(-1)
            outer.append(v)
        else:  # a tracer (a user's jax.jit)
            return _grad_lane_rest(spec, e, args, vals, name)
        if isinstance(a, Tensor):  # a plain tensor or a Parameter
            if a._grad_fn is not None or a._requires_grad:
                diff_idx += (i,)
                diff_edges.append(len(edges))
                node = a._grad_fn
                if node is not None:
                    edges.append((node, a._output_nr))
                else:  # a leaf: its AccumulateGrad, made on first use
                    acc = a._grad_acc
                    edges.append(acc.edge if acc is not None else a._edge())
            elif a.dtype._kind >= 2 or scalar_edges and i < 2:  # add's int operand too
                edges.append((None, 0))
        elif scalar_edges is True and i < 2:  # a Python number (the lane takes no other)
            edges.append((None, 0))
    akey = tuple(akey)
    res = _AVALS.get(akey)
    if name is None:
        name = spec.grad_name
    if not res:
        if type(name) is not str:  # resolved only if a node is recorded
            name = _name_thunk(name, (), (), key[1], args)
        # Not recorded for these types (a large result: run now) or not yet run (learn).
        out = lazy.now(le, vals) if res is False else None
        return dispatch._apply_with_grad(key, e[1], args, vals, diff_idx, name, saves,
                                         scalar_edges, lz, out)
    seg = lazy._seg
    pend = seg.pend
    # Its own list where it reads earlier results of the segment: the node keeps ``vals``,
    # and a segment's run counts the references to its results outside the segment
    # (``lazy._live``): one list for both hid the node's, and a result only the node held
    # (an ``add``'s operand) was left uncomputed when the segment ran before the backward
    # was recorded (``loss.item()`` before ``loss.backward()``).
    p = _pending(res, len(pend), le, list(vals) if lz else vals, lz)
    pend.append(p)
    seg.sig.append((res[5], tuple(refs)))  # as ``lazy.call``'s
    seg.ext += outer
    if len(pend) >= seg.limit:
        lazy.flush()
    saved = []  # as ``_apply_with_grad`` saves them
    if saves == "inputs" or saves == "others":
        # "others": not the one operand needing a gradient (its own is not read).
        alone = diff_idx[0] if saves == "others" and len(diff_idx) == 1 else -1
        for i, a in enumerate(args):
            if i != alone and isinstance(a, Tensor):
                vc = a._vc
                saved += (vc, vc.version, a.dtype, a._shape, a, 0, vals[i])
    if type(name) is not str:  # an overload-dependent name
        name = name({}, dict(zip(key[1], args)))
    t = wrap(p)
    if t.dtype._kind < 2:  # an integer or bool result has no gradient and no node
        return t
    t._grad_fn = node = op_node(name, None, edges, tuple(diff_edges), ((t._shape, p.dtype),),
                                saved, (key, e[1], vals, diff_idx, saves))
    node._pending = True  # its result (and maybe inputs) recorded: see ``check_saved``
    # All a fused backward needs of it but its edges: the recorded op and operand types
    # (the key's number names them, and so its result's type and its edges' kinds) and
    # which operands get gradients (``OpNode._sk``).
    node._sk = (res[5], diff_idx)
    return t


def inplace_lane(t, other, cache):
    """``t.op_(other)`` (``t op= other``) of a binary op with the lane, where nothing needs a
    gradient (``p -= lr * p.grad`` under ``no_grad``): the lane's kernel entry (``cache``,
    the binding's) runs or records on the values and the result becomes ``t``'s, without
    the binding's call, a result tensor and ``views.commit``. None where it does not apply
    (the caller takes the generic way): ``t`` not a plain tensor, a view or needing a
    gradient; ``other`` not a plain tensor of ``t``'s dtype and shape (nothing to broadcast,
    no overlap but the whole) or a Python number ``t``'s kind takes; a result of another
    dtype (``int_t /= 2``: PyTorch's error or cast comes from the generic way)."""
    if (type(t) is not Tensor and type(t) is not _PARAM or t._chain or t._base is not None
            or dispatch.PROFILER is not None or hooks.RECORDER is not None or PLACEMENT.active):
        return None
    e = cache.get(_dtypes._default[0])
    if e is None:  # the binding has not looked its kernel up yet
        return None
    grad = grad_mode._state.enabled
    if grad and (t._grad_fn is not None or t._requires_grad):
        return None
    kind = type(other)
    if kind is Tensor or kind is _PARAM:
        if other._chain or other.dtype is not t.dtype or other._shape != t._shape or grad and (
                other._grad_fn is not None or other._requires_grad):
            return None
        st = other._storage
        v = st.pending if type(st) is LazyStorage else st.value
    elif kind is float and t.dtype._kind >= 2 or kind is int and t.dtype._kind >= 1:
        v = dispatch._scalar(other)
    else:
        return None
    st = t._storage
    kind = type(st)
    out = lazy.call(e, (st.pending if kind is LazyStorage else st.value, v))
    if type(out) is tuple or out.dtype != t.dtype.np:  # run for nothing: the generic way
        return None
    if type(out) is Pending:  # ``lazy.assign``'s, inline: nothing runs
        if kind is LazyStorage or kind is Storage:
            _SLOT_SET(st, out)
            st.__class__ = LazyStorage
        else:
            st.value = lazy.array(out)
    else:
        if PLACEMENT.blocking:
            jax.block_until_ready(out)
        st.value = out
    t._vc.version += 1
    return t


def _grad_lane_rest(spec, e, args, vals, name=None):
    """``grad_lane`` where the op is not recorded with its node there."""
    diff_idx, lz = (), False
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            v = vals[i]
            if type(v) is lazy.Pending:  # a recorded result, as ``dispatch.run`` reads it
                if v.array is None:
                    lz = True
                else:
                    vals[i] = v.array
            if a._grad_fn is not None or a._requires_grad:
                diff_idx += (i,)
    if name is None:
        name = spec.grad_name
    if type(name) is not str:  # resolved only if a node is recorded
        name = _name_thunk(name, (), (), e[0][1], args)
    return dispatch._apply_with_grad(e[0], e[1], args, vals, diff_idx, name, spec.saves,
                                     spec.scalar_edges, lz)


def _checked_prologue(spec, dyn, req, g) -> list:
    """Lines trying ``fast_checked_call`` first, for ops whose only extras are a host check
    and constant operands (``pow``)."""
    if not set(spec.extra) <= {"check", "constant", "by_types"}:
        return []
    g.update(_fastc=fast_checked_call, _fcc={}, _fnames=tuple(req), _MISS=_MISS)
    cond = [f"{p.name} is _d_{p.name}" for p in dyn if p.default is not _MISSING]
    if spec.out:
        cond.append("out is None")
    return [f"    if {' and '.join(cond) if cond else 'True'}:",
            f"        _r = _fastc(_spec, _fcc, _fnames, ({', '.join(req)},))",
            "        if _r is not _MISS:",
            "            return _r"]


def _static_prologue(spec, dyn, req, g) -> list:
    """Lines freezing the static arguments once, then trying ``fast_static_call``."""
    g.update(_fasts=fast_static_call, _fcs={}, _fnames=tuple(req), _MISS=_MISS)
    cond = [f"{p.name} is _d_{p.name}" for p in dyn if p.default is not _MISSING]
    if spec.out:
        cond.append("out is None")
    statics = "".join(f"_f({s}), " for s in spec.static)
    return [f"    _s = ({statics})",
            f"    if {' and '.join(cond) if cond else 'True'}:",
            f"        _r = _fasts(_spec, _fcs, _fnames, ({', '.join(req)},), _s)",
            "        if _r is not _MISS:",
            "            return _r"]


def fast_static_call(spec, cache, names, args, statics):
    """``fast_call`` for ops with static arguments (``x.sum(1)``, ``softmax(x, -1)``): the
    kernel is looked up per default dtype and static values (``call``'s very key), so a
    call skips the generic split and key building."""
    if dispatch.PROFILER is not None or PLACEMENT.active or hooks.RECORDER is not None:
        return _MISS
    # The statics' types too: True and 1 key different kernels.
    ckey = (_dtypes._default[0], statics, tuple(map(type, statics)))
    try:
        entry = cache.get(ckey)
    except TypeError:  # an unhashable static: ``call`` says what is wrong with it
        return _MISS
    if entry is None:
        if any(type(s) is _Missing for s in statics):
            return _MISS  # a required argument left out: ``call`` raises Python's error
        flags = tuple(type(s) is bool for s in statics)
        lens = (-1,) * len(names)
        key = (spec.name, names, lens, statics, flags, _dtypes._default[0])
        fn = _FNS.get(key)
        if fn is None:
            fn = _FNS[key] = _op_fn(spec, names, lens, statics)
        if len(cache) >= 256:  # statics that keep changing (a size per step): start again
            cache.clear()
        kernel = dispatch._fwd_kernel(key, fn)
        entry = cache[ckey] = lazy.entry(key, fn, kernel, kernel.jitted())
    result = _unrecorded(entry, args, True, spec, statics, names, args)
    if result is None:
        name = spec.grad_name
        if type(name) is not str:  # resolved only if a node is recorded
            name = _name_thunk(name, spec.static, statics, names, args)
        result = dispatch.run(entry[0], entry[1], args, name, spec.saves, spec.scalar_edges,
                              entry[2])
    return _fast_result(spec, result, args)


def fast_checked_call(spec, cache, names, args):
    """``fast_call`` for ops with a host check or constant operands (``spec.extra``'s
    "check" and "constant", as ``call`` runs them): the kernel is looked up per default
    dtype and constant values, so ``x ** 2`` skips the generic split and key building."""
    if dispatch.PROFILER is not None or PLACEMENT.active or hooks.RECORDER is not None:
        return _MISS
    typed = spec.extra.get("by_types")
    if typed:  # the check and the picked constants follow from the operands' types alone
        mkey = [_dtypes._default[0]]
        for a in args:
            t = type(a)
            if t is Tensor or t is _PARAM:
                mkey.append(a.dtype)
            elif t is float or t is int:
                mkey.append(t)
                mkey.append(a)
            else:
                break
        else:
            mkey = tuple(mkey)
            hit = cache.get(mkey)
            if hit is not None:  # passed the check for these types before: (entry, name)
                return _checked_run(spec, hit[0], names, args, hit[1])
    for a in args:
        if not isinstance(a, Tensor) and type(a) is not float and type(a) is not int:
            return _MISS
    operands = dict(zip(names, args))
    check = spec.extra.get("check")
    if check is not None:
        check(operands, {})
    constant = spec.extra.get("constant")
    picked = constant(operands) if constant is not None else ()
    ckey = (_dtypes._default[0],)
    for n in picked:  # a loop, not a generator: no function made per call
        v = operands[n]
        ckey += ((n, type(v), v),)
    entry = cache.get(ckey)
    if entry is None:
        if len(cache) >= 256:  # numbers that keep changing (an exponent per step)
            cache.clear()
        entry = cache[ckey] = _checked_entry(spec, names, picked, ckey[1:])
    if typed and type(mkey) is tuple:
        if len(cache) >= 256:
            cache.clear()
        # The node's name too: an overload's (``PowBackward0/1/2``) follows from which
        # operands are numbers, as the check and constants do (``by_types``).
        name = spec.grad_name
        cache[mkey] = entry, name if type(name) is str else name({}, operands)
    return _checked_run(spec, entry, names, args)


def _checked_run(spec, entry, names, args, name=None):
    """``fast_checked_call``'s run of its kernel ``entry`` on ``args``, checked; ``name``:
    the node's, where the caller knows it."""
    key, fn, kernel, keep, top, lane = entry
    if len(keep) == len(args):
        leaves = args
    elif len(keep) == 1:  # ``x ** 2``
        leaves = (args[keep[0]],)
    else:
        leaves = tuple(map(args.__getitem__, keep))
    result = _unrecorded(lane, leaves, True, spec, (), names, args, name)
    if result is None:
        if name is None:
            name = spec.grad_name
        if type(name) is not str:  # resolved only if a node is recorded
            name = _name_thunk(name, (), (), names, args)
        result = dispatch.run(key, fn, leaves, name, spec.saves, spec.scalar_edges, kernel)
    return _fast_result(spec, result, leaves)


def _checked_entry(spec, names, picked, consts):
    """(key, pure function, forward kernel, operand positions kept, the kernel's top-level
    ``jax.jit``) of ``call``'s kernel
    for these operands with ``picked`` moved into the key: ``call``'s very key, so both
    paths share one compiled kernel."""
    keep = tuple(i for i, n in enumerate(names) if n not in picked)
    kept = tuple(names[i] for i in keep)
    lens = (-1,) * len(kept)
    key = (spec.name, kept, lens, consts, tuple(type(s) is bool for s in consts) if consts
           else (), _dtypes._default[0])
    fn = _FNS.get(key)
    if fn is None:
        fn = _FNS[key] = _op_fn(spec, kept, lens, consts)
    kernel = dispatch._fwd_kernel(key, fn)
    top = kernel.jitted()
    return key, fn, kernel, keep, top, lazy.entry(key, fn, kernel, top)


def _unrecorded(entry, args, record=True, spec=None, statics=(), names=(), full=(), name=None):
    """The lane's case for the static and checked fast paths, None where it does not
    apply: plain tensors (no view, none needing a gradient) and Python numbers, no launch
    waited for; the top-level jit runs on the values (numbers as ``dispatch.run`` passes
    them), without ``run``'s operand loop, ``_forward`` and the kernel wrapper. Given the
    op's ``spec``, its ``statics`` and all its operands by name (``names``, ``full``: a
    checked op's ``args`` lack its constants), plain tensors of which some need a gradient
    (none a view) go to ``grad_lane`` (``x.pow(2)``, ``loss.sum()`` in a training step),
    the node named ``name`` where the caller knows it."""
    enabled = grad_mode._state.enabled
    vals, grad = [], False
    for a in args:
        if type(a) is Tensor or type(a) is _PARAM:
            if a._chain or enabled and a._base is not None:
                return None
            if enabled and (a._grad_fn is not None or a._requires_grad):
                if spec is None:
                    return None
                grad = True
            st = a._storage
            vals.append(st.pending if type(st) is LazyStorage else st.value)
        elif type(a) is float or type(a) is int:
            vals.append(dispatch._scalar(a))
        else:
            return None
    if grad:
        if name is None:
            name = spec.grad_name
        if type(name) is not str:  # an overload's name (``SumBackward1``), resolved now
            if name.by_statics:  # once per kernel entry (its statics': ``numbered``)
                named = _NAMED.get(entry[4])
                if named is None:
                    if len(_NAMED) >= 4096:
                        _NAMED.clear()
                    named = _NAMED[entry[4]] = name(dict(zip(spec.static, statics)), {})
                name = named
            else:
                name = name(dict(zip(spec.static, statics)), dict(zip(names, full)))
        return grad_lane(spec, entry, args, vals, name)
    if PLACEMENT.blocking:
        return None
    # Run, or recorded (see lazy.py); a view's read (``record=False``) runs at once.
    out = lazy.call(entry, vals) if record else lazy.now(entry, vals)
    return tuple(wrap(o) for o in out) if type(out) is tuple else wrap(out)


def _lane_rest(spec, out, args):
    """The inline lane's less common endings: several outputs, or launches waited for."""
    if PLACEMENT.blocking:
        jax.block_until_ready(out)
    result = tuple(wrap(o) for o in out) if type(out) is tuple else wrap(out)
    if spec.pointwise:
        for a in args:
            if type(a) is Tensor and a._stride is not None:
                _layout(result, args)
                break
    return result


def fast_call(spec, cache, names, args):
    """``call`` for its most common case, ``_MISS`` where it does not apply: an op without
    statics whose operands are tensors and Python numbers, no torch.compile trace, profiler
    or device placement in use. The kernel (per default dtype, which keys it) is looked up
    once per binding, so a call skips the generic argument split and key building."""
    if dispatch.PROFILER is not None or PLACEMENT.active or hooks.RECORDER is not None:
        return _MISS
    entry = cache.get(_dtypes._default[0])
    if entry is None:
        entry = cache[_dtypes._default[0]] = _fast_entry(spec, names)
    # Plain tensors and Parameters (a Linear's weight), no view: the lane's way.
    result = _unrecorded(entry, args, True, spec, (), names, args)
    if result is None:
        name = spec.grad_name
        if type(name) is not str:  # resolved only if a node is recorded
            name = _name_thunk(name, (), (), names, args)
        result = dispatch.run(entry[0], entry[1], args, name, spec.saves, spec.scalar_edges,
                              entry[2])
    return _fast_result(spec, result, args)


def _fast_result(spec, result, args):
    """A fast path's ending: ``_MISS`` where ``dispatch.run`` met an operand it leaves to
    ``call`` (None), else the result, with its inputs' memory order if pointwise."""
    if result is None:  # an operand other than a tensor or a Python number
        return _MISS
    if spec.pointwise:
        for a in args:
            if isinstance(a, Tensor) and a._stride is not None:
                _layout(result, args)
                break
    return result


def _fast_entry(spec, names, statics=()):
    """(key, pure function, forward kernel, its top-level ``jax.jit``) of ``call``'s kernel
    for these operands (one tensor or number each) and static arguments."""
    lens = (-1,) * len(names)
    flags = tuple(type(s) is bool for s in statics) if statics else ()
    key = (spec.name, names, lens, statics, flags, _dtypes._default[0])
    fn = _FNS.get(key)
    if fn is None:
        fn = _FNS[key] = _op_fn(spec, names, lens, statics)
    kernel = dispatch._fwd_kernel(key, fn)
    return lazy.entry(key, fn, kernel, kernel.jitted())


def _no_fast(*args):
    return _MISS


# The fast paths a generated binding may hold, by their name in its globals.
_FAST_PATHS = {"_fast": fast_call, "_fastc": fast_checked_call, "_fasts": fast_static_call}
