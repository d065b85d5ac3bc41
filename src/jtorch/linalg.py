"""torch.linalg: the registry ops declared with ``modules=("linalg",)``, plus the raising
forms of the ``*_ex`` ops (inv, cholesky, solve), which check LAPACK's ``info`` on the host
and raise ``LinAlgError`` as PyTorch does, and ``diagonal`` (a view)."""

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
