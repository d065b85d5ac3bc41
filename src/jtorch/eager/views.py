"""Views and mutation: index-update bookkeeping over a shared Storage.

A view records the chain of pure steps from its storage's base value to itself. Reading
applies the chain (cached per base value); writing scatters the new value back through
the inverse steps, replaces the base value and bumps the shared version counter, so
every alias sees the change. For autograd an in-place op is an out-of-place op whose
result takes over the written tensor's history; writing through a view rebases the
view's base onto a ``CopySlices`` node, and views regenerate their ``grad_fn`` from
their base when its version moves on, as in PyTorch.
"""

from __future__ import annotations

import weakref

from .. import _dtypes as D
from .. import _kernels, _strides
from .._device import PLACEMENT
from ..functional import shape as S
from ..functional.elementwise import to_dtype
from . import dispatch, hooks, lazy
from .autograd import grad_mode
from .autograd.node import ENTRY
from .fast_paths import _unrecorded
from .storage import LazyStorage
from .tensor import Tensor

_READ: dict = {}
_SCATTER: dict = {}
# Storage -> strides of the tensor that owns it, when not row-major. A detached alias of a
# view (``v.detach()``) keeps the view's chain but not its base, so ``as_strided`` on it
# finds the storage's memory order here.
_LAYOUT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def read_chain(chain, base):
    """Apply ``chain`` to ``base``: one kernel per chain structure (indices are arguments)."""
    structure, values = S.split_chain(chain)
    k = _READ.get(structure)
    if k is None:
        k = _READ[structure] = _kernels.jit(
            lambda b, *at: S.apply_chain(b, S.join_chain(structure, at)),
            name=("read_chain", structure))
    return k(base, *values)


def _scatter(chain, base, value):
    structure, values = S.split_chain(chain)
    k = _SCATTER.get(structure)
    if k is None:
        k = _SCATTER[structure] = _kernels.jit(
            lambda b, v, *at: S.scatter_chain(b, S.join_chain(structure, at), v),
            name=("scatter_chain", structure))
    return k(base, value, *values)


def _apply_chain(chain, args, name, scatter=False):
    """``dispatch.apply`` of reading (or, with ``scatter``, writing) through ``chain``:
    recorded for autograd, keyed by the chain's structure."""
    structure, values = S.split_chain(chain)
    n = len(args)
    if scatter:
        def fn(b, s, *at):
            return S.scatter_chain(b, S.join_chain(structure, at), s)
    else:
        def fn(b, *at):
            return S.apply_chain(b, S.join_chain(structure, at))
    return dispatch.apply(("scatter" if scatter else "read", n, structure), fn,
                          [*args, *values], name, saves="none")


def check_overlap(t: Tensor, inputs=(), internal: bool = True) -> None:
    """PyTorch's memory-overlap errors for writing ``t`` while reading ``inputs``.

    ``internal``: ``t`` may not have two elements in one memory location (fill_, zero_,
    masked_fill_ and index_put_ skip this, as in PyTorch). Each input may not partially
    overlap ``t`` (the same elements in the same order is fine: ``x.add_(x)``).
    """
    if internal and t._chain and _strides.has_internal_overlap(t._shape, t.stride()):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers "
            "to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )
    for x in inputs:
        if isinstance(x, Tensor) and x is not t and x._storage is t._storage and (
            _strides.overlap_status((t._shape, t.stride(), t._offset),
                                    (x._shape, x.stride(), x._offset)) == "partial"
        ):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation."
            )


def write(t: Tensor, value, *, check: bool = True) -> None:
    """Store ``value`` (t's shape and dtype) into t's storage and bump the shared version."""
    st = t._storage
    if t._chain:
        if check:
            check_overlap(t)
        st.value = _scatter(t._chain, st.value, value)
        t._cache, t._cache_src = value, st.value
    else:
        st.value = value
    t._vc.version += 1


_GEOMETRY: dict = {}  # (geometry, shape, stride, offset, kwargs) -> its result


def _geometry(geometry, x: Tensor, kwargs: dict):
    """``geometry(x's shape, stride, offset, **kwargs)``, remembered for a module-level
    geometry (a pure function of these) and hashable arguments: a model views tensors of
    the same geometry every step, and the stride arithmetic costs several microseconds."""
    if geometry.__closure__ is not None or not all(map(_keyable, kwargs.values())):
        # A bool or a float argument is PyTorch's TypeError, raised by the geometry: equal
        # to an int and hashing alike, it must not find the entry the int made.
        return geometry(x._shape, x.stride(), x._offset, **kwargs)
    try:
        key = (geometry, x._shape, x._stride, x._offset, *kwargs.items())
        hit = _GEOMETRY.get(key)
    except TypeError:  # an unhashable argument: the geometry says what is wrong with it
        return geometry(x._shape, x.stride(), x._offset, **kwargs)
    if hit is None:
        hit = geometry(x._shape, x.stride(), x._offset, **kwargs)
        if len(_GEOMETRY) >= 4096:
            _GEOMETRY.clear()
        _GEOMETRY[key] = hit
    return hit


_KEYABLE = (int, str, type(None))


def _keyable(v) -> bool:
    """An int, a string, None, or a tuple of them (a ``torch.Size`` too): arguments whose
    equality is their meaning (``2.0 == 2`` and ``True == 1`` are not)."""
    return type(v) in _KEYABLE or (isinstance(v, tuple) and all(map(_keyable, v)))


def make_view(x: Tensor, fn, geometry, kwargs: dict, name: str) -> Tensor:
    """A view of ``x`` through the step ``fn(x, **kwargs)``; geometry gives torch's strides."""
    shape, stride, offset, kw = _geometry(geometry, x, kwargs)
    step = (fn, tuple(kw.items()))
    out = _read_unrecorded(x, step)
    if out is None:
        out = _apply_chain((step,), [x], name)
    _finish_view(out, x, step, stride, offset)
    return out


# A view step -> (its read's dispatch kernel, that kernel's top-level jit), or False for a
# step with dynamic arguments (indices), which dispatch passes as operands.
_READ_TOPS: dict = {}


def _read_unrecorded(x: Tensor, step):
    """``_apply_chain``'s read of a plain tensor (no view) whose view nothing records (no
    gradient, profiler, device placement, compile trace, waited launch) and whose step
    has no dynamic arguments: the dispatch kernel's top-level jit on the storage value,
    without ``dispatch``'s frames; None where it does not apply."""
    if dispatch.PROFILER is not None or hooks.RECORDER is not None or PLACEMENT.active:
        return None
    try:
        entry = _READ_TOPS.get(step)
    except TypeError:  # an unhashable argument
        return None
    if entry is None:
        if len(_READ_TOPS) >= 4096:
            _READ_TOPS.clear()
        structure, values = S.split_chain((step,))
        if values:  # indices as arguments (select, narrow): dispatch passes them
            _READ_TOPS[step] = False
            return None

        def fn(b):  # the very function ``_apply_chain`` reads with
            return S.apply_chain(b, S.join_chain(structure, ()))

        kernel = dispatch._fwd_kernel(("read", 1, structure), fn)
        entry = _READ_TOPS[step] = lazy.entry(("read", 1, structure), fn, kernel,
                                             kernel.jitted())
    elif entry is False:
        return None
    return _unrecorded(entry, (x,), record=False)  # the fast paths' plain, unrecorded call


# Views read per kernel call in make_views. XLA:CPU compiles a program's outputs one by
# one (5-7 ms each), so one kernel reading all 299 columns of a (97, 299) input split by
# time step compiled for 1.9 s, and its gradient for 1.8 s (L-BFGS on LSTM cells); groups
# of _GROUP views share one program (their starts are operands) at ~0.1 s each way.
_GROUP = 16


def make_views(x: Tensor, fn, geometry, kwargs_list, name: str) -> tuple:
    """Views of ``x`` from one op (unbind, split): one node per ``_GROUP`` views, view
    ``i`` of a group its output ``i``."""
    metas = [geometry(x._shape, x.stride(), x._offset, **kw) for kw in kwargs_list]
    steps = [(fn, tuple(m[3].items())) for m in metas]
    parts = [S.split_chain((step,)) for step in steps]
    outs: list = []
    for i in range(0, len(parts), _GROUP):
        group = parts[i:i + _GROUP]
        n = len(group)
        if i and n < _GROUP and all(p[0] == parts[0][0] for p in group):
            group = group + [group[-1]] * (_GROUP - n)  # the full groups' program
        outs += _read_many(x, group, name)[:n]
    for out, step, m in zip(outs, steps, metas):
        _finish_view(out, x, step, m[1], m[2])
    return tuple(outs)


def _read_many(x: Tensor, parts, name: str) -> tuple:
    structures = tuple(p[0] for p in parts)
    counts = [len(p[1]) for p in parts]

    def read_all(b, *values):
        out, i = [], 0
        for structure, n in zip(structures, counts):
            out.append(S.apply_chain(b, S.join_chain(structure, values[i : i + n])))
            i += n
        return tuple(out)

    values = [v for p in parts for v in p[1]]
    return dispatch.apply(("read_many", structures), read_all, [x, *values], name,
                          saves="none")


def _finish_view(out: Tensor, x: Tensor, step, stride, offset) -> None:
    _alias_into(out, x, x._chain + (step,), stride, offset)
    if not grad_mode._state.enabled and x.requires_grad:
        out._requires_grad = True  # PyTorch: a no-grad view of such a base is a leaf needing grad


def as_strided(x: Tensor, size, stride, storage_offset=None) -> Tensor:
    """as_strided addresses the storage itself, so its step starts from the base value."""
    if any(getattr(fn, "reinterprets", False) for fn, _ in x._chain):
        raise RuntimeError("jtorch does not support as_strided of a tensor that reads its "
                           "storage reinterpreted (a conjugated, real/imag or view(dtype) "
                           "view); call it on a copy (.clone())")
    shape, stride, offset, kw = _strides.g_as_strided(
        x._shape, x.stride(), x._offset, size, stride, storage_offset
    )
    root = x._base if x._base is not None else x
    chain = _physical_prefix(x) + ((S.as_strided, tuple(kw.items())),)
    read = chain
    if root._chain:  # a detached view, or a tensor whose geometry changed in place: the
        # root's value is not its storage's, so the read starts by writing it back there
        read = ((S.unview, (("storage", root._storage.value), ("chain", root._chain))), *chain)
    out = _apply_chain(read, [root], "AsStridedBackward0")
    _alias_into(out, root, chain, stride, offset)
    return out


def _physical_prefix(x: Tensor) -> tuple:
    """Steps turning x's storage value into memory order when its owner is not row-major."""
    root = x._base if x._base is not None else x
    layout = root._stride if not root._chain else _LAYOUT.get(x._storage)
    if layout is None or _strides.is_contiguous(x._storage.value.shape, layout):
        return ()
    order = tuple(sorted(range(len(layout)), key=lambda d: -layout[d]))
    return ((S.permute, (("dims", order),)),)


def _alias_into(out: Tensor, x: Tensor, chain, stride, offset) -> None:
    root = x._base if x._base is not None else x
    if not root._chain and root._stride is not None:
        _LAYOUT[x._storage] = root._stride
    value = out._storage.value
    out._storage, out._vc, out._chain = x._storage, x._vc, chain
    out._cache, out._cache_src = value, x._storage.value
    out._stride = stride
    out._offset = offset
    out._base = root
    out._view_version = x._vc.version


def _relative_chain(v: Tensor) -> tuple:
    """The steps from ``v``'s base's value to ``v``."""
    base_chain = v._base._chain
    if v._chain[: len(base_chain)] == base_chain:
        return v._chain[len(base_chain):]
    # The base's geometry changed in place (x.t_()) after v was made, or v addresses the
    # storage itself (as_strided of a detached view): back from the base to its storage.
    undo = (S.unview, (("storage", v._storage.value), ("chain", base_chain)))
    return (undo, *v._chain)


def become_view(x: Tensor, out: Tensor) -> Tensor:
    """``x.t_()``, ``x.unsqueeze_(0)``, ...: ``x`` takes the geometry and history of ``out``,
    a view of it, keeping its own identity, base and storage; the version moves on once."""
    x._chain, x._shape, x._stride, x._offset = out._chain, out._shape, out._stride, out._offset
    x._cache, x._cache_src = out._cache, out._cache_src
    if out._grad_fn is not None:
        x._grad_fn, x._output_nr = out._grad_fn, out._output_nr
    x._vc.version += 1
    x._view_version = x._vc.version  # its new history is current: nothing to regenerate
    return x


def regenerate_view_grad_fn(v: Tensor) -> None:
    """Rebuild a view's history from its base after an in-place write moved the version."""
    v._view_version = v._vc.version
    base = v._base
    if not base.requires_grad:
        v._grad_fn = None
        return
    rel = _relative_chain(v)
    with grad_mode.enable_grad():
        out = _apply_chain(rel, [base], "AsStridedBackward0")
    v._grad_fn, v._output_nr = out._grad_fn, 0


# ------------------------------------------------------------------ in-place commit


def check_inplace(t: Tensor) -> None:
    """PyTorch's errors for in-place ops on leaves (and views of leaves) that need grad."""
    if not grad_mode._state.enabled:
        return
    if t._base is not None:
        base = t._base
        if base._grad_fn is None and base._requires_grad:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )
    elif t._grad_fn is None and t._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def _cast_to(result: Tensor, target: Tensor) -> Tensor:
    if result.dtype is target.dtype:
        return result
    if not D.can_cast(result.dtype, target.dtype):
        raise RuntimeError(
            f"result type {D.legacy_name(result.dtype)} can't be cast to the desired output "
            f"type {D.legacy_name(target.dtype)}"
        )
    dt = target.dtype
    return dispatch.apply(("to", dt), lambda v: to_dtype(v, dt), [result], "ToCopyBackward0",
                          saves="none")


def commit(t: Tensor, result: Tensor, *, inputs=(), internal_overlap: bool = True) -> Tensor:
    """Make ``result`` (computed out of place from ``inputs``) the new content and history
    of ``t``; ``internal_overlap=False`` for the ops PyTorch lets write expanded tensors."""
    check_overlap(t, inputs, internal_overlap)
    if result._shape != t._shape:
        raise RuntimeError(
            f"output with shape {list(t._shape)} doesn't match the broadcast shape "
            f"{list(result._shape)}"
        )
    op_node, before = result._grad_fn, t._vc.version
    if result.dtype is not t.dtype:
        result = _cast_to(result, t)
    node = result._grad_fn
    if node is None:
        if t._chain:
            write(t, result._value, check=False)
        else:  # ``write``'s common case, inline; a recorded result is not run for it
            rs = result._storage
            if type(rs) is LazyStorage and not result._chain:
                lazy.assign(t._storage, rs)
            else:
                t._storage.value = result._value
            t._vc.version += 1
        return t
    if t._base is not None:
        _commit_through_view(t, result)
    else:
        write(t, result._value, check=False)
        t._grad_fn, t._output_nr = node, result._output_nr
        _move_saved_output(node, result, t)
    # The op's own node saved ``self`` before this write (PyTorch saves it as a clone).
    op_node.inplace_written(t._vc, before)
    return t


def _commit_through_view(v: Tensor, result: Tensor) -> None:
    base = v._base
    rel = _relative_chain(v)
    new_base = _apply_chain(rel, [base, result], "CopySlices", scatter=True)
    write(base, new_base._value, check=False)
    base._grad_fn, base._output_nr = new_base._grad_fn, 0
    v._cache, v._cache_src = result._value, v._storage.value


def _move_saved_output(node, result: Tensor, t: Tensor) -> None:
    saved = getattr(node, "_saved", None)
    if saved:
        st = t._storage  # the saved output now lives in t (its value checked there)
        saved = node._saved = list(saved)
        for j in range(0, len(saved), ENTRY):
            if saved[j] is result._vc:
                saved[j], saved[j + 1], saved[j + 4], saved[j + 6] = (
                    t._vc, t._vc.version, st, st.value)


def resize_(t: Tensor, shape) -> None:
    """Give ``t`` a fresh contiguous storage of ``shape`` (out= tensors of the wrong size)."""
    import jax.numpy as jnp

    from .storage import Storage

    t._storage = Storage(jnp.zeros(tuple(shape), t.dtype.np))
    t._chain, t._shape, t._stride, t._offset, t._cache_src = (), tuple(shape), None, 0, None
    t._vc.version += 1
