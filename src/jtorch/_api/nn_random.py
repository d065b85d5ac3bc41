"""Random nn ops at the torch level: ``torch.dropout`` and its alpha/feature variants,
``torch.rrelu`` in training mode, each with an in-place ``_`` form.

Each draws a key from a generator and runs a kernel cached per static arguments, like the
random factories (``eager/creation.py``). Differences from PyTorch: the random streams
differ (same distributions); the results' ``grad_fn`` names are those of PyTorch's CPU
kernels (``MulBackward0``, ``AddBackward0``, ``RreluWithNoiseBackward0``).
"""

from __future__ import annotations

from .. import _dtypes as D
from ..eager import dispatch, views
from ..eager.bind import bound
from ..eager.random import default_generator
from ..functional import activation as A
from ..functional import nn_basic as B
from ..functional import splitmix as SM

__all__ = [
    "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
    "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "rrelu", "rrelu_",
]

_KERNELS: dict = {}


def random_apply(key, fn, input, name, generator=None, *operands):
    """``fn(input, jax_key, *operands)`` as a recorded op; ``key`` names it with its statics."""
    kernel = _KERNELS.get(key)
    if kernel is None:
        def kernel(x, k, c, *ops):
            return fn(x, SM.fold(k, c), *ops)

        _KERNELS[key] = kernel
    k, c = (generator or default_generator).next()
    return dispatch.apply(("nn_random", key), kernel, [input, k, c, *operands], name,
                          saves="none")


def _inplace(input, result):
    views.check_inplace(input)
    return views.commit(input, result, inputs=())


def _dropout(input, p, train, feature, alpha):
    if p == 0 or not train or input.numel() == 0:
        return input
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not input.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{D.legacy_name(input.dtype)}")
    p = float(p)
    name = "AddBackward0" if alpha and p != 1 else "MulBackward0"
    return random_apply(("dropout", p, feature, alpha),
                        lambda x, k: B.dropout(x, k, p, feature, alpha), input, name)


def _pair(feature, alpha):
    def out_of_place(input, p, train):
        return _dropout(input, p, train, feature, alpha)

    def in_place(input, p, train):
        result = _dropout(input, p, train, feature, alpha)
        return input if result is input else _inplace(input, result)

    return out_of_place, in_place


dropout, dropout_ = _pair(False, False)
alpha_dropout, alpha_dropout_ = _pair(False, True)
feature_dropout, feature_dropout_ = _pair(True, False)
feature_alpha_dropout, feature_alpha_dropout_ = _pair(True, True)
for _f, _n in ((dropout, "dropout"), (dropout_, "dropout_"), (alpha_dropout, "alpha_dropout"),
               (alpha_dropout_, "alpha_dropout_"), (feature_dropout, "feature_dropout"),
               (feature_dropout_, "feature_dropout_"),
               (feature_alpha_dropout, "feature_alpha_dropout"),
               (feature_alpha_dropout_, "feature_alpha_dropout_")):
    _f.__name__ = _f.__qualname__ = _n


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """Leaky ReLU with random negative slopes from U(lower, upper) in training, else the
    fixed slope (lower + upper) / 2."""
    if not training:
        return bound("rrelu")(input, lower, upper)
    return random_apply(("rrelu",), A.rrelu_train, input, "RreluWithNoiseBackward0",
                        generator, float(lower), float(upper))


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _inplace(input, rrelu(input, lower, upper, training, generator))
