"""BatchNorm1d/2d/3d (and the shared _NormBase of the instance norms).

Initialized as PyTorch's: weight 1, bias 0, running_mean 0, running_var 1,
num_batches_tracked int64 0. ``momentum=None`` is a cumulative moving average.
"""

from __future__ import annotations

import jtorch

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _NormBase(Module):
    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(jtorch.empty(num_features, **kw))
            if bias:
                self.bias = Parameter(jtorch.empty(num_features, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", jtorch.zeros(num_features, **kw))
            self.register_buffer("running_var", jtorch.ones(num_features, **kw))
            self.register_buffer("num_batches_tracked",
                                 jtorch.tensor(0, dtype=jtorch.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self) -> str:
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
                "bias={use_bias}, track_running_stats={track_running_stats}".format(
                    **self.__dict__, use_bias=self.bias is not None))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and (
                key not in state_dict):
            state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                               else jtorch.tensor(0, dtype=jtorch.long))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    _dims: tuple = ()

    def _check_input_dim(self, input):
        if input.dim() not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.dim()}D input)")

    # Set on DataParallel's replica: (number of devices, batch dim). PyTorch runs one copy
    # per device, so each normalizes its own chunk with that chunk's statistics, and the
    # running statistics come from the first device's chunk.
    _replica_chunks: tuple | None = None

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        training = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        mean, var = (self.running_mean, self.running_var) if keep else (None, None)
        if training and self._replica_chunks is not None:
            n, dim = self._replica_chunks
            outs = [F.batch_norm(chunk, mean if i == 0 else None, var if i == 0 else None,
                                 self.weight, self.bias, True, factor, self.eps)
                    for i, chunk in enumerate(input.chunk(n, dim))]
            return jtorch.cat(outs, dim)
        return F.batch_norm(input, mean, var, self.weight, self.bias, training, factor,
                            self.eps)


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    _dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm whose training statistics span the process group (``process_group``,
    default the world) when ``torch.distributed`` is initialized; otherwise, and in eval,
    it is BatchNorm (per replica under DataParallel, as PyTorch).

    As PyTorch, synchronizing needs GPU inputs (CPU ones raise ValueError); the weight
    and bias gradients stay per rank (DistributedDataParallel averages them).
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group=None,
                 device=None, dtype=None, *, bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        import jtorch.distributed as dist

        if self.training and dist.is_available() and dist.is_initialized():
            if input.device.type != "cuda":
                raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or "
                                 "privateuseone")
            group = self.process_group or dist.group.WORLD
            if dist.get_world_size(group) > 1:
                return self._synchronized(input, group)
        return super().forward(input)

    def _synchronized(self, input, group):
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        stats = (self.running_mean, self.running_var) if self.track_running_stats else None
        return _SyncBatchNormFn.apply(input, self.weight, self.bias, stats, self.eps,
                                      factor, group)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*d replaced by a SyncBatchNorm holding the same
        parameters and buffers (the module itself when it is one)."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group)
            if module.affine:
                with jtorch.no_grad():
                    out.weight, out.bias = module.weight, module.bias
            out.running_mean, out.running_var = module.running_mean, module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return out


def _channel_sums(*tensors):
    """Per-channel sums of each (N, C, *) tensor: over every dim but 1."""
    dims = [0, *range(2, tensors[0].dim())]
    return [t.sum(dims) for t in tensors]


def _per_channel(v, like):
    return v.reshape(1, -1, *([1] * (like.dim() - 2)))


class _SyncBatchNormFn(jtorch.autograd.Function):
    """PyTorch's sync_batch_norm: batch statistics and their gradients all-reduced over
    the group (sums and the element count, so ranks may hold different batch sizes)."""

    @staticmethod
    def forward(ctx, input, weight, bias, stats, eps, momentum, group):
        import jtorch.distributed as dist

        x = input.detach()
        c = x.size(1)
        total, squares = _channel_sums(x, x * x)
        counts = jtorch.full((1,), x.numel() // max(c, 1), dtype=x.dtype, device=x.device)
        packed = jtorch.cat([total, squares, counts])
        dist.all_reduce(packed, group=group)
        n = float(packed[-1])
        mean = packed[:c] / n
        var = (packed[c:2 * c] / n - mean * mean).clamp_min(0)
        invstd = (var + eps).rsqrt()
        if stats is not None:
            with jtorch.no_grad():
                stats[0].mul_(1 - momentum).add_(mean.to(stats[0].dtype), alpha=momentum)
                unbiased = var * (n / (n - 1)) if n > 1 else var
                stats[1].mul_(1 - momentum).add_(unbiased.to(stats[1].dtype), alpha=momentum)
        xhat = (x - _per_channel(mean, x)) * _per_channel(invstd, x)
        ctx.save_for_backward(xhat, invstd, weight)
        ctx.n, ctx.group = n, group
        out = xhat
        if weight is not None:
            out = out * _per_channel(weight.detach(), x)
        if bias is not None:
            out = out + _per_channel(bias.detach(), x)
        return out

    @staticmethod
    def backward(ctx, grad):
        import jtorch.distributed as dist

        xhat, invstd, weight = ctx.saved_tensors
        c = xhat.size(1)
        sum_dy, sum_dy_xhat = _channel_sums(grad, grad * xhat)
        packed = jtorch.cat([sum_dy, sum_dy_xhat])
        dist.all_reduce(packed, group=ctx.group)
        mean_dy = _per_channel(packed[:c] / ctx.n, xhat)
        mean_dy_xhat = _per_channel(packed[c:] / ctx.n, xhat)
        scale = invstd if weight is None else invstd * weight.detach()
        grad_input = (grad - mean_dy - xhat * mean_dy_xhat) * _per_channel(scale, xhat)
        grad_weight = sum_dy_xhat if weight is not None else None
        grad_bias = sum_dy if ctx.needs_input_grad[2] else None
        return grad_input, grad_weight, grad_bias, None, None, None, None
