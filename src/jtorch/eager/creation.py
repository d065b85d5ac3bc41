"""Tensors from Python data, and the factory bindings (plain, ``*_like``, ``new_*``, random).

Differences from PyTorch: ``from_numpy`` and ``as_tensor`` on an ndarray copy the data
(JAX arrays are immutable, so writes cannot be shared with NumPy); ``empty`` is zeros.
"""

from __future__ import annotations

import numbers

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtypes as D
from .. import _registry, _strides
from . import dispatch
from .random import default_generator
from .tensor import Size, Tensor, wrap


def _infer_dtype(data) -> D.dtype:
    """torch's dtype for nested Python data: the highest category present."""
    best = None
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, Tensor):
            d = x.dtype
        elif isinstance(x, np.ndarray | np.generic):
            d = D.from_numpy_dtype(x.dtype)
        elif isinstance(x, list | tuple):
            stack.extend(x)
            continue
        elif isinstance(x, numbers.Number):
            d = D._scalar_dtype(x if not isinstance(x, numbers.Integral | bool) else
                                (bool(x) if isinstance(x, bool) else int(x)))
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")
        best = d if best is None else (d if d._kind > best._kind else best)
    return best or D.get_default_dtype()


def _to_numpy(data, dtype: D.dtype):
    if isinstance(data, Tensor):
        return np.asarray(data._value)
    if isinstance(data, list | tuple):
        return np.array([_to_numpy(x, dtype) if isinstance(x, Tensor | list | tuple | np.ndarray)
                         else x for x in data], dtype=object)
    return data


def _nested(data, dim=0):
    """Validate nesting (PyTorch's ValueErrors) and return a plain nested list."""
    if isinstance(data, Tensor):
        if data.numel() != 1 and dim > 0:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data.tolist() if dim == 0 else data.item()
    if isinstance(data, np.ndarray):
        return data.tolist()
    if isinstance(data, list | tuple):
        items = [_nested(x, dim + 1) for x in data]
        lens = {len(x) if isinstance(x, list) else -1 for x in items}
        if len(lens) > 1:
            first = len(items[0]) if isinstance(items[0], list) else -1
            bad = next(x for x in items if (len(x) if isinstance(x, list) else -1) != first)
            raise ValueError(
                f"expected sequence of length {first} at dim {dim + 1} "
                f"(got {len(bad) if isinstance(bad, list) else 0})"
            )
        return items
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """Copy ``data`` (nested sequences, scalars, ndarrays, tensors) into a new leaf tensor."""
    dtype = D.to_dtype(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        value = data._value if dtype is None else jnp.asarray(data._value).astype(dtype.np)
        return _finish(wrap(jnp.array(value)), requires_grad)
    if isinstance(data, np.ndarray | np.generic) and data.dtype != object:
        src_dtype = D.from_numpy_dtype(data.dtype)
        return _finish(wrap(jnp.asarray(np.asarray(data), (dtype or src_dtype).np)), requires_grad)
    if dtype is None:
        dtype = _infer_dtype(data)
    values = np.array(_nested(data), dtype=dtype.np if dtype.name != "bfloat16" else np.float64)
    if dtype._kind < 2 and values.dtype.kind == "f":
        values = np.trunc(values)
    return _finish(wrap(jnp.asarray(values, dtype.np)), requires_grad)


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """The same tensor when no conversion is needed; otherwise a converted copy."""
    if isinstance(data, Tensor):
        if dtype is None or D.to_dtype(dtype) is data.dtype:
            return data
        return data.to(D.to_dtype(dtype))
    return tensor(data, dtype=dtype)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_numpy_dtype(ndarray.dtype)
    return tensor(ndarray)


def legacy_new(cls, *args, **kwargs):
    """``torch.Tensor(2, 3)`` (uninitialised float) and ``torch.Tensor([1, 2])`` (float data)."""
    device = kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments: {list(kwargs)}")
    if not args:
        t = zeros(0)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        t = args[0].detach()
    elif all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        t = zeros(*args)
    elif len(args) == 1 and isinstance(args[0], Size):
        t = zeros(args[0])
    elif len(args) == 1:
        t = tensor(args[0], dtype=D.get_default_dtype())
    else:
        raise TypeError(f"new() received an invalid combination of arguments: {args}")
    if cls is not Tensor:
        t.__class__ = cls
    return t


def _typed_legacy(dtype):
    class _Legacy(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, Tensor) and obj.dtype is dtype

        def __call__(cls, *args):
            t = legacy_new(Tensor, *args)
            return t if t.dtype is dtype else t.to(dtype)

    return _Legacy


LEGACY_TYPES = {
    name: _typed_legacy(d)(name, (), {})
    for name, d in (("FloatTensor", D.float32), ("DoubleTensor", D.float64),
                    ("HalfTensor", D.float16), ("BFloat16Tensor", D.bfloat16),
                    ("LongTensor", D.int64), ("IntTensor", D.int32), ("ShortTensor", D.int16),
                    ("CharTensor", D.int8), ("ByteTensor", D.uint8), ("BoolTensor", D.bool))
}


# ------------------------------------------------------------------ factory bindings


def _size_args(size):
    if len(size) == 1 and isinstance(size[0], list | tuple):
        size = size[0]
    return tuple(int(s) for s in size)


def _place(value, requires_grad, like=None) -> Tensor:
    t = wrap(value)
    if like is not None and like._stride is not None and _strides.is_non_overlapping_and_dense(
        like._shape, like._stride
    ):
        t._stride = like._stride  # memory_format=preserve_format keeps dense strides
    return _finish(t, requires_grad)


def _factory(spec):
    def factory(*args, out=None, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=False, memory_format=None, **kwargs):
        dtype = D.to_dtype(dtype) if dtype is not None else None
        if spec.varargs:
            if spec.varargs in kwargs:
                args = (kwargs.pop(spec.varargs),)
            args = (_size_args(args),)
        value = spec.fn(*args, dtype=dtype, **kwargs)
        if out is not None:
            from . import views

            views.resize_(out, value.shape)
            views.write(out, value.astype(out.dtype.np))
            return out
        return _place(value, requires_grad)

    factory.__name__ = spec.name
    return factory


def _random(spec):
    def sample(*args, generator=None, out=None, dtype=None, layout=None, device=None,
               requires_grad=False, pin_memory=False, **kwargs):
        dtype = D.to_dtype(dtype) if dtype is not None else None
        if spec.varargs:
            if spec.varargs in kwargs:
                args = (kwargs.pop(spec.varargs),)
            args = (_size_args(args),)
        elif spec.name == "randint" and len(args) == 2:
            args = (0, *args)
        if spec.name == "randint":
            args = (*args[:2], _size_args((args[2],)))
        value = _draw(spec, generator, args, dict(kwargs, dtype=dtype))
        return _place(value, requires_grad)

    sample.__name__ = spec.name
    return sample


def _draw(spec, generator, args, kwargs):
    key, counter = (generator or default_generator).next()
    statics = tuple(sorted(kwargs.items()))
    fn = spec.fn
    kernel = dispatch._fwd_kernel(
        ("random", spec.name, args, statics),
        lambda k, c: fn(jax.random.fold_in(k, c), *args, **kwargs),
    )
    return kernel(key, counter)


def _random_inplace(spec):
    def method(self, *args, generator=None):
        from . import views

        key, counter = (generator or default_generator).next()
        if self.dtype._kind < 2:
            raise RuntimeError(
                f'"{spec.name[:-1]}_kernel_cpu" not implemented for \'{D.legacy_name(self.dtype)}\''
            )
        fn = spec.fn
        kernel = dispatch._fwd_kernel(
            ("random_", spec.name), lambda k, c, x, *a: fn(jax.random.fold_in(k, c), x, *a)
        )
        views.check_inplace(self)
        views.write(self, kernel(key, counter, self._value, *args))
        return self

    method.__name__ = spec.name
    return method


def _like(name, base):
    def like(input, *args, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None, generator=None, **kwargs):
        dtype = D.to_dtype(dtype) if dtype is not None else input.dtype
        if name in ("rand_like", "randn_like"):
            value = _draw(_registry.REGISTRY[base], generator, (input._shape,),
                          {"dtype": dtype})
        else:
            value = _registry.REGISTRY[base].fn(input._shape, *args, dtype=dtype)
        return _place(value, requires_grad, like=input)

    like.__name__ = name
    return like


def _new(base):
    def new(self, *args, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False, **kwargs):
        dtype = D.to_dtype(dtype) if dtype is not None else self.dtype
        if base == "tensor":
            return tensor(args[0], dtype=dtype, requires_grad=requires_grad)
        size = kwargs.pop("size", None)
        if size is None:
            size, args = (args[0], args[1:]) if base == "full" else (_size_args(args), ())
        value = _registry.REGISTRY[base].fn(tuple(size), *args, dtype=dtype, **kwargs)
        return _place(value, requires_grad)

    new.__name__ = f"new_{base}"
    return new


def zeros(*size, **kw):
    return _BOUND["zeros"](*size, **kw)


_BOUND: dict = {}


def bind_factories(namespace: dict) -> None:
    for spec in _registry.REGISTRY.values():
        if spec.kind == "factory":
            fn = _factory(spec)
        elif spec.kind == "random":
            fn = _random(spec)
        elif spec.kind == "random_":
            setattr(Tensor, spec.name, _random_inplace(spec))
            continue
        else:
            continue
        _BOUND[spec.name] = namespace[spec.name] = fn
    for base in ("zeros", "ones", "empty", "full", "rand", "randn"):
        namespace[f"{base}_like"] = _like(f"{base}_like", base)
    for base in ("zeros", "ones", "empty", "full", "tensor"):
        setattr(Tensor, f"new_{base}", _new(base))
    namespace.update(tensor=tensor, as_tensor=as_tensor, from_numpy=from_numpy, **LEGACY_TYPES)
