"""torch.smm/hspmm/dsmm/hsmm/sspaddmm/saddmm and slice_inverse against PyTorch."""

from __future__ import annotations

import pytest
from conftest import check

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


def _s(t):
    return t.sparse_coo_tensor(t.tensor([[0, 1, 1], [2, 0, 2]]), t.tensor([3.0, 4.0, 5.0]),
                               (3, 3))


@pytest.mark.parametrize("call", [
    lambda t: t.smm(_s(t), t.arange(6.0).reshape(3, 2)),
    lambda t: _s(t).smm(t.arange(6.0).reshape(3, 2)),
    lambda t: t.hspmm(_s(t), t.arange(6.0).reshape(3, 2)),
    lambda t: t.hsmm(_s(t), t.arange(6.0).reshape(3, 2)),
    lambda t: t.dsmm(_s(t), t.arange(6.0).reshape(3, 2)),
    lambda t: t.sspaddmm(_s(t), _s(t), t.ones(3, 3), beta=2, alpha=3),
    lambda t: t.saddmm(_s(t), _s(t), t.ones(3, 3)),
    lambda t: _s(t).sspaddmm(_s(t), t.ones(3, 3)),
], ids=["smm", "smm-method", "hspmm", "hsmm", "dsmm", "sspaddmm", "saddmm", "sspaddmm-method"])
def test_sparse_products(call):
    def prog(t):
        r = call(t)
        sparse = r.is_sparse
        return sparse, r.to_dense() if sparse else r, r.sparse_dim() if sparse else None

    check(prog)


def test_slice_inverse():
    def prog(t):
        base = t.arange(6.0)
        v = t.slice_inverse(base[2:], base, 0, 2)
        w = base[1:].slice_inverse(base.view(2, 3), 0)
        return v, v.stride(), w, w.stride(), w.storage_offset()

    check(prog)
