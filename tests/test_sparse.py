"""Sparse COO tensors, differential against PyTorch (values, patterns, flags, repr, grads)."""

from __future__ import annotations

import pytest
from conftest import check

pytestmark = [pytest.mark.filterwarnings("ignore:Sparse invariant checks"),
              pytest.mark.filterwarnings("ignore:torch.sparse.SparseTensor")]

I = [[0, 1, 1, 0], [2, 0, 2, 2]]  # (0, 2) twice: uncoalesced
V = [3.0, 4.0, 5.0, 6.0]


def parts(s):
    """Everything a sparse tensor shows, as comparable pieces."""
    return (s._indices(), s._values(), s.shape, s.is_coalesced(), str(s.layout), s.sparse_dim(),
            s.dense_dim(), s._nnz(), s.dtype, s.is_sparse, repr(s))


def coo(torch, dtype=None, **kw):
    return torch.sparse_coo_tensor(torch.tensor(I), torch.tensor(V, dtype=dtype), (2, 3), **kw)


def hybrid(torch):
    values = torch.arange(9.0).reshape(3, 3)
    return torch.sparse_coo_tensor(torch.tensor([[0, 1, 1]]), values, (2, 3))


def dense(torch):
    return torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]])


CASES = {
    "construct": lambda torch: coo(torch),
    "float64": lambda torch: coo(torch, torch.float64),
    "int_values": lambda torch: torch.sparse_coo_tensor(I, [1, 2, 3, 4], (2, 3)),
    "infer_size": lambda torch: torch.sparse_coo_tensor(torch.tensor(I), torch.tensor(V)),
    "one_nnz": lambda torch: torch.sparse_coo_tensor([[1], [2]], [7.0], (2, 3)),
    "empty": lambda torch: torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.long),
                                                   torch.zeros(0), (2, 3)),
    "asserted_coalesced": lambda torch: torch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,),
                                                                is_coalesced=True),
    "legacy": lambda torch: torch.sparse.FloatTensor(torch.tensor(I), torch.tensor(V),
                                                     torch.Size([2, 3])),
    "legacy_empty": lambda torch: torch.sparse.DoubleTensor(2, 3),
    "hybrid": hybrid,
    "coalesce": lambda torch: coo(torch).coalesce(),
    "hybrid_coalesce": lambda torch: hybrid(torch).coalesce(),
    "transpose": lambda torch: coo(torch).transpose(0, 1),
    "t_coalesced": lambda torch: coo(torch).coalesce().t(),
    "t_twice": lambda torch: coo(torch).t().t(),
    "hybrid_dense_transpose": lambda torch: torch.sparse_coo_tensor(
        torch.tensor([[0, 1]]), torch.arange(12.0).reshape(2, 2, 3), (2, 2, 3)).transpose(1, 2),
    "mul_scalar": lambda torch: coo(torch) * 2,
    "rmul_scalar": lambda torch: 2.5 * coo(torch),
    "mul_0d": lambda torch: coo(torch).mul(torch.tensor(3.0)),
    "mul_dense": lambda torch: coo(torch) * dense(torch),
    "div_scalar": lambda torch: coo(torch) / 2,
    "int_div": lambda torch: torch.sparse_coo_tensor(I, [1, 2, 3, 4], (2, 3)) / 2,
    "neg": lambda torch: -coo(torch),
    "add_same_pattern": lambda torch: coo(torch) + coo(torch),
    "add_uncoalesced": lambda torch: coo(torch) + torch.sparse_coo_tensor(
        torch.tensor(I)[:, :3], torch.tensor(V)[:3], (2, 3)),
    "add_coalesced": lambda torch: coo(torch).coalesce() + dense(torch).to_sparse(),
    "add_mixed": lambda torch: coo(torch).add(dense(torch).to_sparse(), alpha=2),
    "add_unsorted": lambda torch: torch.sparse_coo_tensor([[1, 0]], [1.0, 2.0], (2,)) + (
        torch.sparse_coo_tensor([[0]], [5.0], (2,))),
    "add_promotes": lambda torch: coo(torch, torch.float64) + dense(torch).to_sparse(),
    "add_empty": lambda torch: coo(torch) + torch.sparse_coo_tensor(
        torch.zeros(2, 0, dtype=torch.long), torch.zeros(0), (2, 3)),
    "sub": lambda torch: coo(torch) - dense(torch).to_sparse(),
    "sparse_sum_dim0": lambda torch: torch.sparse.sum(coo(torch), 0),
    "sparse_sum_dim1": lambda torch: torch.sparse.sum(coo(torch), -1),
    "hybrid_sum_dense_dim": lambda torch: torch.sparse.sum(hybrid(torch), 1),
    "method_sum_dim": lambda torch: coo(torch).sum(0),
    "to_sparse": lambda torch: dense(torch).to_sparse(),
    "to_sparse_dim1": lambda torch: dense(torch).to_sparse(1),
    "to_sparse_zeros": lambda torch: torch.zeros(2, 3).to_sparse(),
    "to_sparse_of_sparse": lambda torch: coo(torch).to_sparse(),
    "sparse_mask": lambda torch: dense(torch).sparse_mask(coo(torch)),
    "sparse_mask_coalesced": lambda torch: dense(torch).sparse_mask(coo(torch).coalesce()),
    "to_double": lambda torch: coo(torch).double(),
    "to_dtype": lambda torch: coo(torch).to(torch.float64),
    "sparse_sparse_mm": lambda torch: torch.sparse.mm(coo(torch), dense(torch).t().to_sparse()),
    "requires_grad": lambda torch: coo(torch, requires_grad=True),
    "abs_coalesces": lambda torch: abs(coo(torch) * -1),
    "torch_sin": lambda torch: torch.sin(coo(torch)),
    "square": lambda torch: coo(torch).square(),
    "pow": lambda torch: torch.pow(coo(torch), 2),
    "signbit": lambda torch: (-coo(torch)).signbit(),
}


# The samples both libraries reject, by test id, and the exception class.
_STRUCTURE_ERRORS = {
    'hybrid_dense_transpose': RuntimeError,
}


@pytest.mark.parametrize("case", CASES)
def test_sparse_structure(case, request):
    check(lambda torch: parts(CASES[case](torch)),
          raises=_STRUCTURE_ERRORS.get(request.node.callspec.id))


DENSE_RESULTS = {
    "to_dense": lambda torch: coo(torch).to_dense(),
    "hybrid_to_dense": lambda torch: hybrid(torch).to_dense(),
    "dense_plus_sparse": lambda torch: dense(torch) + coo(torch),
    "torch_add_dense_sparse": lambda torch: torch.add(dense(torch), coo(torch), alpha=3),
    "method_add_dense_sparse": lambda torch: dense(torch).add(coo(torch)),
    "sum": lambda torch: torch.sparse.sum(coo(torch)),
    "method_sum": lambda torch: coo(torch).sum(),
    "sum_dtype": lambda torch: torch.sparse.sum(coo(torch), dtype=torch.float64),
    "sum_all_dims": lambda torch: torch.sparse.sum(coo(torch), (0, 1)),
    "hybrid_sum_sparse_dim": lambda torch: torch.sparse.sum(hybrid(torch), 0),
    "sparse_mm": lambda torch: torch.sparse.mm(coo(torch), dense(torch).t()),
    "torch_mm": lambda torch: torch.mm(coo(torch), torch.ones(3, 2)),
    "spmm": lambda torch: torch.spmm(coo(torch), dense(torch).t()),
    "matmul_operator": lambda torch: coo(torch) @ dense(torch).t(),
    "dense_mm_sparse": lambda torch: dense(torch).t().mm(coo(torch)),
    "dense_matmul_sparse": lambda torch: dense(torch).t() @ coo(torch),
    "sparse_sparse_mm_dense": lambda torch: torch.sparse.mm(
        coo(torch), dense(torch).t().to_sparse()).to_dense(),
    "roundtrip": lambda torch: dense(torch).to_sparse().to_dense(),
    "sparse_addmm": lambda torch: torch.sparse.addmm(torch.ones(2, 2), coo(torch),
                                                     dense(torch).t(), beta=2, alpha=3),
}


@pytest.mark.parametrize("case", DENSE_RESULTS)
def test_sparse_dense_results(case):
    check(lambda torch: (lambda r: (r, r.layout == torch.strided))(DENSE_RESULTS[case](torch)))


ERRORS = {
    "uncoalesced_indices": lambda torch: coo(torch).indices(),
    "uncoalesced_values": lambda torch: coo(torch).values(),
    "sparse_plus_dense": lambda torch: coo(torch) + dense(torch),
    "torch_add_sparse_dense": lambda torch: torch.add(coo(torch), dense(torch)),
    "sparse_plus_scalar": lambda torch: coo(torch) + 1,
    "add_size_mismatch": lambda torch: coo(torch) + torch.sparse_coo_tensor(I, V, (2, 4)),
    "nnz_mismatch": lambda torch: torch.sparse_coo_tensor(torch.tensor(I), torch.ones(3), (2, 3)),
    "size_len": lambda torch: torch.sparse_coo_tensor(torch.tensor(I), torch.ones(4), (2, 3, 4)),
    "values_shape": lambda torch: torch.sparse_coo_tensor(torch.tensor(I), torch.ones(4, 2),
                                                          (2, 3, 3)),
    "indices_1d": lambda torch: torch.sparse_coo_tensor(torch.tensor(I[0]), torch.ones(4), (3,)),
    "mm_shape": lambda torch: torch.mm(coo(torch), torch.ones(2, 2)),
    "mm_dtype": lambda torch: torch.mm(coo(torch), torch.ones(3, 2, dtype=torch.float64)),
    "mm_1d": lambda torch: torch.sparse.mm(coo(torch), torch.ones(3)),
    "transpose_mixed": lambda torch: hybrid(torch).transpose(0, 1),
    "to_sparse_other_dim": lambda torch: coo(torch).to_sparse(1),
    "dense_op": lambda torch: coo(torch).exp(),
    "nnz_attribute": lambda torch: coo(torch).nnz,
}


@pytest.mark.parametrize("case", ERRORS)
def test_sparse_errors(case):
    e, a = check(ERRORS[case], raises=Exception)
    if case.startswith("uncoalesced") or case.endswith("_dense") or case == "mm_shape":
        assert str(a) == str(e)


def _grads_sparse_mm(torch, op):
    values = torch.tensor(V, dtype=torch.float64, requires_grad=True)
    d = torch.tensor([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]], dtype=torch.float64,
                     requires_grad=True)
    s = torch.sparse_coo_tensor(torch.tensor(I), values, (2, 3))
    out = op(torch)(s, d)
    (out * torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)).sum().backward()
    return out, values.grad, d.grad, s.requires_grad, s.is_leaf


@pytest.mark.parametrize("op", ["sparse.mm", "spmm", "mm", "matmul"])
def test_grad_wrt_values_and_dense(op):
    ops = {"sparse.mm": lambda torch: torch.sparse.mm, "spmm": lambda torch: torch.spmm,
           "mm": lambda torch: torch.mm, "matmul": lambda torch: lambda a, b: a @ b}
    check(lambda torch: _grads_sparse_mm(torch, ops[op]))


@pytest.mark.parametrize("coalesced", [False, True])
def test_grad_of_sparse_leaf(coalesced):
    def prog(torch):
        s = torch.sparse_coo_tensor(torch.tensor(I), torch.tensor(V), (2, 3), requires_grad=True)
        s = s.coalesce().detach().requires_grad_() if coalesced else s
        d = torch.tensor([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]], requires_grad=True)
        torch.sparse.mm(s, d).pow(2).sum().backward()
        return (s.is_leaf, s.grad.layout == torch.sparse_coo, s.grad.to_dense(),
                s.grad.is_coalesced(), d.grad)

    check(prog)


def test_grad_through_to_dense_coalesce_and_mask():
    def prog(torch):
        v = torch.tensor(V, requires_grad=True)
        x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        s = torch.sparse_coo_tensor(torch.tensor(I), v, (2, 3))
        y = (s.coalesce().to_dense() * x).sum() + torch.sparse.sum(s * 2) + (
            x.sparse_mask(s.coalesce()).to_dense() ** 2).sum() + (x + s).sum()
        y.backward()
        return y, v.grad, x.grad

    check(prog)


def test_values_share_and_detach(tt):
    v = tt.tensor(V)
    s = tt.sparse_coo_tensor(tt.tensor(I), v, (2, 3))
    s.requires_grad_()
    assert s.requires_grad and s.is_leaf and not v.requires_grad
    assert not s.detach().requires_grad
    assert s.device == tt.device("cpu") and s.layout is tt.sparse_coo
    assert tt.ones(2).layout is tt.strided and repr(tt.sparse_coo) == "torch.sparse_coo"
