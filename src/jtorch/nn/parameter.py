"""nn.Parameter, nn.Buffer and the uninitialized (lazy) variants."""

from __future__ import annotations

from ..eager import fast_paths
from ..eager.tensor import Tensor, retyped, set_attributes, share_attribute_names

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter", "is_lazy"]


def _empty(device=None, dtype=None) -> Tensor:
    import jtorch

    return jtorch.empty(0, device=device, dtype=dtype)


def _rebuild_parameter(data, requires_grad, state=None):
    p = Parameter(data, requires_grad)
    if state:
        set_attributes(p, state)
    return p


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter when assigned as an attribute.

    It shares storage (and version counter) with ``data``, as ``Tensor._make_subclass``.
    Ops on a Parameter return plain Tensors, as in PyTorch.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' (position 1) must be Tensor, not "
                            f"{type(data).__name__}")
        t = retyped(data.detach(), cls)
        if requires_grad and not (t.is_floating_point() or t.is_complex()):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = bool(requires_grad)
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        # (Reading __dict__ builds one for this parameter: see ``tensor.retyped``. Only a
        # pickle of the Parameter itself comes here; torch.save reduces it by value.)
        state = {k: v for k, v in self.__dict__.items() if not _is_tensor_slot(k)}
        return (_rebuild_parameter, (self.data, self.requires_grad, state or None))


fast_paths._PARAM = Parameter  # the lanes take it as a plain tensor (it changes no op)
share_attribute_names(Parameter)


def _is_tensor_slot(name: str) -> bool:
    """Attributes the tensor machinery sets (storage, geometry, autograd); users' are kept."""
    return name.startswith("_") or name == "dtype"


class _BufferMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer",
                                                                      False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a module buffer when assigned as an attribute.

    As in PyTorch, ``Buffer(t)`` returns a plain Tensor (a detached alias of ``t``) flagged
    so that ``isinstance(b, Buffer)`` holds.
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """Lazy modules' placeholders: no data until ``materialize(shape)``."""

    cls_to_become: type = Tensor

    def materialize(self, shape, device=None, dtype=None) -> None:
        import jtorch

        device = self.data.device if device is None else device
        dtype = self.data.dtype if dtype is None else dtype
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.data = jtorch.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param) -> bool:
    """Whether ``param`` is an uninitialized (lazy) parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (LazyLinear & co.)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        t = retyped(_empty(device, dtype).detach(), cls)
        t._requires_grad = bool(requires_grad)
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = retyped(_empty(device, dtype).detach(), cls)
        t._requires_grad = bool(requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
