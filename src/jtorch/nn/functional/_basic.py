"""torch.nn.functional: linear maps, embeddings, one_hot, normalize and distances."""

from __future__ import annotations

import numpy as np

import jtorch
from jtorch.eager.autograd import grad_mode
from jtorch.eager.bind import bound

from ._sparse_grad import SparseEmbedding, SparseEmbeddingBag

__all__ = [
    "linear", "bilinear", "embedding", "embedding_bag", "one_hot", "normalize",
    "cosine_similarity", "pairwise_distance", "pdist",
]

pdist = bound("pdist")


def linear(input, weight, bias=None):
    """y = input @ weight.T + bias."""
    return bound("linear")(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    """y = input1^T weight input2 + bias, per output feature."""
    return bound("bilinear")(input1, input2, weight, bias)


def _padding_idx(padding_idx, rows: int) -> int:
    if padding_idx is None:
        return -1
    if padding_idx > 0:
        assert padding_idx < rows, "Padding_idx must be within num_embeddings"
    elif padding_idx < 0:
        assert padding_idx >= -rows, "Padding_idx must be within num_embeddings"
        padding_idx = rows + padding_idx
    return padding_idx


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False):
    """Rows of ``weight``; ``max_norm`` renormalizes the looked-up rows of ``weight`` in place.

    ``sparse=True`` makes ``weight``'s gradient a sparse COO tensor, as PyTorch's.
    """
    padding_idx = _padding_idx(padding_idx, weight.size(0))
    if max_norm is not None:
        input = input.contiguous()
        with grad_mode.no_grad():
            jtorch.embedding_renorm_(weight, input, max_norm, norm_type)
    if _sparse_grad(weight, sparse):
        return SparseEmbedding.apply(weight, input, padding_idx, scale_grad_by_freq)
    return jtorch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _bag_inputs(input, offsets, per_sample_weights, mode, include_last_offset):
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is "
                             "treated is a mini-batch of fixed length sequences. However, "
                             f"found offsets of type {type(offsets).__name__}")
        b, n = input.shape
        offsets = jtorch.arange(0, b * n, n, dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        include_last_offset = False
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        host = np.asarray(offsets._value)
        if host.size and host[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                               "mini-batch has to start from position 0. However, got "
                               f"{int(host[0])}")
        if host.size and host[-1] > input.numel():
            raise RuntimeError(f"offsets[-1] can not be greater than input's length "
                               f"({input.numel()}), but got offsets[-1] of {int(host[-1])}")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
            "on GitHub.")
    return input, offsets, per_sample_weights, include_last_offset


def _sparse_grad(weight, sparse) -> bool:
    """Whether this lookup records a sparse gradient for ``weight`` (see _sparse_grad.py)."""
    return sparse and weight.requires_grad and grad_mode.is_grad_enabled()


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights=None, include_last_offset: bool = False,
                  padding_idx=None):
    """Sums, means or maxima of bags of embedding rows (bags from ``offsets`` or the rows
    of a 2-D ``input``); ``padding_idx`` entries are left out of their bag.

    Differences from PyTorch: in mode "max" a tie shares the gradient between the tied rows;
    the sparse gradient of ``sparse=True`` is coalesced (see ``_sparse_grad.py``).
    """
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, but got {mode}")
    if max_norm is not None and mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    input, offsets, psw, last = _bag_inputs(input, offsets, per_sample_weights, mode,
                                            include_last_offset)
    padding_idx = _padding_idx(padding_idx, weight.size(0))
    if max_norm is not None:
        with grad_mode.no_grad():
            jtorch.embedding_renorm_(weight, input, max_norm, norm_type)
    def run(w):
        return bound("embedding_bag")(w, input, offsets.to(input.dtype), psw, mode=mode,
                                      padding_idx=padding_idx, include_last_offset=last,
                                      scale_grad_by_freq=scale_grad_by_freq)

    if _sparse_grad(weight, sparse):
        if scale_grad_by_freq:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with "
                               "sparse gradients")
        return SparseEmbeddingBag.apply(weight, input, run, padding_idx)
    return run(weight)


def one_hot(tensor, num_classes: int = -1):
    """int64 one-hot encoding along a new last dim; ``num_classes=-1`` uses max + 1."""
    if tensor.dtype is not jtorch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    host = np.asarray(tensor._value)
    if num_classes == -1:
        if host.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(host.max()) + 1
    if host.size and host.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if host.size and host.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return bound("one_hot")(tensor, int(num_classes))


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """``input`` divided by its p-norm over ``dim``, clamped below by ``eps``."""
    result = bound("normalize")(input, float(p), dim, eps)
    return result if out is None else out.copy_(result)


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    return jtorch.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    return jtorch.pairwise_distance(x1, x2, float(p), eps, keepdim)
