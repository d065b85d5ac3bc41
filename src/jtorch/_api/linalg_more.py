"""torch.X linear algebra with tuple results, ``out=`` or a deprecation warning: lu_unpack,
geqrf, triangular_solve and the deprecated lu, lu_solve and cholesky (with their Tensor
methods).
"""

from __future__ import annotations

import warnings

from ..eager.bind import bound
from ..eager.tensor import Tensor
from .linalg import check_info, write_out

__all__ = ["lu_unpack", "geqrf", "triangular_solve", "lu", "lu_solve", "cholesky"]


def _deprecated(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=3)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) from torch.linalg.lu_factor's result; parts not unpacked are empty."""
    result = bound("lu_unpack")(LU_data, LU_pivots, unpack_data, unpack_pivots)
    return write_out("lu_unpack", out, result)


def geqrf(input, *, out=None):
    """(a, tau): LAPACK's QR, R above the diagonal and the Householder reflectors below."""
    return write_out("geqrf", out, bound("geqrf")(input))


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """(solution, cloned_coefficient) of ``op(A) X = input`` (deprecated:
    torch.linalg.solve_triangular)."""
    _deprecated("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
                "and will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular "
                "has its arguments reversed and does not return a copy of one of the inputs.")
    result = bound("triangular_solve")(input, A, upper, transpose, unitriangular)
    return write_out("triangular_solve", out, result)


def lu(A, pivot=True, get_infos=False, out=None):
    """(LU, pivots[, infos]) (deprecated: torch.linalg.lu_factor / lu_factor_ex)."""
    _deprecated("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.")
    result = bound("linalg_lu_factor_ex")(A, pivot=pivot)
    return write_out("lu", out, tuple(result) if get_infos else tuple(result[:2]))


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """X with ``A X = b`` from A's LU (deprecated: torch.linalg.lu_solve, whose arguments
    are reversed)."""
    _deprecated("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
                "removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has its "
                "arguments reversed.")
    return write_out("lu_solve", out, bound("linalg_lu_solve")(LU_data, LU_pivots, b))


def cholesky(input, upper=False, *, out=None):
    """The Cholesky factor (deprecated: torch.linalg.cholesky)."""
    _deprecated("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
                "removed in a future PyTorch release.")
    L, info = bound("linalg_cholesky_ex")(input, upper=upper)
    check_info("linalg.cholesky", info, "cholesky")
    return write_out("cholesky", out, L)


Tensor.geqrf = lambda self: geqrf(self)
Tensor.triangular_solve = lambda self, A, upper=True, transpose=False, unitriangular=False: (
    triangular_solve(self, A, upper, transpose, unitriangular))
Tensor.lu = lambda self, pivot=True, get_infos=False: lu(self, pivot, get_infos)
Tensor.lu_solve = lambda self, LU_data, LU_pivots: lu_solve(self, LU_data, LU_pivots)
Tensor.cholesky = lambda self, upper=False: cholesky(self, upper)
