"""In-place nn ops at the torch level: ``torch.relu_``, ``selu_``, ``celu_``,
``threshold_`` and ``embedding_renorm_`` (each is its registry op committed into
``input``)."""

from __future__ import annotations

from ..eager import views
from ..eager.autograd import grad_mode
from ..eager.bind import bound

__all__ = ["relu_", "selu_", "celu_", "threshold_", "embedding_renorm_"]


def _inplace(input, result):
    views.check_inplace(input)
    return views.commit(input, result, inputs=())


def relu_(input):
    return _inplace(input, bound("relu")(input))


def selu_(input):
    return _inplace(input, bound("selu")(input))


def celu_(input, alpha=1.0):
    return _inplace(input, bound("celu")(input, alpha))


def threshold_(input, threshold, value):
    return _inplace(input, bound("threshold")(input, threshold, value))


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Scale the rows of ``input`` (an embedding table) that ``indices`` uses to norm at
    most ``max_norm``, in place and outside autograd."""
    with grad_mode.no_grad():
        new = bound("_embedding_renorm")(input, indices, float(max_norm), float(norm_type))
    views.check_inplace(input)
    return views.commit(input, new, inputs=())
