"""Matrix products, norms, triangles and diagonals (factorizations: linalg_decomp.py)."""

from __future__ import annotations

from .._registry import op
from ..functional import linalg as L
from ..functional import products as P

_MATMUL_NAMES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0"}
op("matmul", P.matmul, dunders=("matmul", "rmatmul"), out=True, grad_name=lambda s, o: (
    _MATMUL_NAMES.get((len(o["input"].shape), len(o["other"].shape)), "MmBackward0")),
   saves="others")
op("mm", P.mm, out=True, saves="others")
op("mv", P.mv, out=True, saves="others")
op("bmm", P.bmm, out=True, saves="others")
op("dot", P.dot, out=True, saves="others")
op("vdot", P.vdot, out=True, saves="others")
op("inner", P.inner, out=True, grad_name="ViewBackward0")
op("outer", P.outer, out=True, aliases=("ger",), grad_name="MulBackward0")
op("kron", P.kron, out=True, grad_name="UnsafeViewBackward0")
_SCALED = dict(static=("beta", "alpha"), inplace=True, out=True)
for _name in ("addmm", "addmv", "addr", "baddbmm", "addbmm"):
    op(_name, getattr(P, _name), **_SCALED)
op("cross", P.cross, static=("dim",), out=True, grad_name="LinalgCrossBackward0")
op("linalg_cross", P.linalg_cross, static=("dim",), out=True, function=False, method=False,
   modules=("linalg",), grad_name="LinalgCrossBackward0")
op("tensordot", P.tensordot, static=("dims",), out=True, method=False,
   grad_name="ViewBackward0")
op("_einsum", P.einsum, static=("equation",), function=False, method=False,
   grad_name="ViewBackward0")
op("linalg_multi_dot", P.multi_dot, out=True, function=False, method=False,
   modules=("linalg",), grad_name="ViewBackward0")
op("linalg_vecdot", P.vecdot, static=("dim",), out=True, function=False, method=False,
   modules=("linalg",), grad_name="SumBackward1")
op("matrix_power", P.matrix_power, static=("n",), out=True, grad_name="MmBackward0")
op("linalg_matrix_power", P.matrix_power, static=("n",), out=True, function=False,
   method=False, modules=("linalg",), grad_name="MmBackward0")
op("cdist", P.cdist, static=("p", "compute_mode"), method=False)

_NORM = dict(out=True, function=False, method=False, modules=("linalg",),
             grad_name="LinalgVectorNormBackward0")
op("linalg_vector_norm", L.vector_norm, static=("ord", "dim", "keepdim", "dtype"), **_NORM)
op("linalg_matrix_norm", L.matrix_norm, static=("ord", "dim", "keepdim", "dtype"), **_NORM)
op("linalg_norm", L.norm, static=("ord", "dim", "keepdim", "dtype"), **_NORM)

op("trace", L.trace, saves="none")
op("tril", L.tril, static=("diagonal",), inplace=True, out=True, saves="none")
op("triu", L.triu, static=("diagonal",), inplace=True, out=True, saves="none")
op("diag", L.diag, static=("diagonal",), out=True, saves="none",
   grad_name=lambda s, o: "DiagEmbedBackward0" if len(o["input"].shape) == 1
   else "DiagonalBackward0_copy")
op("diag_embed", L.diag_embed, static=("offset", "dim1", "dim2"), saves="none")
op("diagflat", L.diagflat, static=("offset",), saves="none", grad_name="DiagEmbedBackward0")
op("linalg_vander", L.vander, static=("N",), function=False, method=False, modules=("linalg",),
   grad_name="CumprodBackward0")
