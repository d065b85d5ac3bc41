"""Tensor methods that behave as PyTorch's do inside torch.func transforms.

Installed on the classes only while a transform runs (as the compile recorder installs its
storage descriptors), so eager code pays nothing otherwise:

- ``detach()`` and ``.data`` of a traced tensor stop gradients (JAX's ``stop_gradient``,
  as a view step, so the alias still writes through to its base);
- ``.item()``, ``.tolist()``, ``bool()`` and printing read the concrete value under
  ``grad``-like transforms (where PyTorch's eager transforms have one) and raise PyTorch's
  errors under ``vmap``;
- ``autograd.Function.apply`` follows PyTorch's functorch rules (see ``_function``).
"""

from __future__ import annotations

import contextlib

import jax
import numpy as np

from ..eager.autograd.function import Function
from ..eager.tensor import Tensor

_Tracer = jax.core.Tracer
_ORIG = {}
ITEM_ERROR = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap "
              "over calling .item() on a Tensor, please try to rewrite what you're doing with "
              "other operations. If error is occurring somewhere inside PyTorch internals, "
              "please file a bug report.")
PRINT_ERROR = ("vmap: printing the values of a Tensor inside vmap is not supported in jtorch "
               "(they are traced); print them after the call")
BOOL_ERROR = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
              "control flow. We don't support that yet, please file an issue at "
              "https://github.com/pytorch/pytorch/issues .")


def _stop(x):
    return jax.lax.stop_gradient(x)


_stop.scatter = lambda base, src: src  # the detached alias writes straight through
_STOP_STEP = (_stop, ())


def _stopped(alias: Tensor, src: Tensor) -> Tensor:
    if isinstance(src._value, _Tracer):
        alias._chain = src._chain + (_STOP_STEP,)
    return alias


def _detach(self):
    return _stopped(_ORIG["detach"](self), self)


def _data(self):
    return _stopped(_ORIG["data"].fget(self), self)


def _concrete(t: Tensor, error: str):
    """The concrete value of ``t`` (a grad-like transform's tracer keeps one)."""
    v = t._value
    if not isinstance(v, _Tracer):
        return v
    c = v.to_concrete_value()
    if c is None:
        from ._core import LEVELS
        from ._program import NeedsEager, tracing

        if tracing():  # a compiled program has no values: run this one op by op
            raise NeedsEager

        if any(lv.kind == "vmap" for lv in LEVELS):
            raise RuntimeError(error)
        return v  # let JAX say why (e.g. inside a torch.compile trace)
    return c


def _item(self):
    if self.numel() != 1:
        return _ORIG["item"](self)
    return np.asarray(_concrete(self, ITEM_ERROR)).reshape(()).item()


def _tolist(self):
    return np.asarray(_concrete(self, ITEM_ERROR)).tolist()


def _bool(self):
    if self.numel() != 1:
        return _ORIG["__bool__"](self)
    return bool(np.asarray(_concrete(self, BOOL_ERROR)).reshape(()).item())


def _repr(self, *, tensor_contents=None):
    v = self._value
    if not isinstance(v, _Tracer):
        return _ORIG["__repr__"](self)
    from ..eager.tensor import wrap

    return repr(wrap(_concrete(self, PRINT_ERROR)))


def _apply(cls, *args, **kwargs):
    from ._function import apply_in_transform

    return apply_in_transform(cls, _ORIG["apply"], args, kwargs)


_TENSOR = {"detach": _detach, "item": _item, "tolist": _tolist, "__bool__": _bool,
           "__repr__": _repr, "__str__": _repr}


@contextlib.contextmanager
def installed():
    """The transform-aware methods, for the duration of the outermost transform."""
    if _ORIG:  # already installed (a transform inside a transform's autograd node)
        yield
        return
    for name, fn in _TENSOR.items():
        _ORIG[name] = Tensor.__dict__[name]
        setattr(Tensor, name, fn)
    _ORIG["data"] = Tensor.__dict__["data"]
    Tensor.data = property(_data, _ORIG["data"].fset)
    _ORIG["apply_cm"] = Function.__dict__["apply"]
    _ORIG["apply"] = _ORIG["apply_cm"].__func__
    Function.apply = classmethod(_apply)
    try:
        yield
    finally:
        for name in (*_TENSOR, "data"):
            setattr(Tensor, name, _ORIG[name])
        Function.apply = _ORIG["apply_cm"]
        _ORIG.clear()
