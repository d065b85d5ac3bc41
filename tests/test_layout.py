"""Pointwise results take their inputs' memory order (PyTorch's TensorIterator rule)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

INPUTS = {
    "contiguous": lambda torch: torch.tensor(A),
    "transposed": lambda torch: torch.tensor(A).transpose(0, 2),
    "permuted": lambda torch: torch.tensor(A).permute(2, 0, 1),
    "expanded": lambda torch: torch.tensor(A[0, 0]).expand(2, 3, 4),
    "sliced": lambda torch: torch.tensor(A)[:, ::2],
    "clone_of_permuted": lambda torch: torch.tensor(A).permute(1, 2, 0).clone(),
}

OPS = {
    "exp": lambda torch, x: x.exp(),
    "add_scalar": lambda torch, x: x + 1,
    "self_add": lambda torch, x: x + x,
    "add_contiguous_right": lambda torch, x: x + torch.ones(x.shape),
    "add_contiguous_left": lambda torch, x: torch.ones(x.shape) + x,
    "broadcast_row": lambda torch, x: x * torch.ones(x.shape[-1]),
    "compare": lambda torch, x: x > 3,
    "where": lambda torch, x: torch.where(x > 3, x, 0.0),
    "masked_fill": lambda torch, x: x.masked_fill(x > 3, 0.0),  # a contiguous clone, filled
}


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("inp", INPUTS)
def test_pointwise_output_strides(inp, op):
    def prog(torch):
        out = OPS[op](torch, INPUTS[inp](torch))
        return out, out.stride(), out.is_contiguous()

    check(prog)


def test_reductions_and_views_of_pointwise_results():
    def prog(torch):
        y = torch.tensor(A).permute(2, 0, 1).exp()
        return y.sum(0), y.view(-1, 2, 3).shape if y.is_contiguous() else y.reshape(-1).shape

    check(prog)
