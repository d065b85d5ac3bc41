"""The hand-written Tensor methods: the listed few that are compositions, not registry ops.

``__getitem__``/``__setitem__``, ``__contains__``, ``__reversed__``, ``to`` and dtype
shorthands, ``copy_``/``fill_``/``zero_``, ``contiguous``/``clone``/``reshape``/``flatten``,
the multi-output views (``unbind``/``split``/``chunk``), ``as_strided``, ``movedim``,
``T``/``mT``, ``*_as``.
"""

from __future__ import annotations

import math

import jax
import numpy as np

from .. import _dtypes as D
from .. import _kernels, _strides
from .. import _memory_format as MF
from .._device import CPU, resolve
from .._device import device as Device
from .._registry import REGISTRY
from ..functional import shape as S
from ..functional.creation import checked_scalar
from . import dispatch, hooks, shared, views
from .autograd import grad_mode
from .bind import bound, call
from .creation import _HOST_FILL_MAX  # bigger fills are XLA's (a memset beats a copy)
from .fast_paths import _fast_entry
from .indexing import getitem, index_put, index_put_, setitem
from .tensor import Tensor, wrap
from .transfer import to_device


def _op(name, x, **statics):
    spec = REGISTRY[name]
    return call(spec, ("input",), [x], tuple(statics.get(s) for s in spec.static))


def _binary_op(name, x, other):
    spec = REGISTRY[name]
    return call(spec, ("input", "src" if name == "_copy" else "value"), [x, other], ())


# ------------------------------------------------------------------ conversion


def _parse_to(args, kwargs):
    dev = dtype = None
    for a in args:
        if isinstance(a, D.dtype):
            if dtype is not None:
                raise TypeError(
                    "to() received an invalid combination of arguments - got two dtypes "
                    f"({dtype}, {a}); pass at most one dtype"
                )
            dtype = a
        elif isinstance(a, Tensor):
            dev, dtype = a.device, a.dtype
        elif isinstance(a, str | Device | int):
            dev = Device(a)
    dtype = kwargs.get("dtype", dtype)
    dev = kwargs.get("device", dev)
    return (Device(dev) if dev is not None else None), dtype, kwargs.get("copy", False)


def to(self, *args, **kwargs) -> Tensor:
    """Convert dtype, memory format and/or device; ``self`` itself when nothing changes."""
    dev, dtype, copy = _parse_to(args, kwargs)
    if dev is not None:
        dev = resolve(dev)  # PyTorch's errors (no CUDA, bad ordinal) before any work
        copy = copy and dev == self._device  # else the move is the copy
    out = _convert(self, dtype, copy, kwargs.get("memory_format"))
    if dev is None:
        return out
    return to_device(out, dev, non_blocking=kwargs.get("non_blocking", False))


def _convert(self, dtype, copy, fmt, name="to") -> Tensor:
    if fmt is not None and not isinstance(fmt, MF.memory_format):
        raise TypeError(f"{name}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(fmt).__name__}")
    same = (dtype is None or dtype is self.dtype) and not copy
    if fmt is not None and fmt is not MF.preserve_format:
        if same and MF.suggest_memory_format(self._shape, self.stride()) is fmt:
            return self
        out = bound("clone")(self) if same else _to_dtype(self, dtype or self.dtype)
        out._stride = MF.strides_for(out._shape, fmt)
        return out
    if same:
        return self
    return _preserve_layout(_to_dtype(self, dtype or self.dtype), self)


def _to_dtype(x, dtype):
    host = _host_convert(x, dtype)
    if host is not None:
        return host
    return _op("_to_dtype", x, dtype=dtype)


def _host_convert(x, dtype):
    """``x`` converted to ``dtype`` by NumPy while the conversion kernel for its type
    compiles on the background thread (``_kernels.while_compiling``), or None. A program's data
    preparation converts host data once per shape (``from_numpy(a).float()``, a
    checkpoint's float64 arrays), each a compile of tens of milliseconds on the first run.
    Only where NumPy converts as XLA does (``_kernels.host_converts``), for plain tensors
    nothing records, with the background thread (a single core compiles it now)."""
    if not _kernels.BACKGROUND or not _whole(x) or not _unrecorded(x):
        return None
    value = x._storage.value
    target = np.dtype(dtype.np)
    if (target == value.dtype or not _kernels.host_converts(value.dtype, target)
            or not _kernels._on_host(value) or value.weak_type):
        return None
    kernel = lambda: _fast_entry(REGISTRY["_to_dtype"], ("input",), (dtype,))[2]  # noqa: E731
    if not _kernels.while_compiling(("to", value.shape, value.dtype, target), kernel, value):
        return None
    return wrap(_kernels.device_array(np.asarray(value), target))


def _dtype_method(dtype, name):
    def method(self, memory_format=None):
        """``x.float()`` & co.: ``x.to(dtype, memory_format=...)``."""
        return _convert(self, dtype, False, memory_format, name)

    method.__name__ = name
    return method


def type_(self, dtype=None, non_blocking=False, **kwargs):
    if dtype is None:
        return f"torch.{D.legacy_name(self.dtype)}Tensor"
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1].removesuffix("Tensor")
        match = [d for d in D.ALL if D.legacy_name(d) == name and dtype.startswith("torch.")]
        if not match:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = match[0]
    elif isinstance(dtype, type) and hasattr(dtype, "_dtype"):  # torch.DoubleTensor & co.
        dtype = dtype._dtype
    return self.to(dtype)


def cpu(self, memory_format=None):
    return to_device(_convert(self, None, False, memory_format, "cpu"), CPU)


# ------------------------------------------------------------------ copies and fills


def copy_(self, src, non_blocking=False) -> Tensor:
    views.check_inplace(self)
    if isinstance(src, Tensor):
        try:
            _strides_broadcast(src._shape, self._shape)
        except ValueError as e:
            raise RuntimeError(str(e)) from None
        if _whole(self) and _whole(src) and src.dtype is self.dtype \
                and src._shape == self._shape and _unrecorded(self, src) \
                and _same_place(self._storage.value, src._storage.value):
            # JAX arrays are immutable: the copy may share src's array, no kernel needed.
            return views.commit(self, wrap(src._storage.value), inputs=(src,))
    return views.commit(self, _binary_op("_copy", self, src), inputs=(src,))


def _strides_broadcast(src, dst):
    """copy_ may broadcast ``src`` into ``dst`` but never grow ``dst``."""
    pairs = list(zip(src[::-1], dst[::-1], strict=False))
    bad = next((i for i, (s, d) in enumerate(pairs) if s not in (1, d)), None)
    if bad is None and len(src) > len(dst):
        bad = len(dst)
    if bad is not None:
        have = dst[::-1][bad] if bad < len(dst) else 1
        raise ValueError(
            f"The size of tensor a ({have}) must match the size of tensor b "
            f"({src[::-1][bad]}) at non-singleton dimension {len(dst) - 1 - bad}"
        )


def fill_(self, value) -> Tensor:
    views.check_inplace(self)
    if isinstance(value, bool | int | float | complex | np.generic):
        value = checked_scalar(value, self.dtype)  # PyTorch's overflow errors
        host = _host_fill(self, value)
        if host is not None:
            return views.commit(self, host, internal_overlap=False)
    # fill_ and zero_ write one value everywhere, so PyTorch lets them write expanded tensors.
    return views.commit(self, _binary_op("_fill", self, value), internal_overlap=False)


def zero_(self) -> Tensor:
    views.check_inplace(self)
    host = _host_fill(self, False, "_zero")
    if host is not None:
        return views.commit(self, host, internal_overlap=False)
    return views.commit(self, _op("_zero", self), internal_overlap=False)


# In-place fills and copies of whole plain tensors without a kernel. XLA compiles a fill or
# copy program per shape and dtype (10-70 ms each the first time, and a warm start still
# traces and loads each), and building a model or loading a checkpoint makes many:
# BatchNorm's running statistics, ``nn.init.zeros_``/``ones_``, ``load_state_dict``'s
# ``param.copy_(saved)`` once per parameter shape. On the CPU backend NumPy builds a fill
# (as ``creation._host_fill`` does for ``zeros``/``full``); a copy of a tensor of the same
# shape and dtype shares its (immutable) array.
_EXACT_FLOATS = ("float32", "float64")  # NumPy and XLA round a Python number alike


def _whole(t) -> bool:
    """A plain tensor owning its storage's whole array (no view, no lazy conj/neg)."""
    return (t._base is None and not t._chain and not t.is_sparse
            and t._storage.value.shape == t._shape)


def _unrecorded(*ts) -> bool:
    """Nothing records the write: no compile trace, no operand needing a gradient."""
    if hooks.RECORDER is not None:
        return False
    return not grad_mode._state.enabled or not any(t.requires_grad for t in ts)


def _same_place(a, b) -> bool:
    if isinstance(a, jax.core.Tracer) or isinstance(b, jax.core.Tracer):
        return False
    if a.committed or b.committed:
        return a.committed and b.committed and a.sharding == b.sharding
    return True


def _host_fill(t, value, op="_fill"):
    """``t`` filled with ``value`` (a Python number ``checked_scalar`` converted to its
    dtype) by ``op`` (``_fill``, ``_zero``), built by NumPy while the kernel for its type is
    not compiled (``_kernels.while_compiling``), or None where XLA builds it: other backends,
    traces, views, recorded writes, big tensors, complex dtypes, and a half type given a
    number it cannot hold exactly (NumPy and XLA could round it differently)."""
    kind = type(value)
    if kind is not bool and kind is not int and kind is not float:
        return None
    key = (op, t._shape, t.dtype, kind)
    if _kernels._READY.get(key) is True:  # its kernel serves now: skip the checks
        return None
    if not _whole(t) or not _unrecorded(t) or not _kernels._on_host(t._storage.value):
        return None
    dtype = t.dtype
    if math.prod(t._shape) > _HOST_FILL_MAX or dtype.is_complex:
        return None
    np_dtype = np.dtype(dtype.np)
    if dtype.is_floating_point and dtype.name not in _EXACT_FLOATS and kind is not bool \
            and float(np.asarray(value, np_dtype)) != value:
        return None
    x = t._storage.value
    if op == "_zero":
        kernel = lambda: _fast_entry(REGISTRY["_zero"], ("input",))[2]  # noqa: E731
        if not _kernels.while_compiling(key, kernel, x):
            return None
    else:
        kernel = lambda: _fast_entry(REGISTRY["_fill"], ("input", "value"))[2]  # noqa: E731
        if not _kernels.while_compiling(key, kernel, x, value):
            return None
    return wrap(_kernels.device_array(np.full(t._shape, value, np_dtype)))


def clone(self, *, memory_format=None) -> Tensor:
    """A copy in a fresh storage; preserve_format keeps the memory order of the strides."""
    out = bound("clone")(self)
    if memory_format is not None and memory_format is not MF.preserve_format:
        out._stride = MF.strides_for(self._shape, memory_format)
        return out
    return _preserve_layout(out, self)


def _preserve_layout(out, src) -> Tensor:
    """Give the fresh ``out`` preserve_format's strides: ``src``'s, made dense."""
    if src._stride is None:
        return out
    if _strides.is_non_overlapping_and_dense(src._shape, src._stride):
        out._stride = src._stride
    else:
        out._stride = _strides.infer_dense_strides(src._shape, src._stride)
    return out


def contiguous(self, memory_format=None) -> Tensor:
    if memory_format is not None and memory_format is not MF.contiguous_format:
        if self.is_contiguous(memory_format=memory_format):
            return self
        if memory_format is MF.preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        out = bound("clone")(self)
        out._stride = MF.strides_for(self._shape, memory_format)
        return out
    if self.is_contiguous():
        return self
    out = bound("clone")(self)
    out._stride = None
    return out


# ------------------------------------------------------------------ shape


_RESHAPES: dict = {}  # (shape, strides, requested sizes) -> (sizes, whether a view does)


def reshape(self, *shape) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], list | tuple):
        shape = shape[0]
    # The sizes and the view-or-copy decision depend only on the shape and strides, so
    # they are remembered, for all-int requests only: 2.0 and True hash as 2 and 1 do.
    ints = all(type(s) is int for s in shape)
    key = (self._shape, self._stride, tuple(shape))
    plan = _RESHAPES.get(key) if ints else None
    if plan is None:
        size = _strides.infer_size(shape, self.numel())
        plan = (size, _strides.view_strides(self._shape, self.stride(), size) is not None)
        if ints:
            if len(_RESHAPES) >= 4096:
                _RESHAPES.clear()
            _RESHAPES[key] = plan
    size, viewable = plan
    if viewable:
        return self.view(size)
    # A copy that is no view of anything, as PyTorch's _unsafe_view(clone(...)).
    return dispatch.apply(("reshape_copy", size), lambda v: S.reshape(v, size), [self],
                          "UnsafeViewBackward0", saves="none")


def flatten(self, start_dim=0, end_dim=-1) -> Tensor:
    if self.dim() == 0:
        return self.reshape(1)
    s = _strides.wrap_dim(start_dim, self.dim())
    e = _strides.wrap_dim(end_dim, self.dim())
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    shape = self._shape[:s] + (math.prod(self._shape[s : e + 1]),) + self._shape[e + 1 :]
    return self.reshape(shape)


def unflatten(self, dim, sizes) -> Tensor:
    d = _strides.wrap_dim(dim, self.dim())
    sizes = _strides.infer_size(sizes, self._shape[d])
    return self.view(self._shape[:d] + tuple(sizes) + self._shape[d + 1 :])


def movedim(self, source, destination) -> Tensor:
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    n = self.dim()
    src = tuple(_strides.wrap_dim(s, n) for s in src)
    dst = tuple(_strides.wrap_dim(d, n) for d in dst)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
            f"contain the same number of dims as destination ({list(destination)} dims)"
        )
    rest = iter(d for d in range(n) if d not in src)
    order = [None] * n
    for s, d in zip(src, dst, strict=False):
        order[d] = s
    perm = [o if o is not None else next(rest) for o in order]
    return self.permute(perm)


def _parts(self, d, bounds, name):
    """Views of ``self`` along ``d`` between consecutive ``bounds``, each clamped as a slice
    is (so a bound before its predecessor gives an empty part), named as PyTorch's."""
    size, parts = self._shape[d], []
    for a, b in zip(bounds, bounds[1:], strict=False):
        a = min(max(a + size if a < 0 else a, 0), size)
        b = max(min(max(b + size if b < 0 else b, 0), size), a)
        parts.append({"dim": d, "start": a, "length": b - a})
    return views.make_views(self, S.narrow, _strides.g_narrow, parts, name)


def unbind(self, dim=0):
    if self.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _strides.wrap_dim(dim, self.dim())
    return views.make_views(self, S.select, _strides.g_select,
                            [{"dim": d, "index": i} for i in range(self._shape[d])],
                            "UnbindBackward0")


def split(self, split_size_or_sections, dim=0):
    d = _strides.wrap_dim(dim, self.dim())
    size = self._shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0 and size:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {size}")
        sections = [min(step, size - i) for i in range(0, size, step)] if size else [0]
    else:
        sections = list(split_size_or_sections)
        if sum(sections) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sections}"
            )
    bounds = [0]
    for n in sections:
        bounds.append(bounds[-1] + n)
    return _parts(self, d, bounds, "SplitBackward0" if isinstance(split_size_or_sections, int)
                  else "SplitWithSizesBackward0")


def tensor_split(self, indices_or_sections, dim=0):
    """Views split at the given indices, or into n parts whose sizes differ by at most one."""
    d = _strides.wrap_dim(dim, self.dim())
    size = self._shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = (int(indices_or_sections) if indices_or_sections.dim() == 0
                               else indices_or_sections.tolist())
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(size, n)
        bounds = [i * small + min(i, extra) for i in range(n + 1)]
    else:
        bounds = [0, *indices_or_sections, size]
    return _parts(self, d, bounds, "SliceBackward0")


def chunk(self, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = _strides.wrap_dim(dim, self.dim())
    step = -(-self._shape[d] // chunks) if self._shape[d] else 1
    return split(self, max(step, 1), d)


def as_strided(self, size, stride, storage_offset=None) -> Tensor:
    return views.as_strided(self, size, stride, storage_offset)


def view_as(self, other) -> Tensor:
    return self.view(other._shape)


def expand_as(self, other) -> Tensor:
    return self.expand(other._shape)


def _T(self) -> Tensor:
    if self.dim() != 2:
        import warnings

        warnings.warn(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
            "cases." if self.dim() == 0 else
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.", UserWarning, stacklevel=2,
        )
    return self.permute(tuple(range(self.dim() - 1, -1, -1)))


def _mT(self) -> Tensor:
    if self.dim() < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return self.transpose(-2, -1)


def where(self, condition, y) -> Tensor:
    """``x.where(cond, y)`` is ``torch.where(cond, x, y)``."""
    return bound("where")(condition, self, y)


def __invert__(self) -> Tensor:
    """``~x``: bitwise not, which PyTorch refuses with TypeError for float tensors."""
    if self.dtype._kind >= 2:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bound("bitwise_not")(self)


def __contains__(self, element) -> bool:
    """``element in x``: any element equal to ``element`` (a tensor or a Python number)."""
    if not isinstance(element, Tensor | bool | int | float | complex):
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")
    return bool(bound("eq")(self, element).any())


def __reversed__(self) -> Tensor:
    """``reversed(x)``: ``x`` flipped along dim 0 (a 0-dim tensor is returned as is)."""
    return self if self.dim() == 0 else self.flip(0)


def attach() -> None:
    """Install the hand-written methods on Tensor."""
    for name, fn in dict(
        to=to, cpu=cpu, type=type_, copy_=copy_, fill_=fill_, zero_=zero_, clone=clone,
        contiguous=contiguous, reshape=reshape, flatten=flatten, unflatten=unflatten,
        movedim=movedim, moveaxis=movedim, unbind=unbind, split=split, chunk=chunk,
        tensor_split=tensor_split,
        as_strided=as_strided, view_as=view_as, expand_as=expand_as,
        index_put_=index_put_, index_put=index_put,
        __getitem__=getitem, __setitem__=setitem, where=where, __invert__=__invert__,
        __contains__=__contains__, __reversed__=__reversed__,
        share_memory_=shared.share_memory_, is_shared=shared.is_shared,
    ).items():
        setattr(Tensor, name, fn)
    Tensor.T = property(_T)
    Tensor.mT = property(_mT)
    for name, dtype in (("float", D.float32), ("double", D.float64), ("half", D.float16),
                        ("bfloat16", D.bfloat16), ("long", D.int64), ("int", D.int32),
                        ("short", D.int16), ("char", D.int8), ("byte", D.uint8),
                        ("bool", D.bool), ("cfloat", D.complex64), ("cdouble", D.complex128)):
        setattr(Tensor, name, _dtype_method(dtype, name))
