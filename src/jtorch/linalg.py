"""torch.linalg: the registry ops declared with ``modules=("linalg",)``, plus the raising
forms of the ``*_ex`` ops (inv, cholesky, solve, lu_factor, ldl_factor), which check LAPACK's
``info`` on the host and raise as PyTorch does, the ops with tuple results and ``out=``
(eig, lu, lu_factor_ex, ldl_factor_ex), tensorinv/tensorsolve and ``diagonal`` (a view)."""

import math as _math

from . import return_types as _R
from ._api.linalg import check_info as _check_info
from ._api.linalg import linalg_inv as _inv
from ._api.linalg import write_out as _write_out
from .eager.bind import bound as _bound
from .eager.bind import export as _export
from .functional.decomposition import LinAlgError  # noqa: F401 - torch.linalg.LinAlgError

_export(globals(), "linalg")


def inv(A, *, out=None):
    """The inverse of square matrices; LinAlgError when one is singular."""
    return _inv(A, out)


def inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info); with ``check_errors`` a singular input raises LinAlgError."""
    result = _bound("linalg_inv_ex")(A)
    if check_errors:
        _check_info("linalg.inv", result.info, "linalg.inv_ex")
    return _write_out("linalg_inv_ex", out, result)


def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor of Hermitian positive-definite matrices (from the lower
    triangle); LinAlgError when one is not positive-definite."""
    L, info = _bound("linalg_cholesky_ex")(A, upper=upper)
    _check_info("linalg.cholesky", info)
    return _write_out("linalg_cholesky", out, L)


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info); with ``check_errors`` a failed factorization raises LinAlgError."""
    result = _bound("linalg_cholesky_ex")(A, upper=upper)
    if check_errors:
        _check_info("linalg.cholesky", result.info, "linalg.cholesky_ex")
    return _write_out("linalg_cholesky_ex", out, result)


def solve(A, B, *, left=True, out=None):
    """X with ``A X = B`` (``X A = B`` when not ``left``); LinAlgError when A is singular."""
    X, info = _bound("linalg_solve_ex")(A, B, left=left)
    _check_info("linalg.solve", info, "torch.linalg.solve")
    return _write_out("linalg_solve", out, X)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """(X, info); with ``check_errors`` a singular A raises LinAlgError."""
    result = _bound("linalg_solve_ex")(A, B, left=left)
    if check_errors:
        _check_info("linalg.solve", result.info, "torch.linalg.solve_ex")
    return _write_out("linalg_solve_ex", out, result)


matmul = _bound("matmul")


def cond(A, p=None, *, out=None):
    """The condition number: a ratio of singular values for p None/2/-2, else
    ``matrix_norm(A, p) * matrix_norm(inv(A), p)``.

    Differences from PyTorch: for the norm-based p a singular matrix gives inf or NaN from
    the inverse's overflow, where PyTorch returns inf."""
    if p in (None, 2, -2):
        s = _bound("linalg_svdvals")(A)
        big, small = s[..., 0], s[..., -1]
        result = small / big if p == -2 else big / small
    else:
        norm = _bound("linalg_matrix_norm")
        result = norm(A, p) * norm(_bound("linalg_inv_ex")(A).inverse, p)
    return _write_out("linalg_cond", out, result)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """A view of the diagonals over (dim1, dim2), by default of the last two dims."""
    return A.diagonal(offset, dim1, dim2)


def eig(A, *, out=None):
    """(eigenvalues, eigenvectors) of a square matrix, complex."""
    return _write_out("linalg_eig", out, _bound("linalg_eig")(A))


def lu(A, *, pivot=True, out=None):
    """(P, L, U) with ``A = P L U``."""
    return _write_out("linalg_lu", out, _bound("linalg_lu")(A, pivot=pivot))


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """(LU, pivots, info): LAPACK's packed LU; with ``check_errors`` a zero on U's diagonal
    raises."""
    result = _bound("linalg_lu_factor_ex")(A, pivot=pivot)
    if check_errors:
        _check_info("linalg.lu_factor", result.info, "torch.linalg.lu_factor_ex", RuntimeError)
    return _write_out("linalg_lu_factor_ex", out, result)


def lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots); a zero on U's diagonal raises (lu_solve would divide by it)."""
    LU, pivots, info = _bound("linalg_lu_factor_ex")(A, pivot=pivot)
    _check_info("linalg.lu_factor", info, "torch.linalg.lu_factor", RuntimeError)
    return _write_out("linalg_lu_factor", out, _R.linalg_lu_factor(LU, pivots))


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """(LD, pivots, info) of the Bunch-Kaufman LDL factorization (LAPACK's sytrf/hetrf)."""
    result = _bound("linalg_ldl_factor_ex")(A, hermitian=hermitian)
    if check_errors:
        _check_info("linalg.ldl_factor", result.info, "torch.linalg.ldl_factor_ex",
                    RuntimeError)
    return _write_out("linalg_ldl_factor_ex", out, result)


def ldl_factor(A, *, hermitian=False, out=None):
    """(LD, pivots); a singular input raises."""
    LD, pivots, info = _bound("linalg_ldl_factor_ex")(A, hermitian=hermitian)
    _check_info("linalg.ldl_factor", info, "torch.linalg.ldl_factor", RuntimeError)
    return _write_out("linalg_ldl_factor", out, _R.linalg_ldl_factor(LD, pivots))


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A for tensordot over its first ``ind`` dims: shape
    ``A.shape[ind:] + A.shape[:ind]``."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = _math.prod(A.shape[:ind]), _math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) "
                           f"== prod(self.shape[:ind]), but got {cols} != {rows}")
    result = _inv(A.reshape(rows, cols), None).reshape(*A.shape[ind:], *A.shape[:ind])
    return _write_out("linalg_tensorinv", out, result)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with ``tensordot(A, X, X.ndim) = B``; ``dims`` of A are moved to the end first."""
    if dims is not None:
        dims = tuple(d % A.dim() for d in dims)
        A = A.movedim(dims, tuple(range(A.dim() - len(dims), A.dim())))
    shape = A.shape[B.dim():]
    n = _math.prod(shape)
    if n != B.numel():
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim"
                           f":]) == prod(self.shape[:other.ndim]), but got {n} != {B.numel()}")
    result = solve(A.reshape(n, n), B.reshape(n)).reshape(*shape)
    return _write_out("linalg_tensorsolve", out, result)
