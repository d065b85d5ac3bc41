"""The eager Tensor: storage, geometry metadata and autograd identity.

Op methods (``x.add``, ``x.add_``, ``x + y``, views) are generated from the registry by
``bind.py``; what is written here by hand is the short list PyTorch users call that
is not an op: metadata, conversion to Python, autograd entry points, ``__getitem__``/
``__setitem__`` and ``to``.
"""

from __future__ import annotations

import math
import operator

import numpy as np
from jax._src.array import ArrayImpl

from .. import _dtypes as D
from .. import _strides
from .._device import CPU, PLACEMENT, device, device_of
from . import hooks
from .autograd import grad_mode
from .autograd.node import HOOKED, AccumulateGrad, RemovableHandle
from .lazy import Pending
from .storage import _SLOT_SET, LazyStorage, Storage, VersionCounter

_NP2T = {d.np: d for d in D.ALL}
_new = object.__new__
_VERSION = VersionCounter.__dict__["version"]  # the slot (a torch.compile trace wraps it)
_tuple_new = tuple.__new__


class Size(tuple):
    """torch.Size: a tuple of ints that prints as ``torch.Size([2, 3])``."""

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        for i, s in enumerate(sizes):
            if isinstance(s, float) or not hasattr(type(s), "__index__"):
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                                f"'{type(s).__name__}')")
        return tuple.__new__(cls, (operator.index(s) for s in sizes))

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, i):
        out = tuple.__getitem__(self, i)
        return Size(out) if isinstance(i, slice) else out

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


class _LazyVersion:
    """``Tensor._vc`` of a tensor made without one (``wrap`` of a ``lazy.Pending``: most
    are never written or saved): made when first read, as a counter that existed all along
    (version 0, not "born" in a torch.compile trace that first reads it), and kept on the
    tensor, where later reads find it first (this descriptor has no setter). Stored as an
    attribute, not through ``t.__dict__``: asking for the dict makes CPython 3.11 build one
    in place of the tensor's inline attribute values, and every later read of any of its
    attributes then costs about three times as much (a saved operand, read by the ops
    after it)."""

    def __get__(self, t, cls=None):
        if t is None:
            return self
        vc = _new(VersionCounter)
        _VERSION.__set__(vc, 0)
        t._vc = vc
        return vc


_ENGINE: list = []  # autograd.engine.backward, once a backward has run


class Tensor:
    """A torch tensor whose data is a ``jax.Array`` held in a (possibly shared) Storage."""

    # Defaults live on the class so creating a tensor sets only what differs.
    _chain: tuple = ()  # view steps from the storage's base value to this tensor
    _stride: tuple | None = None  # None: contiguous strides for the shape
    _offset = 0
    _requires_grad = False
    _grad_fn = None
    _output_nr = 0
    _grad = None
    _base = None  # the tensor this is a differentiable view of
    _view_version = 0
    _cache_src = None
    _cache = None
    _grad_acc = None
    _retains_grad = False
    _leaf_hooks = None
    _inference = False
    _post_acc_hooks = None
    _vc = _LazyVersion()  # a recorded op's result gets its counter when first asked for
    __array_priority__ = 1000  # numpy defers binary ops to Tensor's reflected methods

    def __new__(cls, *args, **kwargs):
        if cls is Tensor or args or kwargs:
            from .creation import legacy_new

            return legacy_new(cls, *args, **kwargs)
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    # ------------------------------------------------------------ data and geometry

    @property
    def _value(self):
        if not self._chain:
            return self._storage.value
        base = self._storage.value
        if self._cache_src is not base:
            from .views import read_chain

            self._cache = read_chain(self._chain, base)
            self._cache_src = base
        return self._cache

    @property
    def shape(self) -> Size:
        return _tuple_new(Size, self._shape)  # our shapes are ints already: skip validation

    def size(self, dim: int | None = None):
        if dim is None:
            return _tuple_new(Size, self._shape)
        return self._shape[_strides.wrap_dim(dim, len(self._shape))]

    def stride(self, dim: int | None = None):
        st = self._stride if self._stride is not None else _strides.contiguous_strides(self._shape)
        return st if dim is None else st[_strides.wrap_dim(dim, len(st))]

    def storage_offset(self) -> int:
        return self._offset

    def is_contiguous(self, memory_format=None) -> bool:
        if memory_format is not None and memory_format._name.startswith("channels_last"):
            from .._memory_format import is_contiguous_as

            return is_contiguous_as(self._shape, self.stride(), memory_format)
        return self._stride is None or _strides.is_contiguous(self._shape, self._stride)

    def data_ptr(self) -> int:
        if not self.numel():
            return 0  # PyTorch reports no address for an empty tensor
        return self._storage.ptr + self._offset * self.dtype.itemsize

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def numel(self) -> int:
        return math.prod(self._shape)

    nelement = numel

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self.dtype.itemsize

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    @property
    def _device(self) -> device:
        # Derived from where the data lives, so it is true by construction; assignments
        # (``t._device = ...``) are ignored: moving data is what moves a tensor. Until
        # something is placed on an accelerator every tensor is on the CPU: no read (a
        # read would run a recorded op's segment, ``lazy``).
        if not PLACEMENT.active:
            return CPU
        return device_of(self._storage.value)

    @_device.setter
    def _device(self, value) -> None:
        pass

    @property
    def device(self) -> device:
        if not PLACEMENT.active:
            return CPU
        return device_of(self._storage.value)

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_sparse(self) -> bool:
        return False

    @property
    def _version(self) -> int:
        return self._vc.version

    def is_inference(self) -> bool:
        return self._inference

    def _is_view(self) -> bool:
        return self._base is not None

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def __reduce_ex__(self, proto):
        """Pickle by value (for multiprocessing and ``copy``); checkpoints use torch.save."""
        return (_unpickle, (np.asarray(self._value), self.dtype.name, self.requires_grad))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        if id(self) in memo:
            return memo[id(self)]
        out = _unpickle(np.asarray(self._value), self.dtype.name, self.requires_grad)
        if self._device.type != "cpu":  # the copy lives where the original does
            import jax

            out._storage.value = jax.device_put(out._storage.value, self._value.sharding)
        if self._grad is not None:
            out._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = out
        return out

    # ------------------------------------------------------------ conversion to Python

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The values as an ndarray.

        Differences from PyTorch: the array is a read-only snapshot (JAX buffers are
        immutable), not memory shared with the tensor; copy it to write.
        """
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return np.asarray(self._value)

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()  # PyTorch's rules: an error for a tensor that requires grad
        return arr if dtype is None else arr.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """A NumPy ufunc's result over a tensor operand (``t * ndarray``) comes back as a
        tensor, as in PyTorch (bool as uint8: PyTorch's workaround, kept for its results)."""
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        from .._kernels import device_array

        return wrap(device_array(array))

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        return np.asarray(self._value).reshape(()).item()

    def tolist(self):
        return np.asarray(self._value).tolist()

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if self.numel()
                else "Boolean value of Tensor with no values is ambiguous"
            )
        return bool(self.item())

    def _scalar(self, target: str):
        """The single element for ``float()``/``int()``/``complex()``, checked as torch does."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = self.item()
        if isinstance(v, complex) and target != "complex" and v.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {target} without overflow")
        return v.real if isinstance(v, complex) and target != "complex" else v

    def __float__(self) -> float:
        return float(self._scalar("double"))

    def __int__(self) -> int:
        return int(self._scalar("int64_t"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self.dtype._kind > 1 or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __format__(self, spec: str) -> str:
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)  # TypeError for a non-empty spec, as PyTorch

    def __repr__(self, *, tensor_contents=None) -> str:
        from .printing import format_tensor

        suffixes = []
        if self._device.type != "cpu":
            suffixes.append(f"device='{self._device}'")
        if self._grad_fn is not None or (self._base is not None and self.grad_fn is not None):
            suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        show = self.dtype not in (D.get_default_dtype(), D.int64, D.bool, D.default_complex())
        return format_tensor(
            np.asarray(self._value), dtype_name=repr(self.dtype), show_dtype=show,
            suffixes=suffixes,
        )

    __str__ = __repr__

    # ------------------------------------------------------------ autograd identity

    @property
    def requires_grad(self) -> bool:
        if self._base is not None and self._view_version != self._vc.version:
            from .views import regenerate_view_grad_fn

            regenerate_view_grad_fn(self)
        return self._grad_fn is not None or self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and self.dtype._kind < 2:
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        if self._requires_grad != bool(requires_grad):
            hooks.tensor_changed(self)
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        if self._base is not None and self._view_version != self._vc.version:
            from .views import regenerate_view_grad_fn

            regenerate_view_grad_fn(self)
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    def _edge(self):
        """The (node, input_nr) a gradient for this tensor flows into."""
        fn = self.grad_fn
        if fn is not None:
            return fn, self._output_nr
        acc = self._grad_acc
        if acc is None:
            acc = self._grad_acc = AccumulateGrad(self)
        return acc.edge

    @classmethod
    def _saved_input(cls, value, edge):
        """A tensor with a saved value and the autograd edge it had when saved."""
        t = wrap(value)
        node, nr = edge
        if isinstance(node, AccumulateGrad):
            t._grad_acc, t._requires_grad = node, True
        elif node is not None:
            t._grad_fn, t._output_nr = node, nr
        return t

    @property
    def grad(self):
        if hooks.RECORDER is not None:
            hooks.grad_read(self)
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            import warnings

            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if value._shape != self._shape:
                raise RuntimeError("assigned grad has data of a different size")
        if value is not self._grad:
            hooks.grad_write(self)
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        if self.grad_fn is None:
            if not self.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return
        import weakref

        node = self.grad_fn
        HOOKED[0] = True
        if node._retained is None:
            node._retained = {}
        node._retained[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a new one."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._add_tensor_hook(self._output_nr, hook)
        HOOKED[0] = True
        if self._leaf_hooks is None:
            self._leaf_hooks = {}
        handle = RemovableHandle(self._leaf_hooks)
        self._leaf_hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
        """Call ``hook(tensor)`` after a backward pass accumulated into this leaf's ``.grad``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        HOOKED[0] = True
        if self._post_acc_hooks is None:
            self._post_acc_hooks = {}
        handle = RemovableHandle(self._post_acc_hooks)
        self._post_acc_hooks[handle.id] = hook
        return handle

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if not _ENGINE:  # imported here (a cycle at import time), once: not per step
            from .autograd.engine import backward

            _ENGINE.append(backward)
        _ENGINE[0]((self,), None if gradient is None else (gradient,), retain_graph,
                   create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A tensor sharing storage and version counter, cut from the graph."""
        return _alias(self, share_version=True)

    def detach_(self) -> Tensor:
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the Optimizer."
                "zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn, self._output_nr, self._requires_grad = None, 0, False
        return self

    @property
    def data(self) -> Tensor:
        """The same storage, no autograd history, and a fresh version counter (as PyTorch)."""
        return _alias(self, share_version=False)

    @data.setter
    def data(self, new: Tensor) -> None:
        hooks.tensor_changed(self)
        self._storage, self._chain, self._vc = new._storage, new._chain, new._vc
        self._shape, self._stride, self._offset = new._shape, new._stride, new._offset
        self.dtype, self._cache_src = new.dtype, None


def _unpickle(array, dtype_name: str, requires_grad: bool) -> Tensor:
    from .._kernels import device_array

    return wrap(device_array(array, getattr(D, dtype_name).np), requires_grad)


def wrap(value, requires_grad: bool = False) -> Tensor:
    """A fresh tensor owning a new storage that holds the JAX array ``value``."""
    t = _new(Tensor)
    # The attributes every op's checks read, on the instance: CPython 3.11 specializes no
    # read of an attribute that only the class holds (3x the cost of an instance's).
    # One store each: a tuple assignment builds and unpacks a tuple (a tensor per op call).
    t._chain = ()
    t._base = None
    t._stride = None
    t._grad_fn = None
    t._requires_grad = requires_grad
    kind = type(value)
    if kind is not Pending:
        t._storage = Storage(value)
        t._vc = VersionCounter()
        # An array's shape and dtype through its aval: 0.1 us, against 0.35 us directly.
        meta = value.aval if kind is ArrayImpl else value
    else:  # ``lazy.storage``'s, inline; the version counter comes when read (``_vc``)
        st = t._storage = _new(LazyStorage)
        _SLOT_SET(st, value)
        meta = value
    t._shape = meta.shape
    t.dtype = _NP2T[meta.dtype]
    if grad_mode._state.inference:
        t._inference = True
    return t


def retyped(t: Tensor, cls: type) -> Tensor:
    """A new ``cls`` (a Tensor subclass) holding ``t``'s attributes, in place of
    ``t.__class__ = cls``: CPython 3.11 answers a class assignment by building the instance
    a ``__dict__`` in place of its inline attribute values, and every read of its
    attributes then costs about three times as much (a Parameter is read by every op of
    every step). For a tensor just made (nothing else holds it): ``t`` is spent."""
    out = _new(cls)
    for k, v in t.__dict__.items():
        _setattr(out, k, v)  # stored inline, past any ``__setattr__`` of ``cls``
    return out


# The attributes the tensor machinery stores on instances, the most read first.
_INSTANCE_ATTRIBUTES = (
    "_chain", "_base", "_stride", "_grad_fn", "_requires_grad", "_storage", "_vc", "_shape",
    "dtype", "_output_nr", "_offset", "_cache", "_cache_src", "_view_version", "_grad_acc",
    "_grad", "_retains_grad", "_inference", "_leaf_hooks", "_post_acc_hooks", "_is_buffer",
    "persistent")


def share_attribute_names(cls: type) -> None:
    """Give ``cls``'s instances room for every attribute above in their inline values.

    CPython 3.11 keeps an instance's attributes in an array indexed by its class's shared
    key table, which takes new names only while it has room, and each new instance takes
    some of that room: the names set on the first few instances are all it ever holds. A
    name it lacks (a multi-output op's ``_output_nr``, a view's ``_offset``) makes that
    tensor a ``__dict__``, whose reads cost about three times as much and which the
    garbage collector walks (the LBFGS sine program: 5 such dicts per time step). So the
    class's first instance, made here before any other, stores all of them."""
    t = _new(cls)
    for name in _INSTANCE_ATTRIBUTES:
        _setattr(t, name, None)


def set_attributes(t: Tensor, state: dict) -> None:
    """``t.__dict__.update(state)`` without making ``t`` a ``__dict__`` (see ``retyped``)."""
    for k, v in state.items():
        _setattr(t, k, v)


_setattr = object.__setattr__
share_attribute_names(Tensor)


def _alias(t: Tensor, share_version: bool) -> Tensor:
    out = object.__new__(type(t) if type(t) is Tensor else Tensor)
    # What every op's checks read, on the instance (see ``wrap``): a Parameter is made so.
    out._base = out._grad_fn = None
    out._requires_grad = False
    out._storage, out._chain = t._storage, t._chain
    out._vc = t._vc if share_version else VersionCounter()
    out._shape, out._stride, out._offset, out.dtype = t._shape, t._stride, t._offset, t.dtype
    return out
