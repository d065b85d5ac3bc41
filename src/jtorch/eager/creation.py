"""Tensors from Python data, and the factory bindings (plain, ``*_like``, ``new_*``, random).

``tensor`` follows torch's ``internal_new_from_data``: the shape comes from the first
element at each level, the dtype from promoting every element, and then each element is
stored with torch's checked conversion (so ragged data and overflow raise as in torch).

Differences from PyTorch: ``from_numpy`` and ``as_tensor`` on an ndarray copy the data
(JAX arrays are immutable, so writes cannot be shared with NumPy; strides are kept when
the array is dense); ``empty`` is zeros.
"""

from __future__ import annotations

import collections.abc
import math
import numbers
import operator
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from .. import _memory_format as MF
from .. import _registry, _strides
from .._device import default_device, jax_device, resolve
from .._device import device as Device
from .._kernels import device_array, host_fills
from ..functional import creation as FC
from ..functional import random as FR
from ..functional.creation import _size, checked_scalar
from . import hooks, random_ops
from .tensor import Size, Tensor, retyped, wrap

_MAX_DIMS = 64
_PY_NUMBERS = {bool, int, float, complex}
# Element types stored in bulk per target kind (bool, int, float, complex); others go
# through _leaf one by one.
_PLAIN = ({bool, int, float}, {bool, int}, {bool, int, float}, {bool, int, float, complex})
_COPY_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor)."
)


def _is_seq(x) -> bool:
    """What torch's ``PySequence_Check`` accepts as a nesting level (not tensors, not dicts)."""
    if isinstance(x, Tensor | collections.abc.Mapping):
        return False
    return isinstance(x, collections.abc.Sequence | np.ndarray) or (
        hasattr(type(x), "__getitem__") and hasattr(type(x), "__len__")
    )


def _sizes(data) -> list[int]:
    """The shape, read from the first element at each level (torch's ``compute_sizes``)."""
    sizes = []
    while _is_seq(data):
        sizes.append(len(data))
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(data).__name__}'")
        if not sizes[-1]:
            break
        data = data[0]
    return sizes


def _infer_dtype(obj) -> D.dtype:
    """torch's ``infer_scalar_type``: the promotion of every element's type."""
    if isinstance(obj, np.ndarray | np.generic):
        return D.from_numpy_dtype(obj.dtype)
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, numbers.Number) and isinstance(obj, bool | int | float | complex):
        return D._scalar_dtype(obj)
    if isinstance(obj, str | bytes):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if not _is_seq(obj):
        raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")
    out, plain = None, set()
    for item in obj:
        if type(item) in _PY_NUMBERS:  # the common case, gathered by type to stay fast
            plain.add(type(item))
            continue
        if item is obj:
            raise TypeError("new(): self-referential lists are incompatible")
        d = _infer_dtype(item)
        out = d if out is None else D.promote_types(out, d)
        if out is D.complex128:
            return out
    for t in plain:
        d = D._scalar_dtype(t())
        out = d if out is None else D.promote_types(out, d)
    return out or D.get_default_dtype()


def _leaf(x, dtype: D.dtype):
    """One element stored into ``dtype`` (torch's ``store_scalar``)."""
    if isinstance(x, np.generic | np.ndarray) and x.size == 1:
        x = x.item()
    kind = dtype._kind
    if kind == 1:
        if not isinstance(x, float):
            x = operator.index(x)  # TypeError for lists, complex and float tensors, as torch
            if not -(2**63) <= x < 2**63:
                raise ValueError("Overflow when unpacking long long")
        return checked_scalar(x, dtype)
    if isinstance(x, Tensor) and x.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    convert = {0: bool, 2: float, 3: complex}[kind]
    if not (hasattr(type(x), "__float__") or hasattr(type(x), "__index__") or (
        kind != 2 and hasattr(type(x), "__complex__")
    )):
        raise TypeError(f"must be real number, not {type(x).__name__}")
    return convert(x)


def _store(obj, sizes, dim, dtype, out: list) -> None:
    """Flatten ``obj`` into ``out``, checking every level's length (``recursive_store``)."""
    if dim == len(sizes):
        out.append(_leaf(obj, dtype))
        return
    try:
        seq = list(obj)
    except TypeError:
        raise TypeError("not a sequence") from None
    if len(seq) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                         f"(got {len(seq)})")
    if dim == len(sizes) - 1 and set(map(type, seq)) <= _PLAIN[dtype._kind]:
        out.extend(seq)  # plain Python numbers: converted (and checked) by _host_array
        return
    for item in seq:
        _store(item, sizes, dim + 1, dtype, out)


def _host_array(flat: list, sizes, dtype: D.dtype) -> np.ndarray:
    """The stored elements as a NumPy array of ``dtype`` (integers range-checked as torch)."""
    if dtype._kind == 1:
        try:
            values = np.array(flat, dtype=np.int64)
        except OverflowError:
            values = np.array([_leaf(x, dtype) for x in flat], dtype=np.int64)
        info = np.iinfo(dtype.np)
        bad = (values < (-info.max if info.min == 0 else info.min)) | (values > info.max)
        if bad.any():
            checked_scalar(int(values[bad.argmax()]), dtype)  # raises torch's error
        return values.reshape(sizes).astype(dtype.np)
    host = {0: np.bool_, 2: np.float64, 3: np.complex128}[dtype._kind]
    with np.errstate(over="ignore"):  # torch lets floats overflow to inf
        return np.array(flat, dtype=host).reshape(sizes).astype(dtype.np)


def _from_ndarray(arr: np.ndarray, dtype: D.dtype | None = None) -> Tensor:
    """A tensor holding a copy of ``arr``; its strides survive when they are dense."""
    if not arr.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    src = D.from_numpy_dtype(arr.dtype)
    if any(s < 0 for s in arr.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around "
            "this by making a copy of your array  with array.copy().) "
        )
    # A copy: a device array may alias the ndarray's memory on CPU, and NumPy can mutate it.
    t = wrap(device_array(np.array(arr, copy=True), (dtype or src).np))
    stride = tuple(s // arr.itemsize for s in arr.strides)
    if arr.ndim > 1 and _strides.is_non_overlapping_and_dense(arr.shape, stride):
        if stride != _strides.contiguous_strides(arr.shape):
            t._stride = stride
    return t


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """Copy ``data`` (nested sequences, scalars, ndarrays, tensors) into a new leaf tensor."""
    dtype = D.to_dtype(dtype) if dtype is not None else None
    device = _target(device)
    if isinstance(data, Tensor):
        warnings.warn(_COPY_WARNING.format("torch.tensor"), UserWarning, stacklevel=2)
        value = data._value if dtype is None else data._value.astype(dtype.np)
        return _finish(wrap(jnp.array(value)), requires_grad, device)
    if isinstance(data, np.ndarray | np.generic | jax.Array):
        return _finish(_from_ndarray(np.asarray(data), dtype), requires_grad, device)
    if isinstance(data, str | bytes):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    sizes = _sizes(data)
    if dtype is None:
        dtype = _infer_dtype(data)
    flat: list = []
    _store(data, sizes, 0, dtype, flat)
    values = _host_array(flat, sizes, dtype)
    return _finish(wrap(device_array(values)), requires_grad, device)


def _target(device) -> Device | None:
    """Check a ``device=`` argument before any work (as torch); None for the CPU. Without
    one: the default device (``torch.set_default_device`` / ``with torch.device(...)``)."""
    if device is None:
        return default_device()
    dev = resolve(Device(device))  # 'cuda' is the current CUDA device
    return None if dev.type == "cpu" else dev


def _finish(t: Tensor, requires_grad: bool, device: Device | None = None) -> Tensor:
    if device is not None:
        t._storage.value = jax.device_put(t._storage.value, jax_device(device))
        t._device = device
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """The same tensor when no conversion is needed; otherwise a converted copy."""
    dtype = D.to_dtype(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype)
    if isinstance(data, np.ndarray):
        return _finish(_from_ndarray(data, dtype), False, _target(device))
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor with the array's dtype, shape and (dense) strides.

    Differences from PyTorch: PyTorch's tensor shares the array's memory, so writes through
    either are seen by the other. JAX arrays are immutable, so this is a copy: later writes
    to the ndarray do not reach the tensor, nor in-place ops on the tensor the ndarray.
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__module__}."
                        f"{type(ndarray).__name__})")
    return _from_ndarray(ndarray)


def _is_int(x) -> bool:
    if isinstance(x, Tensor):
        return x.dim() == 0 and x.dtype._kind == 1
    return isinstance(x, numbers.Integral) and not isinstance(x, bool | np.bool_)


def legacy_new(cls, *args, **kwargs):
    """``torch.Tensor(2, 3)`` (uninitialised) and ``torch.Tensor([1, 2])`` (default dtype)."""
    return _legacy(cls, args, kwargs, None)


def _legacy(cls, args, kwargs, dtype):
    """The legacy constructors; ``dtype`` is set for the typed ``torch.FloatTensor`` family."""
    name = "new" if dtype is None else f"{D.legacy_name(dtype)}Tensor"
    dev = kwargs.pop("device", None)
    if dev is not None and Device(dev).type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{Device(dev).type} was passed")
    if kwargs:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"keywords {list(kwargs)}")
    make = dtype or D.get_default_dtype()
    if not args:
        t = zeros(0, dtype=make)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        if dtype is not None and args[0].dtype is not dtype:
            raise TypeError(f"expected {dtype} (got {args[0].dtype})")
        t = args[0].detach()
    elif len(args) == 1 and isinstance(args[0], Size):
        t = zeros(tuple(args[0]), dtype=make)
    elif all(_is_int(a) for a in args):
        t = zeros(tuple(operator.index(a) for a in args), dtype=make)
    elif len(args) == 1 and _is_seq(args[0]):
        t = tensor(args[0], dtype=make)
    elif len(args) == 1:
        raise TypeError(f"{name}(): data must be a sequence (got {type(args[0]).__name__})")
    else:
        bad = next(a for a in args if not _is_int(a))
        raise TypeError(f"{name}(): argument 'size' must be tuple of ints, but got "
                        f"{type(bad).__name__}")
    if cls is not Tensor:
        t = retyped(t, cls)
    return t


def _typed_legacy(dtype):
    class _Legacy(type):
        _dtype = dtype

        def __instancecheck__(cls, obj):
            return isinstance(obj, Tensor) and obj.dtype is dtype

        def __call__(cls, *args, **kwargs):
            return _legacy(Tensor, args, kwargs, dtype)

    return _Legacy


LEGACY_TYPES = {
    f"{D.legacy_name(d)}Tensor": _typed_legacy(d)(f"{D.legacy_name(d)}Tensor", (), {})
    for d in (D.float32, D.float64, D.float16, D.bfloat16, D.int64, D.int32, D.int16, D.int8,
              D.uint8, D.bool)
}


# ------------------------------------------------------------------ factory bindings


def _size_args(name: str, size) -> tuple[int, ...]:
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` or ``f(torch.Size([2, 3]))``."""
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], list | tuple):
        size = size[0]
    elif any(isinstance(s, list | tuple) for s in size):
        raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
    return _size(size)  # validated here: 3.0 == 3 would otherwise share a cached kernel


def _scalar_arg(x):
    """0-dim tensors and NumPy scalars passed where torch takes a ``Number``."""
    if isinstance(x, Tensor):
        if x.dim() != 0:
            raise TypeError(f"argument must be Number, not Tensor of {x.dim()} dims")
        return x.item()
    if isinstance(x, np.ndarray):
        raise TypeError("argument must be Number, not numpy.ndarray")
    return D.numpy_scalar(x) if isinstance(x, np.generic) else x


def _emit(name: str, value, out, requires_grad: bool, device) -> Tensor:
    """A new tensor holding ``value``, or ``value`` written into ``out=`` (resized if needed)."""
    if out is None:
        return _place(value, requires_grad, device=device)
    from . import views
    from .autograd import grad_mode

    if grad_mode._state.enabled and out.requires_grad:
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if out._shape != value.shape:
        views.resize_(out, value.shape)
    views.write(out, value.astype(out.dtype.np))
    return out


def _place(value, requires_grad, like=None, device=None) -> Tensor:
    t = wrap(value)
    if like is not None and like._stride is not None and like.dim() > 1:
        st = like._stride
        if not _strides.is_non_overlapping_and_dense(like._shape, st):
            st = _strides.infer_dense_strides(like._shape, st)  # preserve_format's rule
        if st != _strides.contiguous_strides(like._shape):
            t._stride = st
    return _finish(t, requires_grad, device)


_HOST_FILLS = {"zeros": 0, "ones": 1, "empty": 0, "full": None}
_HOST_FILL_MAX = 1 << 22  # elements: bigger fills are XLA's (a memset beats a copy)


def _host_fill(name: str, size, args: tuple, kwargs: dict, dtype):
    """The value of ``zeros``/``ones``/``empty``/``full`` (and their ``_like``/``new_``
    forms) built by NumPy and transferred, or None to have XLA build it.

    XLA compiles a fill program for every shape and dtype, tens of milliseconds each the
    first time, and a model's first step makes many (optimizer state and buffers, one per
    parameter shape); on the CPU backend a host fill costs a memset and a copy. Not for
    other backends (the copy would cross to the device every call), nor while
    torch.compile records or JAX traces (the fill would be a constant in the program)."""
    if hooks.RECORDER is not None or not host_fills():
        return None
    if name == "full":
        fill = args[0] if args else kwargs.get("fill_value")
        if len(args) > 1 or kwargs.keys() - {"fill_value"} or not isinstance(
                fill, numbers.Number):
            return None
        fill, dtype = FC.full_fill(fill, dtype)
    elif args or kwargs:
        return None
    else:
        fill, dtype = _HOST_FILLS[name], dtype or D.get_default_dtype()
    shape = FC._size(size)
    if not all(type(n) is int for n in shape) or math.prod(shape) > _HOST_FILL_MAX:
        return None
    return device_array(np.full(shape, fill, dtype.np))


def _host_eye(args, kwargs, dtype):
    """``torch.eye`` built by NumPy where ``_host_fill`` would build a fill, or None:
    ``jnp.eye`` outside a kernel runs as six primitives, each compiled per shape."""
    if hooks.RECORDER is not None or not host_fills() or kwargs.keys() - {"n", "m"}:
        return None
    try:
        n, m = FC.eye_size(*args, **kwargs)
    except (TypeError, RuntimeError):  # the kernel path raises PyTorch's error
        return None
    if n * m > _HOST_FILL_MAX:
        return None
    return device_array(np.eye(n, m, dtype=(dtype or D.get_default_dtype()).np))


def _factory(spec):
    def factory(*args, out=None, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=False, memory_format=None, **kwargs):
        dtype = D.to_dtype(dtype) if dtype is not None else out.dtype if out is not None else None
        sparse = MF.sparse_requested(spec.name, layout, out)
        device = _target(device)
        if memory_format is not None and spec.name != "empty":
            raise TypeError(f"{spec.name}() got an unexpected keyword argument 'memory_format'")
        if spec.varargs:
            if spec.varargs in kwargs:
                args = (*args, kwargs.pop(spec.varargs))
            args = (_size_args(spec.name, args),)
            if sparse:
                return SPARSE_ZEROS[0](args[0], dtype, device, requires_grad)
        elif spec.name == "full":
            args = (_size_args(spec.name, args[:1]), *map(_scalar_arg, args[1:]))
            kwargs = {k: _scalar_arg(v) for k, v in kwargs.items()}
        else:
            args = tuple(map(_scalar_arg, args))
            kwargs = {k: _scalar_arg(v) for k, v in kwargs.items()}
        value = None
        if spec.name in _HOST_FILLS and device is None:
            value = _host_fill(spec.name, args[0], args[1:], kwargs, dtype)
        elif spec.name == "eye" and device is None:
            value = _host_eye(args, kwargs, dtype)
        if value is None:
            value = spec.fn(*args, dtype=dtype, **kwargs)
        t = _emit(spec.name, value, out, requires_grad, device)
        if memory_format is not None and out is None:
            t._stride = MF.strides_for(t._shape, memory_format)
        return t

    factory.__name__ = spec.name
    return factory


def _like(name, base):
    def like(input, *args, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None, generator=None, **kwargs):
        dtype = D.to_dtype(dtype) if dtype is not None else input.dtype
        if MF.sparse_requested(name, layout):
            return SPARSE_ZEROS[0](input._shape, dtype, device or input.device, requires_grad)
        device = _target(device if device is not None else input.device)
        if name in ("rand_like", "randn_like"):
            value = random_ops.draw(base, _registry.REGISTRY[base].fn, generator,
                                    (input._shape,), {"dtype": dtype})
        elif name == "randint_like":
            low, high = (0, args[0]) if len(args) == 1 else args if args else (0, None)
            low, high = kwargs.pop("low", low), kwargs.pop("high", high)
            FR.check_randint(low, high, dtype)
            value = random_ops.draw(base, FR.randint, generator, (input._shape,),
                                    {"dtype": dtype}, (int(low), int(high)))
        else:
            args = tuple(map(_scalar_arg, args))
            value = None
            if base in _HOST_FILLS and device is None:
                value = _host_fill(base, input._shape, args, kwargs, dtype)
            if value is None:
                value = _registry.REGISTRY[base].fn(input._shape, *args, dtype=dtype, **kwargs)
        if memory_format is not None and memory_format is not MF.preserve_format:
            t = _place(value, requires_grad, device=device)
            t._stride = MF.strides_for(t._shape, memory_format)
            return t
        return _place(value, requires_grad, like=input, device=device)

    like.__name__ = name
    return like


def _new(base):
    def new(self, *args, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False, **kwargs):
        dtype = D.to_dtype(dtype) if dtype is not None else self.dtype
        device = device if device is not None else self.device
        if MF.sparse_requested(f"new_{base}", layout):
            size = _size_args(f"new_{base}", args or (kwargs["size"],))
            return SPARSE_ZEROS[0](size, dtype, device, requires_grad)
        if base == "tensor":
            if isinstance(args[0], Tensor):
                warnings.warn(_COPY_WARNING.format("tensor.new_tensor"), UserWarning,
                              stacklevel=2)
            return tensor(args[0], dtype=dtype, device=device, requires_grad=requires_grad)
        device = _target(device)
        if "size" in kwargs:
            args = (kwargs.pop("size"), *args)
        if base == "full":
            size, args = _size_args(f"new_{base}", args[:1]), tuple(map(_scalar_arg, args[1:]))
        else:
            size, args = _size_args(f"new_{base}", args), ()
        value = None
        if base in _HOST_FILLS and device is None:
            value = _host_fill(base, size, args, kwargs, dtype)
        if value is None:
            value = _registry.REGISTRY[base].fn(size, *args, dtype=dtype, **kwargs)
        return _place(value, requires_grad, device=device)

    new.__name__ = f"new_{base}"
    return new


# Set by jtorch.sparse: (size, dtype, device, requires_grad) -> an empty sparse COO tensor.
SPARSE_ZEROS: list = [None]


def zeros(*size, **kw):
    return _BOUND["zeros"](*size, **kw)


_BOUND: dict = {}


def bind_factories(namespace: dict) -> None:
    for spec in _registry.REGISTRY.values():
        if spec.kind == "factory":
            _BOUND[spec.name] = namespace[spec.name] = _factory(spec)
    def emit(name, value, out, requires_grad, device):
        return _emit(name, value, out, requires_grad, _target(device))

    _BOUND.update(random_ops.bind(namespace, emit, _size_args))
    for base in ("zeros", "ones", "empty", "full", "rand", "randn", "randint"):
        namespace[f"{base}_like"] = _like(f"{base}_like", base)
    for base in ("zeros", "ones", "empty", "full", "tensor"):
        setattr(Tensor, f"new_{base}", _new(base))
    namespace.update(tensor=tensor, as_tensor=as_tensor, from_numpy=from_numpy, **LEGACY_TYPES)
