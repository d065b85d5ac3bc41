"""torch.nn.functional activations: F's signatures over the registry ops of
``_ops/nn_activation.py``; ``inplace=True`` commits the result into ``input``."""

from __future__ import annotations

import warnings

import jtorch
from jtorch.eager import views
from jtorch.eager.bind import bound

__all__ = [
    "relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "prelu", "rrelu", "rrelu_", "elu",
    "elu_", "selu", "selu_", "celu", "celu_", "gelu", "silu", "mish", "hardtanh", "hardtanh_",
    "hardswish", "hardsigmoid", "hardshrink", "softshrink", "softplus", "softsign",
    "tanhshrink", "logsigmoid", "threshold", "threshold_", "softmax", "softmin",
    "log_softmax", "glu", "sigmoid", "tanh",
]


def _inplace(input, result):
    """Write ``result`` into ``input`` (views, version counter and autograd history)."""
    views.check_inplace(input)
    return views.commit(input, result, inputs=())


def _apply(name, input, inplace, *args):
    out = bound(name)(input, *args)
    return _inplace(input, out) if inplace else out


def relu(input, inplace: bool = False):
    return jtorch.relu_(input) if inplace else jtorch.relu(input)


def relu_(input):
    return jtorch.relu_(input)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    return _apply("hardtanh", input, inplace, min_val, max_val)


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    return hardtanh(input, min_val, max_val, True)


def relu6(input, inplace: bool = False):
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    return _apply("leaky_relu", input, inplace, negative_slope)


def leaky_relu_(input, negative_slope: float = 0.01):
    return leaky_relu(input, negative_slope, True)


def prelu(input, weight):
    return jtorch.prelu(input, weight)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False):
    if inplace:
        return jtorch.rrelu_(input, lower, upper, training)
    return jtorch.rrelu(input, lower, upper, training)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    return jtorch.rrelu_(input, lower, upper, training)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    return _apply("elu", input, inplace, alpha)


def elu_(input, alpha: float = 1.0):
    return elu(input, alpha, True)


def selu(input, inplace: bool = False):
    return _apply("selu", input, inplace)


def selu_(input):
    return selu(input, True)


def celu(input, alpha: float = 1.0, inplace: bool = False):
    return _apply("celu", input, inplace, alpha)


def celu_(input, alpha: float = 1.0):
    return celu(input, alpha, True)


def threshold(input, threshold: float, value: float, inplace: bool = False):
    return _apply("threshold", input, inplace, threshold, value)


def threshold_(input, threshold: float, value: float):
    return _apply("threshold", input, True, threshold, value)


def _generated(name, doc):
    """F.X(input, inplace=False) for a registry op X taking only ``input``."""

    def fn(input, inplace: bool = False):
        return _apply(name, input, inplace)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


silu = _generated("silu", "x * sigmoid(x)")
mish = _generated("mish", "x * tanh(softplus(x))")
hardswish = _generated("hardswish", "x * relu6(x + 3) / 6")
hardsigmoid = _generated("hardsigmoid", "relu6(x + 3) / 6")


def gelu(input, approximate: str = "none"):
    return bound("gelu")(input, approximate)


def hardshrink(input, lambd: float = 0.5):
    return bound("hardshrink")(input, lambd)


def softshrink(input, lambd: float = 0.5):
    return bound("softshrink")(input, lambd)


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    return bound("softplus")(input, beta, threshold)


def softsign(input):
    return bound("softsign")(input)


def tanhshrink(input):
    return bound("tanhshrink")(input)


def logsigmoid(input):
    return bound("logsigmoid")(input)


def sigmoid(input):
    return jtorch.sigmoid(input)


def tanh(input):
    return jtorch.tanh(input)


def glu(input, dim: int = -1):
    return bound("glu")(input, dim)


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return bound("softmax")(input, dim, dtype)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return bound("softmin")(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return bound("log_softmax")(input, dim, dtype)
