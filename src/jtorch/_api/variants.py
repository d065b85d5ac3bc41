"""Names PyTorch derives from other ops, derived here the same way: the torch-level forms
of in-place methods (``torch.abs_(x)``), the ``*_copy`` variants of the views (a
contiguous copy, with ``out=``), ``split_with_sizes`` and the ``unsafe_*`` splits, and
``torch.fill``."""

from __future__ import annotations

import jax

from .._dtypes import dtype
from ..eager import dispatch
from ..eager.autograd.grad_mode import no_grad
from ..eager.bind import write_out
from ..eager.tensor import Tensor
from .dtype_info import _tensor_arg

# torch.X_(input, ...) is input.X_(...) for these (PyTorch's list; names whose method
# jtorch lacks are left out, so the list keeps up as methods are added).
_INPLACE = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ "
    "atan_ atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ cos_ cosh_ deg2rad_ "
    "erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ index_put_ lcm_ ldexp_ "
    "log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ round_ "
    "rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_"
).split()

# name -> how the view is taken; each becomes torch.<name>_copy.
_VIEWS = {
    "alias": lambda x: x.view_as(x), "as_strided": Tensor.as_strided,
    "detach": Tensor.detach, "diagonal": Tensor.diagonal, "expand": Tensor.expand,
    "indices": lambda x: x.indices(), "permute": Tensor.permute,
    "select": Tensor.select, "slice": lambda x, dim=0, start=None, end=None, step=1: x[
        (slice(None),) * (dim % max(x.dim(), 1)) + (slice(start, end, step),)],
    "squeeze": Tensor.squeeze, "t": Tensor.t, "transpose": Tensor.transpose,
    "unfold": Tensor.unfold, "unsqueeze": Tensor.unsqueeze, "values": lambda x: x.values(),
    "view_as_complex": lambda x: _view_as("view_as_complex", x),
    "view_as_real": lambda x: _view_as("view_as_real", x),
    "view": lambda x, size: x.view(size) if isinstance(size, dtype) else x.reshape(size),
}
_MULTI = {"split": Tensor.split, "unbind": Tensor.unbind}
# PyTorch lists no complex gradient for these copies: a complex result that would need one
# raises.
_NO_COMPLEX_GRAD = ("select_copy", "slice_copy", "view_as_complex_copy")

__all__ = [n for n in _INPLACE if hasattr(Tensor, n)] + [f"{n}_copy" for n in (*_VIEWS, *_MULTI)]
__all__ += ["split_with_sizes_copy", "fill", "split_with_sizes", "unsafe_chunk", "unsafe_split",
            "unsafe_split_with_sizes"]


def _view_as(name: str, x):
    import jtorch

    return getattr(jtorch, name)(x)


@jax.custom_vjp
def _no_derivative_copy(v):
    return v


def _no_derivative_bwd(res, g):
    raise RuntimeError("derivative for aten::detach_copy is not implemented")


_no_derivative_copy.defvjp(lambda v: (v, None), _no_derivative_bwd)


def detach_copy(input, *, out=None) -> Tensor:
    """PyTorch's detach_copy keeps ``requires_grad`` with a grad_fn that has no derivative
    (NotImplemented): backward through it raises."""
    x = _tensor_arg("detach_copy", input)
    if out is not None:
        return write_out("detach_copy", x.detach().clone(), out)
    return dispatch.apply(("detach_copy",), _no_derivative_copy, [x], "NotImplemented",
                          saves="none")


def _torch_inplace(name: str):
    def fn(input, *args, **kwargs):
        return getattr(_tensor_arg(name, input), name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _copy(name: str, view):
    """``torch.<view>_copy``: the view's values as a new contiguous tensor."""

    def fn(input, *args, out=None, **kwargs):
        result = view(_tensor_arg(name, input), *args, **kwargs)
        copies = (tuple(r.clone(memory_format=_contiguous()) for r in result)
                  if isinstance(result, tuple) else result.clone(memory_format=_contiguous()))
        if name in _NO_COMPLEX_GRAD and copies.requires_grad and copies.is_complex():
            raise RuntimeError(f"{name} does not support automatic differentiation for outputs "
                               "with complex dtype.")
        if out is None:
            return copies
        if not isinstance(copies, tuple):
            return write_out(name, copies, out)
        if len(out) != len(copies):
            raise RuntimeError(f"{name}_Tensor_out() expected an out= argument of size "
                               f"{len(copies)}, got size {len(out)}")
        with no_grad():  # PyTorch copies into these outs without resizing them
            for o, c in zip(out, copies, strict=True):
                o.copy_(c)
        return None

    fn.__name__ = fn.__qualname__ = name
    return fn


def _contiguous():
    from .._memory_format import contiguous_format

    return contiguous_format


def fill(input, value) -> Tensor:
    """A new tensor like ``input`` filled with ``value`` (gradient zero w.r.t. ``input``)."""
    return _tensor_arg("fill", input).clone().fill_(value)


def split_with_sizes(input, split_sizes, dim=0) -> tuple:
    return _tensor_arg("split_with_sizes", input).split(list(split_sizes), dim)


def unsafe_split(input, split_size, dim=0) -> tuple:
    """``split`` (PyTorch's unsafe variants skip view bookkeeping; the results are alike)."""
    return _tensor_arg("unsafe_split", input).split(split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0) -> tuple:
    return split_with_sizes(input, split_sizes, dim)


def unsafe_chunk(input, chunks, dim=0) -> tuple:
    return _tensor_arg("unsafe_chunk", input).chunk(chunks, dim)


for _name in _INPLACE:
    if hasattr(Tensor, _name):
        globals()[_name] = _torch_inplace(_name)
for _name, _view in {**_VIEWS, **_MULTI}.items():
    if _name != "detach":
        globals()[f"{_name}_copy"] = _copy(f"{_name}_copy", _view)
split_with_sizes_copy = _copy("split_with_sizes_copy", lambda x, sizes, dim=0: x.split(
    list(sizes), dim))

Tensor.split_with_sizes = split_with_sizes
Tensor.unsafe_split = unsafe_split
Tensor.unsafe_split_with_sizes = unsafe_split_with_sizes
Tensor.unsafe_chunk = unsafe_chunk
