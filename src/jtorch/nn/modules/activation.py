"""Activation modules, generated from their F functions (MLX-style): each class stores its
constructor arguments as attributes and calls the functional form in ``forward``."""

from __future__ import annotations

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = [
    "ReLU", "ReLU6", "LeakyReLU", "PReLU", "RReLU", "ELU", "SELU", "CELU", "GELU", "SiLU",
    "Mish", "Hardtanh", "Hardswish", "Hardsigmoid", "Hardshrink", "Softshrink", "Softplus",
    "Softsign", "Tanh", "Sigmoid", "LogSigmoid", "Tanhshrink", "Threshold", "Softmax",
    "LogSoftmax", "Softmin", "Softmax2d", "GLU",
]


def _activation(name: str, fn, params=(), repr_fmt=None, doc=""):
    """A Module class whose constructor takes ``params`` ((name, default) pairs, in
    PyTorch's order) and whose forward is ``fn(input, *those attributes)``.

    ``repr_fmt`` formats ``extra_repr`` from the attributes; with an ``inplace``
    parameter its ", inplace=True" suffix is added as PyTorch does."""
    names = [p for p, _ in params]
    defaults = dict(params)

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        if len(args) > len(names):
            raise TypeError(f"{name}.__init__() takes at most {len(names)} arguments")
        values = {**defaults, **dict(zip(names, args)), **kwargs}
        unknown = set(values) - set(names)
        if unknown:
            raise TypeError(f"{name}.__init__() got an unexpected keyword argument "
                            f"'{sorted(unknown)[0]}'")
        for k in names:
            setattr(self, k, values[k])

    def forward(self, input):
        return fn(input, *(getattr(self, k) for k in names))

    def extra_repr(self):
        inplace = getattr(self, "inplace", False)
        if repr_fmt is None:
            return "inplace=True" if inplace else ""
        text = repr_fmt.format(**{k: getattr(self, k) for k in names},
                               **{f"{k}_r": repr(getattr(self, k)) for k in names})
        return text + (", inplace=True" if inplace else "")

    cls = type(name, (Module,), {
        "__init__": __init__, "forward": forward, "extra_repr": extra_repr,
        "__constants__": names, "__doc__": doc or f"Module form of ``F.{fn.__name__}``.",
        "__module__": __name__,
    })
    return cls


_INPLACE = (("inplace", False),)
ReLU = _activation("ReLU", F.relu, _INPLACE)
LeakyReLU = _activation("LeakyReLU", F.leaky_relu, (("negative_slope", 0.01), *_INPLACE),
                        "negative_slope={negative_slope}")
ELU = _activation("ELU", F.elu, (("alpha", 1.0), *_INPLACE), "alpha={alpha}")
CELU = _activation("CELU", F.celu, (("alpha", 1.0), *_INPLACE), "alpha={alpha}")
SELU = _activation("SELU", F.selu, _INPLACE)
SiLU = _activation("SiLU", F.silu, _INPLACE)
Mish = _activation("Mish", F.mish, _INPLACE)
Hardswish = _activation("Hardswish", F.hardswish, _INPLACE)
Hardsigmoid = _activation("Hardsigmoid", F.hardsigmoid, _INPLACE)
GELU = _activation("GELU", F.gelu, (("approximate", "none"),), "approximate={approximate_r}")
Hardshrink = _activation("Hardshrink", F.hardshrink, (("lambd", 0.5),), "{lambd}")
Softshrink = _activation("Softshrink", F.softshrink, (("lambd", 0.5),), "{lambd}")
Softplus = _activation("Softplus", F.softplus, (("beta", 1.0), ("threshold", 20.0)),
                       "beta={beta}, threshold={threshold}")
Softsign = _activation("Softsign", F.softsign)
Tanh = _activation("Tanh", F.tanh)
Sigmoid = _activation("Sigmoid", F.sigmoid)
LogSigmoid = _activation("LogSigmoid", F.logsigmoid)
Tanhshrink = _activation("Tanhshrink", F.tanhshrink)
Threshold = _activation("Threshold", F.threshold,
                        (("threshold", None), ("value", None), *_INPLACE),
                        "threshold={threshold}, value={value}")
GLU = _activation("GLU", F.glu, (("dim", -1),), "dim={dim}")


def _softmax_module(name, fn):
    def forward(self, input):
        return fn(input, self.dim, _stacklevel=5)

    cls = _activation(name, fn, (("dim", None),), "dim={dim}")
    cls.forward = forward
    return cls


Softmax = _softmax_module("Softmax", F.softmax)
LogSoftmax = _softmax_module("LogSoftmax", F.log_softmax)
Softmin = _softmax_module("Softmin", F.softmin)


class Softmax2d(Module):
    """Softmax over the channel dim of a (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)


class Hardtanh(Module):
    """Clamp to [min_val, max_val] (``min_value``/``max_value`` are the deprecated names)."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value=None, max_value=None) -> None:
        super().__init__()
        if min_value is not None:
            min_val = min_value
        if max_value is not None:
            max_val = max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        assert self.max_val > self.min_val

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        suffix = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{suffix}"


class ReLU6(Hardtanh):
    """min(max(0, x), 6)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class RReLU(Module):
    """Randomized leaky ReLU: random slopes in training, their mean in evaluation."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        suffix = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{suffix}"


class PReLU(Module):
    """Leaky ReLU with a learned slope per channel (or one shared slope)."""

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:
        import jtorch

        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(jtorch.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
