"""Lazy modules: one mechanism (``LazyModuleMixin``) infers the input-dependent sizes on the
first forward, materializes the ``UninitializedParameter``/``Buffer`` placeholders, and then
turns the module into its ordinary class (LazyConv2d -> Conv2d), as PyTorch's.

Loading a state_dict into a lazy module materializes its placeholders with the loaded
shapes; ``state_dict()`` of a lazy module holds the placeholders themselves.
"""

from __future__ import annotations

import itertools

import jtorch

from ...eager.autograd import grad_mode
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
from .conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
    _Conv,
    _ConvTranspose,
)
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .linear import Linear

__all__ = [
    "LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d",
    "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class LazyModuleMixin:
    """Modules whose parameters are inferred from the first input (PyTorch's mixin)."""

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # Placeholders go in as themselves: a detached alias would lose their laziness.
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars \
                    else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        """Materialize placeholders with the shapes of the initialized tensors being loaded."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                input_param = state_dict[key]
                if not is_lazy(input_param):
                    with grad_mode.no_grad():
                        param.materialize(input_param.shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(p) for p in itertools.chain(self._parameters.values(),
                                                        self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run a "
            "dummy forward pass to correctly initialize the modules")


# ------------------------------------------------------------------ linear


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose ``in_features`` is read from the first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(0, 0, False)  # no bias tensor that would be thrown away at once
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with grad_mode.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialized by load_state_dict: in_features is still 0
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                    f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


# ------------------------------------------------------------------ convolutions


class _LazyConvXdMixin(LazyModuleMixin):
    def _lazy_placeholders(self, out_channels, bias, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            io = (self.in_channels, self.out_channels // self.groups) if self.transposed \
                else (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize((*io, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        n = self._n + 1
        if input.dim() not in (n, n + 1):
            raise RuntimeError(f"Expected {n}D (unbatched) or {n + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: "
                               f"{input.shape}")
        return input.shape[1] if input.dim() == n + 1 else input.shape[0]


class _LazyConv(_LazyConvXdMixin, _Conv):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        self._lazy_placeholders(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin, _ConvTranspose):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros",
                 device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self._lazy_placeholders(out_channels, bias, device, dtype)


def _lazy(mixin, base, target, copied=()):
    """``Lazy<target>``: ``mixin`` over ``base``, becoming ``target`` once initialized."""
    name = f"Lazy{target.__name__}"
    attrs = {"cls_to_become": target, "__module__": __name__, "__qualname__": name,
             **{a: getattr(target, a) for a in copied}}
    return type(name, (mixin, base), attrs)


LazyConv1d = _lazy(_LazyConv, Conv1d, Conv1d)
LazyConv2d = _lazy(_LazyConv, Conv2d, Conv2d)
LazyConv3d = _lazy(_LazyConv, Conv3d, Conv3d)
LazyConvTranspose1d = _lazy(_LazyConvTranspose, ConvTranspose1d, ConvTranspose1d)
LazyConvTranspose2d = _lazy(_LazyConvTranspose, ConvTranspose2d, ConvTranspose2d)
LazyConvTranspose3d = _lazy(_LazyConvTranspose, ConvTranspose3d, ConvTranspose3d)


# ------------------------------------------------------------------ normalization


class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True) -> None:
        # No affine parameters or running stats yet: they would be thrown away at once.
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = jtorch.tensor(0, dtype=jtorch.long, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            shape = (self.num_features,)
            for t in (self.weight, self.bias, self.running_mean, self.running_var):
                if t is not None and is_lazy(t):
                    t.materialize(shape)
            self.reset_parameters()


# As PyTorch's, a LazyBatchNorm2d is a _BatchNorm but not a BatchNorm2d.
LazyBatchNorm1d = _lazy(_LazyNormBase, _BatchNorm, BatchNorm1d, ("_dims",))
LazyBatchNorm2d = _lazy(_LazyNormBase, _BatchNorm, BatchNorm2d, ("_dims",))
LazyBatchNorm3d = _lazy(_LazyNormBase, _BatchNorm, BatchNorm3d, ("_dims",))
LazyInstanceNorm1d = _lazy(_LazyNormBase, _InstanceNorm, InstanceNorm1d, ("_no_batch_dim",))
LazyInstanceNorm2d = _lazy(_LazyNormBase, _InstanceNorm, InstanceNorm2d, ("_no_batch_dim",))
LazyInstanceNorm3d = _lazy(_LazyNormBase, _InstanceNorm, InstanceNorm3d, ("_no_batch_dim",))
