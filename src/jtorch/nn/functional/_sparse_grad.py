"""``sparse=True`` for embeddings: the weight's gradient as a sparse COO tensor.

An autograd.Function runs the dense lookup and returns a sparse gradient for the weight;
the engine keeps sparse gradients sparse where PyTorch does (``engine._accumulate_sparse``).
``embedding`` gives PyTorch's layout exactly: one uncoalesced entry per looked-up index
(``padding_idx`` entries dropped), valued by that lookup's output gradient.

Differences from PyTorch: ``embedding_bag``'s sparse gradient is coalesced (one entry per
distinct looked-up row, the sum of PyTorch's entries for it), so ``to_dense()`` and
``coalesce()`` agree with PyTorch while ``_nnz()`` and ``_indices()`` do not.
"""

from __future__ import annotations

import jtorch
from jtorch.eager.autograd.function import Function


class SparseEmbedding(Function):
    @staticmethod
    def forward(ctx, weight, input, padding_idx, scale_grad_by_freq):
        if scale_grad_by_freq:  # PyTorch raises this in backward; no gradient is ever right
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with "
                               "sparse gradients")
        ctx.save_for_backward(input)
        ctx.meta = (tuple(weight.shape), padding_idx)
        return jtorch.embedding(weight, input, padding_idx, False, False)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        shape, padding_idx = ctx.meta
        index, values = input.reshape(-1), grad.reshape(-1, shape[1])
        if padding_idx >= 0:
            keep = index != padding_idx
            index, values = index[keep], values[keep]
        return jtorch.sparse_coo_tensor(index[None], values, shape), None, None, None


class SparseEmbeddingBag(Function):
    """The bag's dense weight gradient, kept on the rows the bags looked up."""

    @staticmethod
    def forward(ctx, weight, input, run, padding_idx):
        ctx.save_for_backward(weight, input)
        ctx.run, ctx.padding_idx = run, padding_idx
        return run(weight)

    @staticmethod
    def backward(ctx, grad):
        weight, input = ctx.saved_tensors
        with jtorch.enable_grad():
            w = weight.detach().requires_grad_()
            (dense,) = jtorch.autograd.grad(ctx.run(w), w, grad)
        rows = jtorch.unique(input.reshape(-1))
        if ctx.padding_idx >= 0:
            rows = rows[rows != ctx.padding_idx]
        return (jtorch.sparse_coo_tensor(rows[None], dense[rows], dense.shape), None, None,
                None)
