"""Bindings of the random ops: sampling factories, tensor-parameterised draws, in-place fills.

Every draw takes ``(key, counter)`` from a Generator (the default one unless
``generator=`` is given) and folds the counter into the key inside the jitted kernel
(``splitmix.fold``), so drawing costs one dispatch and never retraces for a new counter.
Draws whose parameters are tensors (``normal(mean, std)``, ``bernoulli(p)``,
``poisson(rates)``) go through ``dispatch.apply`` so that they get PyTorch's (zero)
gradient and grad_fn.

Differences from PyTorch: the numbers come from jtorch's streams (``functional/random``),
so a seed gives other values than PyTorch's; the same seed gives the same values here.
"""

from __future__ import annotations

import functools
import inspect
import operator

import jax
import numpy as np

from .. import _dtypes as D
from .. import _kernels, _registry
from .. import _memory_format as MF
from .._device import default_device, resolve
from .._device import device as Device
from ..functional import random as FR
from ..functional import splitmix as SM
from ..functional.creation import _size
from . import dispatch, hooks
from .random import Generator, generator_for
from .tensor import Tensor


def draw(name, fn, generator, args=(), kwargs=None, operands=(), grad_name=None,
         device=None):
    """``fn(key, *operands, *args, **kwargs)`` with a fresh key from ``generator`` (else the
    default generator of ``device``, or of the tensor operands' device); ``args``/``kwargs``
    key the kernel. With ``grad_name`` the draw is recorded for autograd (tensor operands)."""
    op, kernel = _draw_kernel(name, fn, args, kwargs or {})
    if generator is None:
        tensors = [o for o in operands if isinstance(o, Tensor)]
        generator = generator_for(tensors[0].device if tensors else device)
    key, counter = generator.next()
    if not any(isinstance(o, Tensor) for o in operands):
        return dispatch._fwd_kernel(op, kernel)(key, counter, *operands)
    return dispatch.apply(op, kernel, [key, counter, *operands], grad_name or "", saves="none")


def _draw_kernel(name, fn, args, kwargs):
    """(dispatch key, pure kernel) of ``draw``."""
    # The default dtype is read while tracing, so it keys the kernel too.
    statics = (args, *sorted(kwargs.items()), D.get_default_dtype())

    def kernel(k, c, *ops):
        return fn(SM.fold(k, c), *ops, *args, **kwargs)

    return ("random", name, statics), kernel


def shuffle_ahead(n: int) -> None:
    """Queue on the background thread (``_kernels.ahead_job``) the programs a shuffling
    DataLoader's first epoch compiles, 0.3-0.5 s on the CPU: its iterator's base seed (an
    int64 ``random_``), its sampler's seed draw (``randint``), the new generator's key and
    ``randperm(n)``."""
    if not _kernels.BACKGROUND or hooks.RECORDER is not None:
        return
    specs = _registry.REGISTRY
    draws = [_draw_kernel("randint", specs["randint"].fn, (_size(()),), {"dtype": D.int64})
             + ((0, 2**62),),
             _draw_kernel("randperm", specs["randperm"].fn, (n,), {"dtype": None}) + ((),)]
    kernels = [(dispatch._fwd_kernel(op, kernel), operands) for op, kernel, operands in draws]
    _, st, ops = _inplace_args(specs["random_"], D.int64, (), {})
    fill = dispatch._fwd_kernel(*_inplace_kernel(specs["random_"], st))
    seed = jax.ShapeDtypeStruct((), D.int64.np)

    def job():  # in the order the loader draws: its base seed first
        key = Generator()._make_key()  # and the programs making a generator's key
        _kernels.compile_for(fill.jitted(), seed, key, 0, *ops)
        for k, operands in kernels:
            _kernels.compile_for(k.jitted(), key, 0, *operands)

    _kernels.ahead_job(("shuffle", n, D.get_default_dtype()), job)


def target(device):
    """The device a factory's ``device=`` names (the default device without one)."""
    return default_device() if device is None else resolve(Device(device))


def _randint_args(args, kwargs):
    """(low, high, size) from ``randint(high, size)`` or ``randint(low, high, size)``."""
    names = ("low", "high", "size") if len(args) + len(kwargs) >= 3 else ("high", "size")
    bound = dict(zip(names, args, strict=False)) | kwargs
    low, high, size = bound.pop("low", 0), bound.pop("high", None), bound.pop("size", None)
    if bound or high is None or not isinstance(size, list | tuple):
        raise TypeError("randint() received an invalid combination of arguments - expected "
                        "(int high, tuple of ints size) or (int low, int high, tuple of ints "
                        "size)")
    return low, high, tuple(size)


def _sized(spec, emit, size_args):
    """rand/randn/randint/randperm: ``f(*size, generator=, out=, dtype=, ...)``."""

    def sample(*args, generator=None, out=None, dtype=None, layout=None, device=None,
               requires_grad=False, pin_memory=False, **kwargs):
        MF.sparse_requested(spec.name, layout, out)  # PyTorch samples strided tensors only
        dtype = D.to_dtype(dtype) if dtype is not None else out.dtype if out is not None else None
        if generator is None:
            generator = generator_for(out.device if out is not None else target(device))
        if spec.name == "randint":
            low, high, size = _randint_args(args, kwargs)
            FR.check_randint(low, high, dtype or D.int64)
            # The bounds are kernel operands, so new bounds reuse the compiled kernel.
            bounds = (operator.index(low), operator.index(high))
            value = draw(spec.name, spec.fn, generator, (_size(size),), {"dtype": dtype}, bounds)
        elif spec.name == "randperm":
            n = kwargs.pop("n", args[0] if args else None)
            if n is None or isinstance(n, bool) or not hasattr(type(n), "__index__"):
                raise TypeError("randperm(): argument 'n' must be int")
            value = draw(spec.name, spec.fn, generator, (operator.index(n),), {"dtype": dtype})
        else:
            if spec.varargs in kwargs:
                args = (*args, kwargs.pop(spec.varargs))
            args = (size_args(spec.name, args),)
            value = draw(spec.name, spec.fn, generator, args, dict(kwargs, dtype=dtype))
        return emit(spec.name, value, out, requires_grad, device)

    sample.__name__ = spec.name
    return sample


def _normal(spec, emit, size_args):
    """torch.normal's four overloads: (Tensor, Tensor), (Tensor, float), (float, Tensor),
    (float, float, size)."""

    def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None,
               layout=None, device=None, requires_grad=False, pin_memory=False):
        MF.sparse_requested("normal", layout, out)
        if generator is None and not isinstance(mean, Tensor) and not isinstance(std, Tensor):
            generator = generator_for(out.device if out is not None else target(device))
        if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
            if size is None:
                raise TypeError(f"normal() received an invalid combination of arguments - got "
                                f"({type(mean).__name__}, {type(std).__name__})")
            dtype = D.to_dtype(dtype) if dtype is not None else (
                out.dtype if out is not None else None)
            value = draw("normal_size", FR.normal_size, generator,
                         (float(mean), float(std), size_args("normal", (size,))),
                         {"dtype": dtype})
            return emit("normal", value, out, requires_grad, device)
        if isinstance(std, int | float) and std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        if isinstance(std, Tensor) and std.numel():
            import numpy as np

            if (np.asarray(std._value) < 0).any():
                raise RuntimeError("normal expects all elements of std >= 0.0")
        which = 3 if isinstance(mean, Tensor) and isinstance(std, Tensor) else (
            1 if isinstance(mean, Tensor) else 2)
        result = draw("normal", spec.fn, generator, operands=(mean, std),
                      grad_name=f"NormalBackward{which}")
        if out is None:
            return result
        return emit("normal", result._value, out, False, None)

    return normal


def _tensor_draw(spec, emit, size_args):
    """bernoulli(input, p), poisson(input), multinomial(input, n, replacement)."""
    params = list(inspect.signature(spec.fn).parameters.values())[2:]
    statics = set(spec.static)

    def fn(input, *args, generator=None, out=None, **kwargs):
        bound = inspect.Signature(params).bind(*args, **kwargs)
        bound.apply_defaults()
        check = spec.extra.get("check")
        if check is not None:
            check({"input": input, **bound.arguments}, {})
        st = {k: v for k, v in bound.arguments.items() if k in statics}
        ops = [v for k, v in bound.arguments.items() if k not in statics]
        result = draw(spec.name, spec.fn, generator, (), st, (input, *ops),
                      grad_name=spec.grad_name)
        return result if out is None else emit(spec.name, result._value, out, False, None)

    fn.__name__ = spec.name
    return fn


# ------------------------------------------------------------------ in place: x.normal_() & co.

# PyTorch spells some parameters as Python keywords.
_RENAMED = {"from": "low", "to": "high"}


@functools.cache
def _fill_signature(fn) -> inspect.Signature:
    """A fill's Python signature: its function's parameters after (key, input)."""
    return inspect.Signature(list(inspect.signature(fn).parameters.values())[2:])


def _inplace_args(spec, dtype, args, kwargs):
    """(arguments, statics, operands) of an in-place fill ``x.<spec.name>(*args, **kwargs)``
    on a tensor of ``dtype``."""
    kwargs = {_RENAMED.get(k, k): v for k, v in kwargs.items()}
    try:
        bound = _fill_signature(spec.fn).bind(*args, **kwargs)
    except TypeError:
        raise TypeError(f"{spec.name}() received an invalid combination of arguments") from None
    bound.apply_defaults()
    vals = {k: v.item() if isinstance(v, Tensor) and spec.name != "bernoulli_" else v
            for k, v in bound.arguments.items()}
    check = spec.extra.get("check")
    if check is not None:
        vals = check(dtype, vals) or vals
    st = {k: v for k, v in vals.items() if k in spec.static}
    ops = [float(v) if isinstance(v, int) and dtype._kind >= 2 else v
           for k, v in vals.items() if k not in spec.static]
    return vals, st, ops


def _inplace_kernel(spec, st):
    """(dispatch key, pure kernel ``(x, key, counter, *operands)``) of an in-place fill."""
    fn = spec.fn

    def kernel(x, k, c, *o):
        return fn(SM.fold(k, c), x, *o, **st)

    return ("random_", spec.name, tuple(sorted(st.items()))), kernel


def _random_inplace(spec):
    def method(self, *args, generator=None, **kwargs):
        from . import views

        vals, st, ops = _inplace_args(spec, self.dtype, args, kwargs)
        views.check_inplace(self)
        key, counter = (generator or generator_for(self.device)).next()
        if spec.name in _BUCKETED and _bucketable(self):
            return views.commit(self, _bucketed_fill(spec.fn, self, key, counter, ops))
        name = spec.grad_name
        if callable(name) and not isinstance(name, str):
            name = name(st, vals)
        op, kernel = _inplace_kernel(spec, st)
        result = dispatch.apply(op, kernel, [self, key, counter, *ops], name, saves="none")
        return views.commit(self, result)

    method.__name__ = spec.name
    return method


# The fills that initialise parameters (nn.init, reset_parameters). A sampling kernel takes XLA:CPU
# 0.05-0.1 s to compile (0.2-0.35 s with threefry), once per shape, so a model paid it for every
# distinct parameter shape on a cold start. On the CPU backend these fills draw in chunks of one of
# two sizes (_CHUNK values, or _BIG_CHUNK for tensors of _BIG_FROM values and more: one more program
# to compile, 0.2 s, that pays for itself only in fills of tens of millions of values, where 16k
# chunks take 1.7x as long, 0.27 s against 0.16 s for 10M), each chunk from the fill's key folded
# with the chunk's index, and join the chunks on the host: one program per sampler and dtype for
# every parameter of most models (a GPT's embedding and layer weights needed two bucket sizes, so
# four programs, before), shared with every other model through the on-disk cache. Elsewhere they
# draw from a kernel keyed by a power-of-two element count, at least _CHUNK, and take the first
# numel values.
_BUCKETED = {"uniform_", "normal_"}
_CHUNK = 1 << 14  # a draw of 16k values takes ~0.3 ms; a kernel 0.05-0.1 s to compile
_BIG_CHUNK = 1 << 20  # ~20 ms a draw: the chunk calls' overhead is lost in it
_BIG_FROM = 1 << 22
_FILLS: dict = {}


def _bucketable(x) -> bool:
    # Not for a fill autograd records (a non-leaf under grad mode), nor for a value pinned
    # to a device (the bucket kernel has no input on it), nor while tracing.
    from .autograd import grad_mode

    value = x._value
    return (x.numel() > 0 and not getattr(value, "committed", True)
            and not (grad_mode._state.enabled and x.requires_grad))


def _fill_kernel(fn, size: int, dtype):
    """``size`` values of sampler ``fn`` from the fill's key folded with a chunk index."""
    kernel = _FILLS.get((fn, size, dtype))
    if kernel is None:
        def draw_chunk(k, c, i, *o):
            key = SM.fold(SM.fold(k, c), i)
            return fn(key, jax.numpy.zeros((size,), dtype), *o)

        kernel = _FILLS[(fn, size, dtype)] = _kernels.jit(draw_chunk,
                                                          name=("fill", fn, size, dtype))
    return kernel


def _bucketed_fill(fn, x, key, counter, ops):
    from .tensor import wrap

    n, dtype = x.numel(), x.dtype.np
    if _kernels.host_fills():  # chunks joined on the host: no program per shape or size
        size = _BIG_CHUNK if n >= _BIG_FROM else _CHUNK
        kernel = _fill_kernel(fn, size, dtype)
        parts = [kernel(key, counter, np.uint32(i), *ops) for i in range(-(-n // size))]
        flat = np.concatenate([np.asarray(p) for p in parts])  # dispatched, then read
        return wrap(_kernels.device_array(flat[:n].reshape(x.shape)))
    kernel = _fill_kernel(fn, max(_CHUNK, 1 << (n - 1).bit_length()), dtype)
    return wrap(_first(kernel(key, counter, np.uint32(0), *ops), n, tuple(x.shape)))


@_kernels.jit(static_argnums=(1, 2))
def _first(flat, n, shape):
    return flat[:n].reshape(shape)


def bind(namespace: dict, emit, size_args) -> dict:
    """Bind every random op: functions into ``namespace``, methods onto Tensor."""
    bound = {}
    for spec in {id(s): s for s in _registry.REGISTRY.values()}.values():
        if spec.kind == "random_":
            setattr(Tensor, spec.name, _random_inplace(spec))
            continue
        if spec.kind != "random":
            continue
        if spec.name == "normal":
            fn = _normal(spec, emit, size_args)
        elif spec.name in ("bernoulli", "poisson", "multinomial", "binomial"):
            fn = _tensor_draw(spec, emit, size_args)
        else:
            fn = _sized(spec, emit, size_args)
        bound[spec.name] = namespace[spec.name] = fn
        if spec.method:
            setattr(Tensor, spec.name, fn)
    return bound
