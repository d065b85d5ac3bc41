"""Generate ``torch.X``, ``Tensor.X``, ``Tensor.X_``, ``out=`` and dunders from the registry.

Each binding is generated Python source with the functional implementation's exact
signature (so argument errors read like PyTorch's and binding costs nothing at call
time). A call splits its arguments into dynamic operands and static arguments; the
statics key the cached kernel. Most calls take a shorter route first (``fast_paths.py``).
"""

from __future__ import annotations

import inspect
import re

import numpy as np

from .. import _cache, _dtypes, _registry, _strides
from .._registry import _NUMBER
from . import dispatch, hooks, views
from .autograd import grad_mode
from .fast_paths import (
    _FAST_PATHS,
    _FNS,
    _MISSING,
    _fast_prologue,
    _layout,
    _Missing,
    _name_thunk,
    _no_fast,
    _op_fn,
    fast_call,  # noqa: F401 -- bind.fast_call: the binding's own name for it
    inplace_lane,
)
from .tensor import Size, Tensor

_SEQ, _NUMPY = (list, tuple), (np.generic, np.ndarray)
_KEYS: dict = {}  # ``call``'s kernel key -> (that key as first made, its pure function)


def _freeze(x):
    """A static argument as the kernel key holds it: lists as tuples, a one-element integer
    tensor as its int (a tuple of types and ``map``: no union or generator per call)."""
    if isinstance(x, _SEQ):
        return x if isinstance(x, Size) else tuple(map(_freeze, x))
    if isinstance(x, Tensor) and x.numel() == 1 and x.dtype._kind == 1:
        return int(x.item())
    return x


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
        if "groups" in spec.extra and out is None:
            joined = _in_groups(spec, names, vals, statics, spec.extra["groups"])
            if joined is not None:
                return joined
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
    hit = _KEYS.get(key)
    if hit is None:
        fn = _FNS.get(key)
        if fn is None:
            fn = _FNS[key] = _op_fn(spec, names, tuple(lens), statics)
        hit = _KEYS[key] = (key, fn)
    # The first call's key object: the nodes of a thousand calls (an LSTM cell through
    # time, whose tuple argument keeps it off the fast paths) share it, one object less
    # each for the garbage collector to walk.
    key, fn = hit
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


def _in_groups(spec, names, vals, statics, size: int):
    """``cat`` of more than ``size`` tensors as a ``cat`` of ``cat``s of ``size``, where
    that gives the same tensor (one dtype, matching shapes, no legacy empty tensor), else
    None. XLA:CPU compiles a program's operands and outputs one by one (~5 ms each): a
    cat of 299 time steps' outputs compiled for 0.5 s and its gradient, 299 slices, for
    1.7 s; cats of 16 share one program. The result's ``grad_fn`` is a CatBackward0 over
    the groups' CatBackward0 nodes (PyTorch's has the inputs' nodes as next functions)."""
    tensors = vals[0]
    if (hooks.RECORDER is not None or not isinstance(tensors, _SEQ) or len(tensors) <= size
            or type(tensors[0]) is not Tensor):
        return None
    first = tensors[0]
    shape, dtype, nd = first._shape, first.dtype, len(first._shape)
    d = statics[0] + nd if statics[0] < 0 else statics[0]
    if nd == 0 or not 0 <= d < nd or (nd == 1 and shape[0] == 0):
        return None
    for t in tensors:
        if (type(t) is not Tensor or t.dtype is not dtype or len(t._shape) != nd
                or t._shape[:d] != shape[:d] or t._shape[d + 1:] != shape[d + 1:]
                or (nd == 1 and t._shape[0] == 0)):
            return None
    rest = list(vals[1:])
    parts = [call(spec, names, [tensors[i:i + size], *rest], statics)
             for i in range(0, len(tensors), size)]
    return call(spec, names, [parts, *rest], statics)


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
        check = f"if isinstance({other}, _nd): {act}"
        g["_np_tensor"] = _np_tensor
        # After the lane (which takes tensors and numbers only), before any other path.
        at = [i for i, line in enumerate(body) if line.startswith("        _r = _fast(")]
        for i in reversed(at):
            body.insert(i, "        " + check)
        body.insert(len(body) - 2 if at else 0, "    " + check)
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
    exec(_cache.compiled(src, f"<jtorch binding {name}>"), g)
    fn = g[name]
    fn.__qualname__ = name
    return fn


def _varargs_method(fn, param: str):
    """Method form taking ``x.view(2, 3)`` as well as ``x.view((2, 3))``."""

    def method(self, *args, **kwargs):
        if param in kwargs:
            return fn(self, kwargs.pop(param), **kwargs)
        if len(args) == 1 and isinstance(args[0], list | tuple):
            args = args[0]  # PyTorch's parser takes bools inside a sequence...
        elif args and (args[0] is True or args[0] is False):  # ...but not as the first size
            raise TypeError(f"{fn.__name__}() received an invalid combination of arguments: "
                            f"a bool where an int is expected (got {args})")
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
    # A binary op with the binding's inline lane: its kernel cache, for ``inplace_lane``.
    g = fn.__globals__
    lane = g["_fc"] if "_lane" in g and len(g["_fnames"]) == 2 else None

    def method(self, *args, **kwargs):
        if lane is not None and len(args) == 1 and not kwargs:
            out = inplace_lane(self, args[0], lane)
            if out is not None:
                return out
        if dunder and isinstance(args[0], np.ndarray):
            return NotImplemented  # Python falls back to ``x = x op other``: NumPy's result
        if state.enabled:
            views.check_inplace(self)
        inputs = (*args, *kwargs.values()) if kwargs else args
        if check_dtype:
            _check_inplace_dtype(self, inputs)
        result = fn(self, *args, **kwargs) if kwargs else fn(self, *args)
        return views.commit(self, result, inputs=inputs, internal_overlap=internal)

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
        elif isinstance(a, _NUMBER) and _dtypes._scalar_dtype(a)._kind > kind:
            break
    else:
        return
    ops = [(self.dtype, self.dim())]
    for a in inputs:
        if isinstance(a, Tensor):
            ops.append((a.dtype, a.dim()))
        elif isinstance(a, _NUMBER):
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
    _cache.save_compiled()


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


def _private_copy(fn):
    """``fn`` with its own globals, untouched by ``route``."""
    import types

    copy = types.FunctionType(fn.__code__, dict(fn.__globals__), fn.__name__,
                              fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__, copy.__qualname__ = fn.__kwdefaults__, fn.__qualname__
    return copy
