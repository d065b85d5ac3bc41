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

import jax

from .. import _dtypes as D
from .. import _strides
from ..functional import shape as S
from ..functional.elementwise import to_dtype
from . import dispatch
from .autograd import grad_mode
from .autograd.node import describe
from .tensor import Tensor

_READ: dict = {}
_SCATTER: dict = {}


def read_chain(chain, base):
    k = _READ.get(chain)
    if k is None:
        k = _READ[chain] = jax.jit(lambda b: S.apply_chain(b, chain))
    return k(base)


def _scatter_kernel(chain):
    k = _SCATTER.get(chain)
    if k is None:
        k = _SCATTER[chain] = jax.jit(lambda b, v: S.scatter_chain(b, chain, v))
    return k


def write(t: Tensor, value) -> None:
    """Store ``value`` (t's shape and dtype) into t's storage and bump the shared version."""
    st = t._storage
    if t._chain:
        if t._stride is not None and _strides.has_internal_overlap(t._shape, t._stride):
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation."
            )
        st.value = _scatter_kernel(t._chain)(st.value, value)
        t._cache, t._cache_src = value, st.value
    else:
        st.value = value
    t._vc.version += 1


def make_view(x: Tensor, fn, geometry, kwargs: dict, name: str) -> Tensor:
    """A view of ``x`` through the step ``fn(x, **kwargs)``; geometry gives torch's strides."""
    shape, stride, offset, kw = geometry(x._shape, x.stride(), x._offset, **kwargs)
    step = (fn, tuple(kw.items()))
    out = dispatch.apply(step, lambda v: fn(v, **kw), [x], name, saves="none")
    _alias_into(out, x, x._chain + (step,), stride, offset)
    return out


def as_strided(x: Tensor, size, stride, storage_offset=None) -> Tensor:
    """as_strided addresses the storage itself, so its step starts from the base value."""
    shape, stride, offset, kw = _strides.g_as_strided(
        x._shape, x.stride(), x._offset, size, stride, storage_offset
    )
    root = x._base if x._base is not None else x
    chain = _physical_prefix(root) + ((S.as_strided, tuple(kw.items())),)
    if root._chain:  # a detached slice: the storage is not this tensor's own geometry
        out = dispatch.apply(("read", chain), lambda v: S.apply_chain(v, chain),
                             [root._storage.value], "AsStridedBackward0", saves="none")
    else:
        out = dispatch.apply(("read", chain), lambda v: S.apply_chain(v, chain), [root],
                             "AsStridedBackward0", saves="none")
    _alias_into(out, root, chain, stride, offset)
    out._base = root
    return out


def _physical_prefix(root: Tensor) -> tuple:
    """Steps turning a base value into memory order when its strides are not row-major."""
    if root._stride is None or _strides.is_contiguous(root._shape, root._stride):
        return ()
    order = tuple(sorted(range(len(root._shape)), key=lambda d: -root._stride[d]))
    return ((S.permute, (("dims", order),)),)


def _alias_into(out: Tensor, x: Tensor, chain, stride, offset) -> None:
    value = out._storage.value
    out._storage, out._vc, out._chain = x._storage, x._vc, chain
    out._cache, out._cache_src = value, x._storage.value
    out._stride = stride
    out._offset = offset
    out._base = x._base if x._base is not None else x
    out._view_version = x._vc.version
    out._device = x._device


def _relative_chain(v: Tensor) -> tuple:
    base_chain = v._base._chain
    if v._chain[: len(base_chain)] == base_chain:
        return v._chain[len(base_chain):]
    return v._chain


def regenerate_view_grad_fn(v: Tensor) -> None:
    """Rebuild a view's history from its base after an in-place write moved the version."""
    v._view_version = v._vc.version
    base = v._base
    if not base.requires_grad:
        v._grad_fn = None
        return
    rel = _relative_chain(v)
    with grad_mode.enable_grad():
        out = dispatch.apply(("read", rel), lambda b: S.apply_chain(b, rel), [base],
                             "AsStridedBackward0", saves="none")
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


def commit(t: Tensor, result: Tensor) -> Tensor:
    """Make ``result`` (computed out of place) the new content and history of ``t``."""
    if result._shape != t._shape:
        raise RuntimeError(
            f"output with shape {list(t._shape)} doesn't match the broadcast shape "
            f"{list(result._shape)}"
        )
    result = _cast_to(result, t)
    node = result._grad_fn
    if node is None:
        write(t, result._value)
        return t
    if t._base is not None:
        _commit_through_view(t, result)
        return t
    write(t, result._value)
    t._grad_fn, t._output_nr = node, result._output_nr
    _move_saved_output(node, result, t)
    return t


def _commit_through_view(v: Tensor, result: Tensor) -> None:
    base = v._base
    rel = _relative_chain(v)
    new_base = dispatch.apply(
        ("copy_slices", rel), lambda b, s: S.scatter_chain(b, rel, s), [base, result],
        "CopySlices", saves="none",
    )
    write(base, new_base._value)
    base._grad_fn, base._output_nr = new_base._grad_fn, 0
    v._cache, v._cache_src = result._value, v._storage.value


def _move_saved_output(node, result: Tensor, t: Tensor) -> None:
    saved = getattr(node, "_saved", None)
    if saved:
        node._saved = [
            (t._vc, t._vc.version, describe(t)) if vc is result._vc else (vc, ver, desc)
            for vc, ver, desc in saved
        ]


def resize_(t: Tensor, shape) -> None:
    """Give ``t`` a fresh contiguous storage of ``shape`` (out= tensors of the wrong size)."""
    import jax.numpy as jnp

    from .storage import Storage

    t._storage = Storage(jnp.zeros(tuple(shape), t.dtype.np))
    t._chain, t._shape, t._stride, t._offset, t._cache_src = (), tuple(shape), None, 0, None
    t._vc.version += 1
