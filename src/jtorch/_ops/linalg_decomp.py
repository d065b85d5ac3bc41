"""torch.linalg factorizations, inverses, determinants and solvers (and their torch.X forms).

The raising forms (linalg.inv, linalg.cholesky, linalg.solve, torch.inverse) are
compositions over the ``*_ex`` ops here, checking ``info`` on the host (jtorch/linalg.py).
"""

from __future__ import annotations

from functools import partial

from .. import _registry
from .. import return_types as R
from ..functional import decomposition as F

# A factorization's gradient reads its outputs: the backward keeps them (OpSpec.residuals)
# rather than factorizing again.
op = partial(_registry.op, residuals=True)

_LIN = dict(function=False, method=False, modules=("linalg",))
op("linalg_inv_ex", F.linalg_inv_ex, returns=R.linalg_inv_ex, grad_name="LinalgInvExBackward0",
   saves="out", **_LIN)
op("linalg_solve_ex", F.linalg_solve_ex, static=("left",), returns=R.linalg_solve_ex,
   grad_name="LinalgSolveExBackward0", saves="all", **_LIN)
op("linalg_cholesky_ex", F.linalg_cholesky_ex, static=("upper",),
   returns=R.linalg_cholesky_ex, grad_name="LinalgCholeskyExBackward0", saves="out", **_LIN)
op("linalg_det", F.linalg_det, out=True, saves="all", **_LIN)
op("det", F.det, saves="all", grad_name="LinalgDetBackward0")
op("linalg_slogdet", F.linalg_slogdet, returns=R.linalg_slogdet, saves="all", **_LIN)
op("slogdet", F.slogdet, returns=R.slogdet, saves="all", grad_name="LinalgSlogdetBackward0")
op("logdet", F.logdet, saves="all", grad_name="WhereBackward0")
op("cholesky_solve", F.cholesky_solve, static=("upper",), out=True, saves="all")
op("linalg_solve_triangular", F.linalg_solve_triangular, out=True,
   static=("upper", "left", "unitriangular"), saves="all", **_LIN)
op("linalg_qr", F.linalg_qr, static=("mode",), returns=R.linalg_qr, saves="all", **_LIN)
op("qr", F.qr, static=("some",), returns=R.qr, saves="all", grad_name="LinalgQrBackward0")
op("linalg_eigh", F.linalg_eigh, static=("UPLO",), returns=R.linalg_eigh, saves="out", **_LIN)
op("linalg_eigvalsh", F.linalg_eigvalsh, static=("UPLO",), out=True, saves="out",
   grad_name="LinalgEighBackward0", **_LIN)
op("linalg_svd", F.linalg_svd, static=("full_matrices", "driver"), returns=R.linalg_svd,
   saves="out", **_LIN)
op("svd", F.svd, static=("some", "compute_uv"), returns=R.svd, saves="out",
   grad_name="LinalgSvdBackward0")
op("linalg_svdvals", F.linalg_svdvals, static=("driver",), out=True, saves="out",
   grad_name="LinalgSvdBackward0", **_LIN)
op("linalg_pinv", F.linalg_pinv, static=("hermitian",), out=True, saves="all", **_LIN)
op("pinverse", F.pinverse, static=("rcond",), saves="all", grad_name="LinalgPinvBackward0")
op("linalg_matrix_rank", F.linalg_matrix_rank, static=("hermitian",), out=True, **_LIN)
op("linalg_lstsq", F.linalg_lstsq, static=("rcond", "driver"), returns=R.linalg_lstsq,
   saves="all", **_LIN)
op("matrix_exp", F.matrix_exp, saves="inputs", grad_name="LinalgMatrixExpBackward0")
op("linalg_matrix_exp", F.matrix_exp, saves="inputs", grad_name="LinalgMatrixExpBackward0",
   **_LIN)
