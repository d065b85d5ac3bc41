"""The torch-namespace (ATen) forms of neural-network functions: the losses with an integer
``reduction`` (0 none, 1 mean, 2 sum), ``convolution``, ``grid_sampler*``, and the
``native_*`` kernels that also return their saved statistics. Each delegates to
``torch.nn.functional`` (imported when called: the namespaces sit above this module)."""

from __future__ import annotations

import math

import numpy as np

from ..eager.tensor import Tensor

__all__ = ["binary_cross_entropy_with_logits", "conv_tbc", "convolution", "cosine_embedding_loss",
           "ctc_loss", "embedding_bag", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "gru",
           "hinge_embedding_loss", "kl_div", "lstm", "margin_ranking_loss", "native_batch_norm",
           "native_channel_shuffle", "native_dropout", "native_group_norm",
           "native_layer_norm", "poisson_nll_loss", "rnn_relu", "rnn_tanh",
           "triplet_margin_loss"]


def _F():
    from ..nn import functional

    return functional


def conv_tbc(input, weight, bias, pad=0) -> Tensor:
    return _F().conv_tbc(input, weight, bias, pad)


def _reduction(r) -> str:
    """ATen's rule: 1 averages, 2 sums, anything else reduces nothing."""
    return {1: "mean", 2: "sum"}.get(r, "none")


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=1) -> Tensor:
    return _F().binary_cross_entropy_with_logits(input, target, weight, pos_weight=pos_weight,
                                                 reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1) -> Tensor:
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_reduction(reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False) -> Tensor:
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         _reduction(reduction), zero_infinity)


def hinge_embedding_loss(input, target, margin=1.0, reduction=1) -> Tensor:
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def kl_div(input, target, reduction=1, *, log_target=False) -> Tensor:
    """The pointwise KL divergence; ``mean`` averages over every element (no warning: the
    batch-mean advice is nn.functional's)."""
    loss = _F().kl_div(input, target, reduction="none", log_target=log_target)
    r = _reduction(reduction)
    return loss if r == "none" else loss.mean() if r == "mean" else loss.sum()


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1) -> Tensor:
    return _F().margin_ranking_loss(input1, input2, target, margin,
                                    reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction) -> Tensor:
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=1) -> Tensor:
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_reduction(reduction))


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups) -> Tensor:
    """N-d (transposed) convolution, N from the weight's dims."""
    n = weight.dim() - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"jtorch supports 1-d, 2-d and 3-d convolutions, got weight of "
                           f"{weight.dim()} dims")
    F = _F()
    if transposed:
        return getattr(F, f"conv_transpose{n}d")(input, weight, bias, stride, padding,
                                                 output_padding, groups, dilation)
    return getattr(F, f"conv{n}d")(input, weight, bias, stride, padding, dilation, groups)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor:
    """``grid_sample`` with its modes as integers (bilinear/nearest/bicubic and
    zeros/border/reflection)."""
    return _F().grid_sample(input, grid, mode=("bilinear", "nearest", "bicubic")[
        interpolation_mode], padding_mode=("zeros", "border", "reflection")[padding_mode],
        align_corners=align_corners)


def _grid_sampler_nd(n: int):
    def fn(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor:
        if input.dim() != n + 2:
            raise RuntimeError(f"grid_sampler(): expected {n + 2}D input and grid with same "
                               f"number of dimensions, but got input with sizes "
                               f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
        return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)

    fn.__name__ = f"grid_sampler_{n}d"
    return fn


grid_sampler_2d, grid_sampler_3d = _grid_sampler_nd(2), _grid_sampler_nd(3)


def native_channel_shuffle(input, groups) -> Tensor:
    return _F().native_channel_shuffle(input, groups)


# ------------------------------------------------------------------ native_* kernels


def native_dropout(input, p, train) -> tuple:
    """(output, keep mask); not training (``train`` False) keeps everything."""
    import jtorch

    if train is False:
        return input.clone(), jtorch.ones_like(input, dtype=jtorch.bool)
    keep = jtorch.rand_like(input) >= p
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    return input * keep * scale, keep


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                      eps) -> tuple:
    """(output, batch mean, batch 1/std) in training (running stats updated), else
    (output, empty, empty)."""
    out = _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                          eps)
    if not training:
        empty = input.new_zeros((0,))
        return out, empty, empty.clone()
    dims = [0, *range(2, input.dim())]
    mean = input.mean(dims)
    var = input.var(dims, unbiased=False)
    return out, mean, (var + eps).rsqrt()


def native_layer_norm(input, normalized_shape, weight, bias, eps) -> tuple:
    """(output, mean, 1/std) with the statistics' normalized dims kept as size one."""
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    mean = input.mean(dims, keepdim=True)
    rstd = (input.var(dims, unbiased=False, keepdim=True) + eps).rsqrt()
    return _F().layer_norm(input, normalized_shape, weight, bias, eps), mean, rstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> tuple:
    """(output, mean, 1/std), the statistics of shape (N, group)."""
    if math.prod(input.shape) != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements, but got "
                           f"{input.numel()}")
    grouped = input.reshape(N, group, -1)
    mean = grouped.mean(-1)
    rstd = (grouped.var(-1, unbiased=False) + eps).rsqrt()
    return _F().group_norm(input, group, weight, bias, eps), mean, rstd


# ------------------------------------------------------------------ RNN stacks


def _layers(mode, x, hx, params, lengths, has_biases, num_layers, dropout, train,
            bidirectional, batch_first):
    """(output, *final states) of a stack: in one kernel, or layer by layer when dropout
    applies between layers."""
    from ..eager.bind import bound

    run = bound("_rnn")
    kw = dict(mode=mode, bidirectional=bidirectional, batch_first=batch_first,
              has_biases=has_biases)
    extra = () if lengths is None else (lengths,)
    if not (train and dropout > 0 and num_layers > 1):
        return run(x, hx, params, *extra, num_layers=num_layers, **kw)
    dirs = 2 if bidirectional else 1
    per = len(params) // (num_layers * dirs)
    states = [[] for _ in hx]
    for layer in range(num_layers):
        rows = slice(layer * dirs, (layer + 1) * dirs)
        x, *finals = run(x, tuple(h[rows] for h in hx), params[layer * dirs * per:][:dirs * per],
                         *extra, num_layers=1, **kw)
        if layer + 1 < num_layers:
            x = _F().dropout(x, dropout, True)
        for kept, h in zip(states, finals, strict=True):
            kept.append(h)
    import jtorch

    return (x, *(jtorch.cat(kept) for kept in states))


def _rnn_kernel(mode: str, name: str):
    """``torch.lstm``/``gru``/``rnn_tanh``/``rnn_relu``: (input, hx, params, has_biases,
    num_layers, dropout, train, bidirectional, batch_first), or the packed form (data,
    batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)."""

    def fn(input, *args):
        if len(args) > 2 and isinstance(args[2], list | tuple):  # (data, batch_sizes, hx, ...)
            return _packed(mode, input, *args)
        hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
        hx = tuple(hx) if mode == "LSTM" else (hx,)
        return _layers(mode, input, hx, tuple(params), None, has_biases, num_layers, dropout,
                       train, bidirectional, batch_first)

    fn.__name__ = name
    return fn


def _packed(mode, data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
            bidirectional):
    from ..nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

    padded, lengths = pad_packed_sequence(PackedSequence(data, batch_sizes))
    hx = tuple(hx) if mode == "LSTM" else (hx,)
    out = _layers(mode, padded, hx, tuple(params), lengths, has_biases, num_layers, dropout,
                  train, bidirectional, False)
    return (pack_padded_sequence(out[0], lengths).data, *out[1:])


lstm = _rnn_kernel("LSTM", "lstm")
gru = _rnn_kernel("GRU", "gru")
rnn_tanh = _rnn_kernel("RNN_TANH", "rnn_tanh")
rnn_relu = _rnn_kernel("RNN_RELU", "rnn_relu")


# ------------------------------------------------------------------ embedding_bag


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None) -> tuple:
    """``(output, offset2bag, bag_size, max_indices)``: nn.functional.embedding_bag's result
    with mode 0/1/2 (sum/mean/max), and the bookkeeping PyTorch's kernel returns beside it
    (empty/zeros for sum; the bag of each index, bag sizes without padding, and for max the
    row each maximum came from)."""
    import jtorch

    if per_sample_weights is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    out = _F().embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq,
                             mode=("sum", "mean", "max")[mode], sparse=sparse,
                             per_sample_weights=per_sample_weights,
                             include_last_offset=include_last_offset, padding_idx=padding_idx)
    nb = out.shape[0]
    idx = np.asarray(indices._value).reshape(-1)
    bounds = [*np.asarray(offsets._value).tolist()][:nb] + [idx.size]
    bag_of = np.repeat(np.arange(nb), np.diff(bounds))
    as_tensor = lambda a: jtorch.tensor(np.asarray(a, np.int64))  # noqa: E731
    if mode == 0:
        zeros = jtorch.zeros(nb, dtype=jtorch.int64)
        # PyTorch's float32/16 CPU sum kernel skips the bag map; its generic one fills it.
        fast = weight.dtype in (jtorch.float32, jtorch.float16, jtorch.bfloat16)
        return out, as_tensor(bag_of[:0] if fast else bag_of), zeros, zeros.clone()
    valid = idx != padding_idx if padding_idx is not None else np.ones(idx.size, bool)
    sizes = np.bincount(bag_of[valid], minlength=nb)
    if mode == 1:
        return out, as_tensor(bag_of), as_tensor(sizes), as_tensor(sizes)
    rows = np.asarray(weight.detach()._value)[idx]
    best = np.zeros((nb, weight.shape[1]), np.int64)
    for b in range(nb):
        members = np.nonzero((bag_of == b) & valid)[0]
        if members.size:
            best[b] = idx[members[np.argmax(rows[members], axis=0)]]
    return out, as_tensor(bag_of), as_tensor(sizes), as_tensor(best)
