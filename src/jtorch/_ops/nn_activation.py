"""Activation functions. Those PyTorch exposes only in ``nn.functional`` are declared with
``function=False, method=False``; ``nn/functional/_activation.py`` wraps them with F's
exact signatures (the ``inplace=`` flags)."""

from __future__ import annotations

from .._registry import op
from ..functional import activation as A

_F = dict(function=False, method=False)  # reached through torch.nn.functional

op("relu", A.relu, inplace=True, saves="out", pointwise=True)
op("hardshrink", A.hardshrink, pointwise=True)
op("prelu", A.prelu, grad_name="PreluKernelBackward0")
op("selu", A.selu, method=False, saves="out", pointwise=True, grad_name="EluBackward0")
op("celu", A.celu, static=("alpha",), method=False, saves="out", pointwise=True)
op("threshold", A.threshold, method=False, pointwise=True)
op("softmax", A.softmax, static=("dim", "dtype"), saves="out")
op("log_softmax", A.log_softmax, static=("dim", "dtype"), saves="out")

op("hardtanh", A.hardtanh, pointwise=True, **_F)
op("leaky_relu", A.leaky_relu, pointwise=True, **_F)
op("rrelu", A.rrelu, pointwise=True, grad_name="RreluWithNoiseBackward0", **_F)
op("elu", A.elu, saves="out", pointwise=True, **_F)
op("gelu", A.gelu, static=("approximate",), pointwise=True, **_F)
for _name in ("silu", "mish", "hardswish", "hardsigmoid", "logsigmoid"):
    op(_name, getattr(A, _name), pointwise=True,
       grad_name="LogSigmoidBackward0" if _name == "logsigmoid" else "", **_F)
op("softshrink", A.softshrink, static=("lambd",), pointwise=True, **_F)
op("softplus", A.softplus, pointwise=True, **_F)
op("softsign", A.softsign, pointwise=True, grad_name="DivBackward0", **_F)
op("tanhshrink", A.tanhshrink, pointwise=True, grad_name="SubBackward0", **_F)
op("softmin", A.softmin, static=("dim", "dtype"), saves="out",
   grad_name="SoftmaxBackward0", **_F)
op("glu", A.glu, static=("dim",), **_F)
