"""Moving tensors between devices: ``jax.device_put``, recorded for autograd.

A tensor's device is where its JAX array lives (``Tensor.device`` reads it off the array),
so moving a tensor is moving its array. The move is PyTorch's ``ToCopyBackward0`` for
autograd: the gradient goes back to where the input was. Transfers are asynchronous, as
all of JAX's work is; ``non_blocking`` is accepted and changes nothing.
"""

from __future__ import annotations

import jax

from .. import _device as _dev
from .._device import device as Device
from .autograd.function import Function
from .tensor import Tensor, wrap


class _ToCopy(Function):
    """``jax.device_put`` to a device or sharding; the gradient goes back where x was."""

    @staticmethod
    def forward(ctx, x, target):
        value = x._value
        ctx.source = value.sharding if isinstance(value, jax.Array) else _dev.cpu_device()
        return wrap(jax.device_put(value, target))

    @staticmethod
    def backward(ctx, grad):
        return wrap(jax.device_put(grad._value, ctx.source)), None


def transfer(t: Tensor, target) -> Tensor:
    """``t`` copied onto ``target`` (a JAX device or sharding), differentiably."""
    out = _ToCopy.apply(t, target)
    if out._grad_fn is not None:
        out._grad_fn._name = "ToCopyBackward0"
    return out


def to_device(t: Tensor, dev: Device, copy: bool = False, non_blocking: bool = False) -> Tensor:
    """``t`` on torch device ``dev``: ``t`` itself when it is there already (and no copy).

    Arriving on the CPU waits for the value unless ``non_blocking``, as PyTorch's copy to
    the host does (so ``x.cpu()`` after queued work is a synchronization point).
    """
    dev = _dev.resolve(dev)
    out = t if t._device == dev and not copy else transfer(t, _dev.jax_device(dev))
    if dev.type == "cpu" and not non_blocking:
        jax.block_until_ready(out._value)
    return out
