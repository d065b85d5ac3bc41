"""Tensor metadata PyTorch programs query: device and layout predicates, dtype and size
predicates as methods, ``dim_order``, ``is_set_to``, ``grad_dtype``, the sparse queries on
dense tensors, the Python-callback methods (``apply_``, ``map_``, ``map2_``) and the
torch-level forms of a few methods (``torch.detach``, ``torch.get_device``, ...)."""

from __future__ import annotations

import builtins
import numbers
import warnings

import numpy as np

from .. import _memory_format as MF
from .. import _strides
from ..eager import views
from ..eager.tensor import Tensor
from . import dtype_info

__all__ = ["detach", "detach_", "get_device", "is_distributed", "is_inference"]

# Devices and layouts jtorch never produces: JAX has no backend for them (is_cpu and
# is_cuda answer from the device the data is on).
_NEVER = ("is_xpu", "is_mps", "is_meta", "is_quantized", "is_nested", "is_mkldnn",
          "is_vulkan", "is_ipu", "is_xla", "is_maia", "is_mtia", "is_sparse_csr")


def _tensor_arg(fn: str, x, name: str = "input", pos: int = 1) -> Tensor:
    return dtype_info._tensor_arg(fn, x, name, pos)


def _method_form(name: str):
    def fn(input, *args, **kwargs):
        return getattr(_tensor_arg(name, input), name)(*args, **kwargs)

    fn.__name__ = name
    return fn


detach, detach_, get_device, is_distributed, is_inference = map(
    _method_form, ("detach", "detach_", "get_device", "is_distributed", "is_inference"))


# ------------------------------------------------------------------ layout and memory


def _dim_order(self, *, ambiguity_check=False) -> tuple:
    """The dims from outermost to innermost in memory, by PyTorch's rules and checks."""
    if not isinstance(ambiguity_check, bool) and not (
            isinstance(ambiguity_check, list)
            and all(isinstance(f, MF.memory_format) for f in ambiguity_check)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                        "formats.")
    shape, st = self._shape, self.stride()
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    several = any(a == b for a, b in zip(st, st[1:], strict=False)) or 1 in shape
    if (ambiguity_check is not False and several
            and sum(self.is_contiguous(memory_format=f) for f in formats) != 1):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact "
                           "one of the given memory formats.")
    perm, ambiguous = _physical_order(self, bool(ambiguity_check))
    if ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(perm)


def _physical_order(x, check: bool):
    """torch._prims_common's logical-to-physical permutation (an insertion sort by stride
    with ties broken by size), and whether some adjacent pair stays unordered."""
    n, shape, st = x.dim(), x._shape, x.stride()
    if n < 2:
        return list(range(n)), False
    contiguous = x.is_contiguous()
    last = n == 4 and x.is_contiguous(memory_format=MF.channels_last)
    if contiguous != last:
        return (list(range(n)) if contiguous else [0, *range(2, n), 1]), False

    def ge(a, b):
        return b == 0 or (a != 0 and (a >= b or a % b == 0))

    def swap(a, b):
        if st[a] == 0 or st[b] == 0:
            return 0
        if st[a] == st[b]:
            return 0 if ge(shape[b], shape[a]) else 1
        return -1 if ge(st[b], st[a]) else 1

    perm = _strides.insertion_order(n, swap)
    ambiguous = check and any(swap(perm[i], perm[i + 1]) != -1 for i in range(n - 1))
    return list(reversed(perm)), ambiguous


def _is_set_to(self, tensor) -> bool:
    """Same storage, offset, sizes and strides."""
    other = _tensor_arg("is_set_to", tensor, "tensor")
    return (self._storage is other._storage and self._offset == other._offset
            and self._shape == other._shape and self.stride() == other.stride())


def _sum_to_size(self, *size) -> Tensor:
    """Sum the broadcast dims away so the result has ``size`` (``x`` is expandable from it)."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], list | tuple) else size
    shape = self._shape
    lead = len(shape) - len(size)
    if lead < 0 or any(s not in (1, n) for s, n in zip(size, shape[lead:], strict=True)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shape[lead + i] != 1)
    if not dims:
        return self
    out = self.sum(dims, keepdim=True)
    return out.view(size) if lead else out


def _module_load(self, other, assign=False) -> Tensor:
    """What ``load_state_dict`` swaps in for ``self``: ``other`` copied into it, or
    ``other`` itself (detached) with ``assign=True``."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


# ------------------------------------------------------------------ autograd metadata


def _grad_dtype(self):
    if self.grad_fn is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return self.dtype


def _set_grad_dtype(self, value) -> None:
    """Differences from PyTorch: only the tensor's own dtype can be set (gradients are
    never cast to another dtype by jtorch's engine)."""
    if self.grad_fn is not None:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if value is not self.dtype:
        raise RuntimeError(f"jtorch does not support a grad_dtype ({value}) other than the "
                           f"tensor's dtype ({self.dtype})")


def _volatile(self) -> bool:
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


# ------------------------------------------------------------------ sparse queries on dense


def _sparse_only(name: str, kind: str = "sparse coordinate tensor"):
    def method(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected {kind} layout but got Strided")

    method.__name__ = name
    return method


# ------------------------------------------------------------------ Python callbacks


def _check_callback(self, name: str) -> None:
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")


def _python_value(v, dtype):
    if not isinstance(v, numbers.Number):
        kind = "complex" if dtype.is_complex else "real"
        raise TypeError(f"must be {kind} number, not {type(v).__name__}")
    return v


def _run_callback(self, name: str, fn, others) -> Tensor:
    """Call ``fn`` on each element (with the broadcast elements of ``others``) on the host
    and write the results into ``self``, cast to its dtype (PyTorch's CPU-only methods)."""
    _check_callback(self, name)
    cols = [np.asarray(self._value).reshape(-1).tolist()]
    for o in others:
        cols.append(np.broadcast_to(np.asarray(o._value), self._shape).reshape(-1).tolist())
    out = [_python_value(fn(*vals), self.dtype) for vals in zip(*cols, strict=True)]
    host = np.asarray(out if out else [], dtype=self.dtype.np).reshape(self._shape)
    # PyTorch writes the data directly, without bumping the version counter.
    version = self._vc.version
    views.write(self, _from_host(host, self.dtype)._value)
    self._vc.version = version
    return self


def _apply_(self, callable) -> Tensor:  # noqa: A002 - torch's parameter name
    _check_callback(self, "apply_")
    if not builtins.callable(callable):
        raise TypeError(f"'{type(callable).__name__}' object is not callable")
    return _run_callback(self, "apply_", callable, ())


def _map_(self, tensor, callable) -> Tensor:  # noqa: A002
    return _run_callback(self, "map_", callable, (tensor,))


def _map2_(self, x, y, callable) -> Tensor:  # noqa: A002
    return _run_callback(self, "map2_", callable, (x, y))


def _from_host(host: np.ndarray, dtype) -> Tensor:
    from .._kernels import device_array
    from ..eager.tensor import wrap

    return wrap(device_array(host, dtype.np))


def _attach() -> None:
    for name in _NEVER:
        setattr(Tensor, name, property(lambda self: False))
    Tensor.is_cpu = property(lambda self: self._device.type == "cpu")
    Tensor.is_distributed = lambda self: False
    Tensor.is_signed = lambda self: self.dtype.is_signed
    Tensor.is_nonzero = lambda self: dtype_info.is_nonzero(self)
    Tensor.is_same_size = lambda self, other: dtype_info.is_same_size(self, other)
    Tensor.dim_order = _dim_order
    Tensor.const_data_ptr = lambda self: self.data_ptr()
    Tensor.is_set_to = _is_set_to
    Tensor.sum_to_size = _sum_to_size
    Tensor.module_load = _module_load
    Tensor.grad_dtype = property(_grad_dtype, _set_grad_dtype)
    Tensor.name = None
    Tensor.volatile = property(_volatile)
    Tensor.dense_dim = lambda self: self.dim()
    Tensor.sparse_dim = lambda self: 0
    for name in ("coalesce", "indices", "is_coalesced"):
        setattr(Tensor, name, _sparse_only(name))
    Tensor.values = _sparse_only("values", "sparse tensor")
    Tensor.apply_, Tensor.map_, Tensor.map2_ = _apply_, _map_, _map2_


_attach()
