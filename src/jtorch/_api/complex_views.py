"""Complex views and element reinterpretation: ``conj`` (a lazily conjugated view, as
PyTorch's conj bit), ``real``/``imag`` (views of the (real, imag) pairs), ``is_conj``,
``resolve_conj``, ``adjoint``/``mH``/``H``, and ``Tensor.view(dtype)``.

Each is a view step of the storage chain (``functional/dtype_views.py``), so reads see
the base's current values and writes through the view reach the base.
"""

from __future__ import annotations

import warnings

from .. import _dtypes as D
from ..eager import views
from ..eager.bind import bound
from ..eager.tensor import Tensor
from ..functional import dtype_views as DV
from .dtype_info import _tensor_arg

__all__ = ["adjoint", "conj", "imag", "is_conj", "real", "resolve_conj"]


def conj(input) -> Tensor:
    """``input`` itself for non-complex tensors; for complex ones a conjugated view."""
    _tensor_arg("conj", input)
    if not input.is_complex():
        return input
    return views.make_view(input, DV.conj, DV.g_same, {}, "ConjBackward0")


def is_conj(input) -> bool:
    """Whether ``input`` is a conjugated view (an odd number of conjugations deep)."""
    _tensor_arg("is_conj", input)
    if not input.is_complex():
        return False
    return sum(step[0] is DV.conj for step in input._chain) % 2 == 1


def resolve_conj(input) -> Tensor:
    """A materialized copy of a conjugated view; any other tensor itself."""
    return input.clone() if is_conj(input) else input


def _pair(input, name: str, index: int) -> Tensor:
    _tensor_arg(name, input)
    if not input.is_complex():
        if index == 0:
            return input
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return bound("view_as_real")(input).select(-1, index)


def real(input) -> Tensor:
    """``input`` itself for real tensors; the real parts of a complex one, as a view."""
    return _pair(input, "real", 0)


def imag(input) -> Tensor:
    """The imaginary parts of a complex tensor, as a view."""
    return _pair(input, "imag", 1)


def _set_part(index: int):
    def setter(self, value) -> None:
        _pair(self, "imag" if index else "real", index).copy_(value)

    return setter


# ------------------------------------------------------------------ conjugate transposes


def _zero_dim(self, what: str) -> Tensor:
    warnings.warn(f"{what} is deprecated on 0-D tensors. Consider using x.conj().",
                  UserWarning, stacklevel=3)
    return conj(self)


def _batched(x, name: str, zero_name: str) -> Tensor:
    if x.dim() == 0:
        return _zero_dim(x, zero_name)
    if x.dim() < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                           f"matrices. Got {x.dim()}-D tensor.")
    return conj(x.transpose(-2, -1))


def adjoint(input) -> Tensor:
    """The conjugate transpose of the last two dims, as a view."""
    return _batched(_tensor_arg("adjoint", input), "adjoint()", "adjoint()")


def _mH(self) -> Tensor:
    return _batched(self, "mH", "Tensor.mH")


def _H(self) -> Tensor:
    if self.dim() == 0:
        return _zero_dim(self, "Tensor.H")
    if self.dim() != 2:
        hint = ". For batches of matrices, consider using tensor.mH" if self.dim() > 2 else "."
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor{hint}")
    return conj(self.transpose(0, 1))


# ------------------------------------------------------------------ view(dtype)


def _view_as_dtype(self, dtype) -> Tensor:
    """The same memory read as ``dtype`` (PyTorch's size rules when the element size
    changes). Like PyTorch's, the result is no differentiable view: it shares the storage
    and version counter but has no history and does not require grad."""
    def geometry(shape, stride, offset, dtype):
        return DV.g_view_dtype(shape, stride, offset, D.to_dtype(dtype), self.dtype)

    out = views.make_view(self.detach(), DV.view_dtype, geometry, {"dtype": dtype.np},
                          "ViewBackward0")
    out._base = None
    return out


def _install_view() -> None:
    by_size = Tensor.view

    def view(self, *args, **kwargs):
        if "dtype" in kwargs or (len(args) == 1 and isinstance(args[0], D.dtype)):
            return _view_as_dtype(self, kwargs.pop("dtype") if kwargs else args[0])
        return by_size(self, *args, **kwargs)

    view.__doc__ = "``x.view(*size)`` (a reshaping view) or ``x.view(dtype)``."
    Tensor.view = view


def _install_numpy() -> None:
    to_numpy = Tensor.numpy

    def numpy(self, *, force: bool = False):
        if is_conj(self) and not force:
            raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use "
                               "tensor.resolve_conj().numpy() instead.")
        return to_numpy(self, force=force)

    numpy.__doc__ = to_numpy.__doc__
    Tensor.numpy = numpy


Tensor.conj = conj
Tensor.is_conj = is_conj
Tensor.resolve_conj = resolve_conj
Tensor.adjoint = adjoint
Tensor.real = property(real, _set_part(0))
Tensor.imag = property(imag, _set_part(1))
Tensor.mH = property(_mH)
Tensor.H = property(_H)
_install_view()
_install_numpy()
