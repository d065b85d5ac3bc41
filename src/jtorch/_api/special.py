"""Tensor.polygamma and Tensor.polygamma_: PyTorch's method takes ``n`` after self, where
torch.polygamma takes it first, so the generated bindings cannot serve."""

from __future__ import annotations

from ..eager import views
from ..eager.bind import bound
from ..eager.tensor import Tensor

__all__: list[str] = []


def _polygamma(self, n):
    return bound("polygamma")(n, self)


def _polygamma_(self, n):
    views.check_inplace(self)
    return views.commit(self, bound("polygamma")(n, self))


Tensor.polygamma = _polygamma
Tensor.polygamma_ = _polygamma_
