"""Shared inputs for the autograd suites: fixed arrays and a leaf that requires grad."""

from __future__ import annotations

import numpy as np

RNG = np.random.default_rng(0)
A23 = RNG.standard_normal((2, 3)).astype(np.float32)
B23 = RNG.standard_normal((2, 3)).astype(np.float32)
A3 = RNG.standard_normal(3).astype(np.float32)
A33 = RNG.standard_normal((3, 3)).astype(np.float32)


def _x(torch, arr=A23, dtype=None):
    """A leaf tensor of ``arr`` requiring grad, in whichever library ``torch`` is."""
    return torch.tensor(arr, dtype=dtype, requires_grad=True)
