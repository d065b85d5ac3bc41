"""Generate ``torch.X``, ``Tensor.X``, ``Tensor.X_``, ``out=`` and dunders from the registry.

Each binding is generated Python source with the functional implementation's exact
signature (so argument errors read like PyTorch's and binding costs nothing at call
time). A call splits its arguments into dynamic operands and static arguments; the
statics key the cached kernel.
"""

from __future__ import annotations

import inspect
import re

import jax
import numpy as np

from .. import _dtypes, _registry, _strides
from .._device import PLACEMENT
from .._tensoriter import output_strides
from . import dispatch, hooks, views
from .autograd import grad_mode
from .tensor import Size, Tensor, wrap

_FNS: dict = {}
_SEQ, _NUMPY = (list, tuple), (np.generic, np.ndarray)
_MISSING = inspect.Parameter.empty


def _freeze(x):
    if isinstance(x, list | tuple) and not isinstance(x, Size):
        return tuple(_freeze(i) for i in x)
    if isinstance(x, Tensor) and x.numel() == 1 and x.dtype._kind == 1:
        return int(x.item())
    return x


def _op_fn(spec, names, lens, statics):
    """The pure function a kernel jits: leaves in, the op's functional result out."""
    kw_static = dict(zip(spec.static, statics))
    # Number operands the op asked to see as constants (see ``_constant_operands``).
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


def call(spec, names, vals, statics, out=None):
    """Run a registry op on dynamic ``vals`` (named by ``names``) and ``statics``."""
    operands = names, vals  # as called: the backward's name may depend on them
    if spec.extra:
        if hooks.RECORDER is None:  # host checks of values skip under compile
            _check_index_bounds(spec, names, vals, statics)
            host_check = spec.extra.get("check")
            if host_check is not None:
                host_check(dict(zip(names, vals)), dict(zip(spec.static, statics)))
        if "constant" in spec.extra:
            names, vals, statics = _constant_operands(spec, names, vals, statics)
    leaves, lens = [], []
    for v in vals:
        if isinstance(v, _SEQ):
            for j, x in enumerate(v):
                if isinstance(x, np.ndarray):
                    raise TypeError(f"expected Tensor as element {j} in argument "
                                    f"{len(lens)}, but got numpy.ndarray")
            leaves.extend(v)
            lens.append(len(v))
        else:
            if type(v) is not Tensor and isinstance(v, _NUMPY):
                v = _numpy_operand(spec, names[len(lens)], v)
            leaves.append(v)
            lens.append(-1)
    # True == 1 and hash alike: without the flags, std(x, True) (unbiased) would reuse the
    # kernel of std(x, 1) (dim 1).
    # The default dtype is read while tracing (int -> float results), so it keys the kernel.
    key = (spec.name, names, tuple(lens), statics,
           tuple(type(s) is bool for s in statics) if statics else (), _dtypes._default[0])
    fn = _FNS.get(key)
    if fn is None:
        fn = _FNS[key] = _op_fn(spec, names, tuple(lens), statics)
    if out is not None:
        return _write_out(spec, out, key, fn, leaves)
    name = spec.grad_name
    if type(name) is not str:  # resolved only if a node is recorded
        name = _name_thunk(name, spec.static, statics, *operands)
    try:  # free when nothing is raised (Python 3.11's zero-cost exceptions)
        result = dispatch.apply(key, fn, leaves, name, spec.saves, spec.scalar_edges)
    except TypeError:
        _raise_missing(vals)
        raise
    if spec.pointwise:
        _layout(result, leaves)
    elif spec.extra and "layout" in spec.extra:  # e.g. conv/pool keep channels_last
        spec.extra["layout"](result, dict(zip(names, vals)))
    if spec.returns is not None:
        return spec.returns(*result)
    return result


def _constant_operands(spec, names, vals, statics):
    """Move the Python-number operands that ``spec.extra["constant"](operands)`` names out
    of the kernel's arguments and into its key: XLA then compiles ``x ** 2`` as ``x * x``
    where a traced exponent would cost a general pow. Each (name, type, value) joins the
    statics; the type keeps ``2`` and ``2.0`` apart (int and float results differ)."""
    picked = spec.extra["constant"](dict(zip(names, vals)))
    if not picked:
        return names, vals, statics
    keep = [i for i, n in enumerate(names) if n not in picked]
    consts = tuple((n, type(v), v) for n, v in zip(names, vals) if n in picked)
    return (tuple(names[i] for i in keep), [vals[i] for i in keep],
            (*statics, *consts))


def _raise_missing(vals) -> None:
    """A required argument left out reaches the kernel as its ``_Missing`` default: say so."""
    for v in vals:
        if type(v) is _Missing:
            v._raise()


def _numpy_operand(spec, name, v):
    """A NumPy operand as PyTorch's argument parser reads it: a scalar is a number (see
    ``numpy_scalar``); an ndarray is no tensor (the dunders defer to NumPy instead)."""
    if isinstance(v, np.ndarray):
        raise TypeError(f"{spec.name}(): argument '{name}' must be Tensor, not numpy.ndarray")
    return _dtypes.numpy_scalar(v)


def _name_thunk(name_fn, static_names, statics, names, vals):
    return lambda: name_fn(dict(zip(static_names, statics)), dict(zip(names, vals)))


def _check_index_bounds(spec, names, vals, statics) -> None:
    name = spec.extra.get("index_bounds")
    if name is None or name not in names:
        return
    index, input = vals[names.index(name)], vals[names.index("input")]
    if not isinstance(index, Tensor) or not isinstance(input, Tensor) or not index.numel():
        return
    dim = _strides.wrap_dim(dict(zip(spec.static, statics))["dim"], input.dim())
    size = input._shape[dim] if input._shape else 1
    host = np.asarray(index._value)
    bad = host[(host < 0) | (host >= size)]
    if bad.size:
        raise RuntimeError(
            f"index {int(bad.flat[0])} is out of bounds for dimension {dim} with size {size}"
        )


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


def _write_out(spec, out, key, fn, leaves):
    outs = tuple(out) if isinstance(out, list | tuple) else (out,)
    if grad_mode._state.enabled and any(isinstance(x, Tensor) and x.requires_grad
                                        for x in (*leaves, *outs)):
        raise RuntimeError(
            f"{spec.name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    with grad_mode.no_grad():
        result = dispatch.apply(key, fn, leaves, spec.grad_name, "none")
        if isinstance(result, tuple):  # several outputs: out= is a tuple of tensors
            return _fill_outs(spec, out, result)
        _fill_out(out, result, stacklevel=4)
    return out


def _fill_outs(spec, out, results):
    """``out=`` of an op with several results: a tuple of tensors of exactly the results'
    dtypes (PyTorch casts no multi-output result), each resized as needed."""
    name = re.sub(r"^_|_(dim|all|bins|edges)$", "", spec.name)
    if not isinstance(out, list | tuple) or not all(isinstance(o, Tensor) for o in out):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                        f"{type(out).__name__}")
    if len(out) != len(results):
        raise TypeError(f"expected tuple of {len(results)} elements but got {len(out)}")
    for o, r in zip(out, results, strict=True):
        if o.dtype is not r.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_C_TYPE[r.dtype.name]}, but "
                               f"got {_C_TYPE[o.dtype.name]} instead")
    for o, r in zip(out, results, strict=True):
        _fill_out(o, r, stacklevel=5)
    return spec.returns(*out) if spec.returns is not None else tuple(out)


_C_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half",
           "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
           "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
           "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _fill_out(out, result, stacklevel: int) -> None:
    if out._shape != result._shape:
        if out.numel():
            import warnings

            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out._shape)}, which does not match the required output shape "
                f"{list(result._shape)}. This behavior is deprecated, and in a future "
                "PyTorch release outputs will not be resized unless they have zero elements.",
                UserWarning, stacklevel=stacklevel,
            )
        views.resize_(out, result._shape)
    views.commit(out, result)


def write_out(name: str, result, out):
    """Write a computed ``result`` (a tensor, or a tuple for an op with several outputs) into
    ``out=`` as PyTorch does: no autograd, each out resized (warning when it had elements)
    and cast to its own dtype. Returns ``out``."""
    results = result if isinstance(result, tuple) else (result,)
    outs = tuple(out) if isinstance(out, list | tuple) else (out,)
    if len(outs) != len(results):
        raise RuntimeError(f"{name}() expected an out= argument of size {len(results)}, got "
                           f"size {len(outs)}")
    if (grad_mode._state.enabled and any(o.requires_grad for o in outs)) or any(
            r.requires_grad for r in results):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    with grad_mode.no_grad():
        for o, r in zip(outs, results, strict=True):
            _fill_out(o, r, stacklevel=4)
    return out


def call_overload(spec, args, kwargs):
    for param, names in _ALIASES.items():  # the overloads' predicates look for dim= & co.
        for alias in names:
            if alias in kwargs and param not in kwargs:
                kwargs[param] = kwargs.pop(alias)
    for accept, name in spec.overloads:
        if accept(args, kwargs):
            return _BOUND[name](*args, **kwargs)
    raise TypeError(f"{spec.name}() received an invalid combination of arguments")


# ------------------------------------------------------------------ code generation


def _params(spec):
    return list(inspect.signature(spec.fn).parameters.values())


def _sig_text(params, defaults: dict, extra_kw=(), optional=(), rest=False) -> str:
    """The signature; ``optional`` required parameters get a ``_Missing`` default (an alias
    may supply them) and ``rest`` adds ``**_alias`` for the NumPy-style keyword aliases."""
    parts, star = [], False
    for p in params:
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.name in optional:
            parts.append(f"{p.name}=_u_{p.name}")
        elif p.default is _MISSING:
            parts.append(p.name)
        else:
            defaults[f"_d_{p.name}"] = p.default
            parts.append(f"{p.name}=_d_{p.name}")
    for name in extra_kw:
        if not star:
            parts.append("*")
            star = True
        parts.append(f"{name}=None")
    if rest:
        parts.append("**_alias")
    return ", ".join(parts)


# PyTorch's argument parser takes these NumPy names for its parameters (torch.sum(x,
# axis=0, keepdims=True), torch.add(x1=a, x2=b)).
_ALIASES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
            "other": ("x2",)}
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


def _alias_plan(params):
    """(the aliased parameters, those of them made optional): a required parameter can take
    an alias only when every positional parameter after it may be left out too."""
    names = {p.name for p in params}
    aliased, optional, tail_optional = [], set(), True
    for p in reversed(params):
        positional = p.kind is not p.KEYWORD_ONLY
        aliases = tuple(a for a in _ALIASES.get(p.name, ()) if a not in names)
        if aliases and (p.default is not _MISSING or not positional or tail_optional):
            aliased.append((p.name, aliases))
            if p.default is _MISSING:
                optional.add(p.name)
        if positional and p.default is _MISSING and p.name not in optional:
            tail_optional = False
    return tuple(reversed(aliased)), optional


def _alias_prologue(spec_name, params, g):
    """Lines resolving the aliases, run only when some keyword was not a parameter's name
    (the common call pays for ``**_alias`` and one truth test)."""
    aliased, optional = _alias_plan(params)
    if not aliased:
        return [], (), False
    g["_resolve"] = _resolve_aliases
    for name in optional:
        g[f"_u_{name}"] = _Missing(f"{spec_name}() missing 1 required positional argument: "
                                   f"'{name}'")
    plan = tuple((n, f"_u_{n}" if n in optional else f"_d_{n}", a) for n, a in aliased)
    g["_plan"] = tuple(a for _, _, a in plan)
    names = ", ".join(n for n, _, _ in plan)
    defaults = ", ".join(d for _, d, _ in plan)
    return ["    if _alias:",
            f"        {names}, = _resolve({spec_name!r}, _alias, ({names},), ({defaults},), "
            "_plan)"], optional, True


def _resolve_aliases(name, given, values, defaults, plan):
    """Each aliased parameter's value: given by its name, by one alias, or its default."""
    given, out = dict(given), []
    for aliases, value, default in zip(plan, values, defaults, strict=True):
        for alias in aliases:
            if alias in given:
                if value is not default:
                    raise TypeError(f"{name}() got an unexpected keyword argument '{alias}'")
                value = given.pop(alias)
        out.append(value)
    if given:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(given))}'")
    return out


def _gen_op(spec, dunder: bool = False):
    params = _params(spec)
    g = {"_spec": spec, "_call": call, "_f": _freeze, "_nd": np.ndarray}
    prologue, optional, rest = _alias_prologue(spec.name, params, g)
    sig = _sig_text(params, g, ("out",) if spec.out else (), optional, rest)
    dyn = [p for p in params if p.name not in spec.static]
    req = [p.name for p in dyn if p.default is _MISSING]
    # Locals are underscored: a parameter may be called ``n`` or ``v`` (torch.diff's n).
    body = [*prologue, *_fast_prologue(spec, dyn, req, g),
            f"    _n = [{', '.join(repr(n) for n in req)}]", f"    _v = [{', '.join(req)}]"]
    if dunder:  # PyTorch's dunders reject an ndarray operand and so leave it to NumPy,
        other = params[1].name  # except ``==``, which reads it as a tensor
        act = f"{other} = _np_tensor({other})" if spec.name == "eq" else "return NotImplemented"
        body.insert(0, f"    if isinstance({other}, _nd): {act}")
        g["_np_tensor"] = _np_tensor
    for p in dyn:
        if p.default is not _MISSING:
            body.append(f"    if {p.name} is not _d_{p.name}:")
            body.append(f"        _n.append({p.name!r}); _v.append({p.name})")
    statics = "".join(f"_f({s}), " for s in spec.static)
    out = "out" if spec.out else "None"
    if "_s = (" in "".join(body):  # the static fast path froze them already
        statics = "_s"
    else:
        statics = f"({statics})"
    body.append(f"    return _call(_spec, tuple(_n), _v, {statics}, {out})")
    return _compile(spec.name, sig, body, g)


def _fast_prologue(spec, dyn, req, g) -> list:
    """Lines trying the fast paths first, for ops they can run: no statics, host checks or
    structured results; taken when the optional operands keep their defaults.

    The lane, inline: every operand a plain ``Tensor`` (no subclass, no view) and none
    needing a gradient, with no profiler, device placement, torch.compile trace or
    autocast route in use, and the kernel already looked up (by an earlier call through
    ``fast_call``): the jitted kernel runs on the storages' values and its result is
    wrapped, as ``fast_call`` would, without its calls. Otherwise ``fast_call``."""
    if spec.returns is not None or not req:
        return []
    if spec.static:
        return [] if spec.extra else _static_prologue(spec, dyn, req, g)
    if spec.extra:
        return _checked_prologue(spec, dyn, req, g)
    g.update(_fast=fast_call, _fc={}, _fnames=tuple(req), _MISS=_MISS, _lane=True, _T=Tensor,
             _D=_dtypes._default, _DP=dispatch, _H=hooks, _PL=PLACEMENT, _st=grad_mode._state,
             _wrap=wrap, _layout=_layout, _rest=_lane_rest)
    cond = [f"{p.name} is _d_{p.name}" for p in dyn if p.default is not _MISSING]
    if spec.out:
        cond.append("out is None")
    test = " and ".join(cond) if cond else "True"
    ops = ", ".join(req)
    plain = " and ".join(f"type({n}) is _T and not {n}._chain" for n in req)
    grad = " or ".join(f"{n}._grad_fn is not None or {n}._requires_grad or {n}._base is not None"
                       for n in req)
    vals = ", ".join(f"{n}._storage.value" for n in req)
    lane = ["        _e = _fc.get(_D[0])",
            f"        if (_lane and _e is not None and {plain} and _DP.PROFILER is None",
            "                and _H.RECORDER is None and not _PL.active",
            f"                and not (_st.enabled and ({grad}))):",
            "            try:",
            f"                _o = _e[3]({vals})",
            "            except ValueError:  # under a JAX trace: the kernel's own fallback",
            f"                _o = _e[2]({vals})",
            "            if type(_o) is tuple or _PL.blocking:",
            f"                return _rest(_spec, _o, ({ops},))",
            "            _r = _wrap(_o)"]
    if spec.pointwise:
        lane += [f"            if {' or '.join(f'{n}._stride is not None' for n in req)}:",
                 f"                _layout(_r, ({ops},))"]
    lane.append("            return _r")
    return [f"    if {test}:", *lane,
            f"        _r = _fast(_spec, _fc, _fnames, ({ops},))",
            "        if _r is not _MISS:",
            "            return _r"]


def _checked_prologue(spec, dyn, req, g) -> list:
    """Lines trying ``fast_checked_call`` first, for ops whose only extras are a host check
    and constant operands (``pow``)."""
    if not set(spec.extra) <= {"check", "constant"}:
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
    flags = tuple(type(s) is bool for s in statics)  # True and 1 key different kernels
    ckey = (_dtypes._default[0], statics, flags)
    try:
        entry = cache.get(ckey)
    except TypeError:  # an unhashable static: ``call`` says what is wrong with it
        return _MISS
    if entry is None:
        if any(type(s) is _Missing for s in statics):
            return _MISS  # a required argument left out: ``call`` raises Python's error
        lens = (-1,) * len(names)
        key = (spec.name, names, lens, statics, flags, _dtypes._default[0])
        fn = _FNS.get(key)
        if fn is None:
            fn = _FNS[key] = _op_fn(spec, names, lens, statics)
        if len(cache) >= 256:  # statics that keep changing (a size per step): start again
            cache.clear()
        entry = cache[ckey] = (key, fn, dispatch._fwd_kernel(key, fn))
    name = spec.grad_name
    if type(name) is not str:  # resolved only if a node is recorded
        name = _name_thunk(name, spec.static, statics, names, args)
    result = dispatch.run(entry[0], entry[1], args, name, spec.saves, spec.scalar_edges,
                          entry[2])
    if result is None:
        return _MISS
    if spec.pointwise:
        for a in args:
            if isinstance(a, Tensor) and a._stride is not None:
                _layout(result, args)
                break
    return result


def fast_checked_call(spec, cache, names, args):
    """``fast_call`` for ops with a host check or constant operands (``spec.extra``'s
    "check" and "constant", as ``call`` runs them): the kernel is looked up per default
    dtype and constant values, so ``x ** 2`` skips the generic split and key building."""
    if dispatch.PROFILER is not None or PLACEMENT.active or hooks.RECORDER is not None:
        return _MISS
    for a in args:
        if not isinstance(a, Tensor) and type(a) is not float and type(a) is not int:
            return _MISS
    operands = dict(zip(names, args))
    check = spec.extra.get("check")
    if check is not None:
        check(operands, {})
    constant = spec.extra.get("constant")
    picked = constant(operands) if constant is not None else ()
    ckey = (_dtypes._default[0], *((n, type(operands[n]), operands[n]) for n in picked))
    entry = cache.get(ckey)
    if entry is None:
        entry = cache[ckey] = _checked_entry(spec, names, picked, ckey[1:])
    key, fn, kernel, keep = entry
    leaves = [args[i] for i in keep] if picked else args
    name = spec.grad_name
    if type(name) is not str:  # resolved only if a node is recorded
        name = _name_thunk(name, (), (), names, args)
    result = dispatch.run(key, fn, leaves, name, spec.saves, spec.scalar_edges, kernel)
    if result is None:
        return _MISS
    if spec.pointwise:
        for a in leaves:
            if isinstance(a, Tensor) and a._stride is not None:
                _layout(result, leaves)
                break
    return result


def _checked_entry(spec, names, picked, consts):
    """(key, pure function, forward kernel, operand positions kept) of ``call``'s kernel
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
    return key, fn, dispatch._fwd_kernel(key, fn), keep


def _lane_rest(spec, out, args):
    """The inline lane's less common endings: several outputs, or launches waited for."""
    if PLACEMENT.blocking:
        jax.block_until_ready(out)
    result = tuple(wrap(o) for o in out) if type(out) is tuple else wrap(out)
    if spec.pointwise:
        for a in args:
            if a._stride is not None:
                _layout(result, args)
                break
    return result


_MISS = object()


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
    name = spec.grad_name
    if type(name) is not str:  # resolved only if a node is recorded
        name = _name_thunk(name, (), (), names, args)
    result = dispatch.run(entry[0], entry[1], args, name, spec.saves, spec.scalar_edges,
                          entry[2])
    if result is None:  # an operand other than a tensor or a Python number
        return _MISS
    if spec.pointwise:
        for a in args:
            if isinstance(a, Tensor) and a._stride is not None:
                _layout(result, args)
                break
    return result


def _fast_entry(spec, names):
    """(key, pure function, forward kernel, its top-level ``jax.jit``) of ``call``'s kernel
    for these operands."""
    lens = (-1,) * len(names)
    key = (spec.name, names, lens, (), (), _dtypes._default[0])
    fn = _FNS.get(key)
    if fn is None:
        fn = _FNS[key] = _op_fn(spec, names, lens, ())
    kernel = dispatch._fwd_kernel(key, fn)
    return key, fn, kernel, kernel.jitted()


def _gen_view(spec):
    params = _params(spec)
    g = {"_spec": spec, "_view": _view, "_f": _freeze}
    prologue, optional, rest = _alias_prologue(spec.name, params, g)
    sig = _sig_text(params, g, (), optional, rest)
    kw = ", ".join(f"{p.name!r}: _f({p.name})" for p in params[1:])
    body = [*prologue, f"    return _view(_spec, {params[0].name}, {{{kw}}})"]
    return _compile(spec.name, sig, body, g)


def _view(spec, x, kw):
    name = spec.grad_name
    if type(name) is not str:
        name = _name_thunk(name, tuple(kw), tuple(kw.values()), ("input",), (x,))
    try:
        return views.make_view(x, spec.fn, spec.geometry, kw, name)
    except TypeError:
        _raise_missing((x, *kw.values()))
        raise


def _compile(name, sig, body, g):
    src = f"def {name}({sig}):\n" + "\n".join(body) + "\n"
    exec(compile(src, f"<jtorch binding {name}>", "exec"), g)
    fn = g[name]
    fn.__qualname__ = name
    return fn


def _varargs_method(fn, param: str):
    """Method form taking ``x.view(2, 3)`` as well as ``x.view((2, 3))``."""

    def method(self, *args, **kwargs):
        if param in kwargs:
            return fn(self, kwargs.pop(param), **kwargs)
        if len(args) == 1 and isinstance(args[0], list | tuple):
            args = args[0]
        return fn(self, tuple(args), **kwargs)

    method.__name__ = fn.__name__
    return method


def _np_tensor(array):
    from .creation import as_tensor

    return as_tensor(array)


def _inplace(spec, fn, name):
    """``x.op_(...)``: the op out of place, then committed into ``x`` (views, versions, grad)."""
    internal = spec.name not in _MAY_WRITE_EXPANDED
    dunder = name.startswith("__")
    check_dtype = spec.pointwise and spec.promotion == "default"
    state = grad_mode._state

    def method(self, *args, **kwargs):
        if dunder and isinstance(args[0], np.ndarray):
            return NotImplemented  # Python falls back to ``x = x op other``: NumPy's result
        if state.enabled:
            views.check_inplace(self)
        inputs = (*args, *kwargs.values()) if kwargs else args
        if check_dtype:
            _check_inplace_dtype(self, inputs)
        return views.commit(self, fn(self, *args, **kwargs), inputs=inputs,
                            internal_overlap=internal)

    method.__name__ = name
    return method


# PyTorch lets these write a tensor whose elements share memory (an expanded one).
_MAY_WRITE_EXPANDED = {"masked_fill"}


def _check_inplace_dtype(self, inputs) -> None:
    """PyTorch rejects ``int_x &= 1.5`` by its promoted dtype before running the kernel."""
    # The promoted dtype's category is the highest operand's: none above self's, no error.
    kind = self.dtype._kind
    for a in inputs:
        if isinstance(a, Tensor):
            if a.dtype._kind > kind:
                break
        elif isinstance(a, bool | int | float | complex) and _dtypes._scalar_dtype(a)._kind > kind:
            break
    else:
        return
    ops = [(self.dtype, self.dim())]
    for a in inputs:
        if isinstance(a, Tensor):
            ops.append((a.dtype, a.dim()))
        elif isinstance(a, bool | int | float | complex):
            ops.append(a)
    common = _dtypes.result_type_of(ops)
    if not _dtypes.can_cast(common, self.dtype):
        raise RuntimeError(
            f"result type {_dtypes.legacy_name(common)} can't be cast to the desired output "
            f"type {_dtypes.legacy_name(self.dtype)}"
        )




def _reflected(fn, name):
    def method(self, other):
        if isinstance(other, np.ndarray):
            # PyTorch computes ``other / self`` as ``self.reciprocal() * other`` (NumPy's
            # multiply, then); its other reflected ops reject the ndarray.
            return self.reciprocal() * other if name == "__rtruediv__" else NotImplemented
        return fn(other, self)

    method.__name__ = name
    return method


_BOUND: dict = {}


def _function_for(spec):
    if spec.kind == "op":
        return _gen_op(spec)
    if spec.kind == "view":
        return _gen_view(spec)
    if spec.kind == "overload":
        def overloaded(*args, **kwargs):
            return call_overload(spec, args, kwargs)

        overloaded.__name__ = spec.name
        return overloaded
    return None  # factories and random ops are bound by creation.py


def export(namespace: dict, module: str) -> None:
    """Put the function form of every op declared with ``module`` in its ``modules`` into
    ``namespace`` (e.g. jtorch.linalg's globals), dropping a ``linalg_``-style prefix from
    the registry name: the op "linalg_norm" is ``torch.linalg.norm``."""
    prefix = module.rsplit(".", 1)[-1] + "_"
    for spec in {id(s): s for s in _registry.REGISTRY.values()}.values():
        if module in spec.modules and spec.name in _BOUND:
            for name in (spec.name, *spec.aliases):
                namespace[name.removeprefix(prefix)] = _BOUND[spec.name]


def bind_all(namespace: dict) -> None:
    """Attach every registry op to ``namespace`` (the torch module) and to Tensor."""
    for spec in {id(s): s for s in _registry.REGISTRY.values()}.values():
        fn = _function_for(spec)
        if fn is None:
            continue
        _BOUND[spec.name] = fn
        # In-place forms get their own copy: ``route`` (autocast) must not reach them.
        inplace_fn = _private_copy(fn) if spec.kind == "op" else fn
        names = (spec.name, *spec.aliases)
        for name in names:
            if spec.function and not name.startswith("_"):
                namespace[name] = fn
            if spec.method:
                method = _varargs_method(fn, spec.varargs) if spec.varargs else fn
                setattr(Tensor, name, method)
            if spec.inplace:
                setattr(Tensor, name + "_", _inplace(spec, inplace_fn, name + "_"))
        dunder = _gen_op(spec, dunder=True) if spec.dunders and len(_params(spec)) > 1 else fn
        if spec.kind == "op":
            _ROUTES[spec.name] = (fn.__globals__, dunder.__globals__)
        for d in spec.dunders:
            if d in _INPLACE_DUNDERS:
                setattr(Tensor, f"__{d}__", _inplace(spec, inplace_fn, f"__{d}__"))
            elif d in _REFLECTED_DUNDERS and d not in _COMMUTATIVE_DUNDERS:
                setattr(Tensor, f"__{d}__", _reflected(fn, f"__{d}__"))
            else:  # forward, or commutative and so keeping self first as PyTorch's graph does
                setattr(Tensor, f"__{d}__", dunder)


_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "matmul",
           "lshift", "rshift")
_INPLACE_DUNDERS = {"i" + b for b in _BINARY}
# rsub is declared as its own op (other - input), so it is bound directly, not reflected.
_REFLECTED_DUNDERS = {"r" + b for b in _BINARY} - {"rsub"}
_COMMUTATIVE_DUNDERS = {"radd", "rmul", "rand", "ror", "rxor"}


def bound(name: str):
    return _BOUND[name]


_ROUTES: dict = {}  # op name -> the globals of its generated bindings (function, dunder)


def route(names, via=None) -> None:
    """Make the listed ops' bindings (not their in-place forms) call ``via`` instead of
    ``call`` (same arguments), or ``call`` again with ``via=None``. Autocast uses it, so
    that while it is off the bindings cost nothing extra."""
    for name in names:
        for g in _ROUTES.get(name, ()):
            g["_call"] = call if via is None else via
            # A routed binding always goes through ``via``: no fast path of any kind.
            for name_, fast in _FAST_PATHS.items():
                if name_ in g:
                    g[name_] = fast if via is None else _no_fast
            if "_lane" in g:
                g["_lane"] = via is None


def _no_fast(*args):
    return _MISS


# The fast paths a generated binding may hold, by their name in its globals.
_FAST_PATHS = {"_fast": fast_call, "_fastc": fast_checked_call, "_fasts": fast_static_call}


def _private_copy(fn):
    """``fn`` with its own globals, untouched by ``route``."""
    import types

    copy = types.FunctionType(fn.__code__, dict(fn.__globals__), fn.__name__,
                              fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__, copy.__qualname__ = fn.__kwdefaults__, fn.__qualname__
    return copy
