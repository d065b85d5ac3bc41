"""Named results (``torch.return_types.max(values=..., indices=...)``)."""

from __future__ import annotations

from collections import namedtuple


def _structseq(name: str, fields: str):
    base = namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{name}(\n{body})"

    return type(name, (base,), {"__repr__": __repr__, "__slots__": ()})


max = _structseq("max", "values indices")
min = _structseq("min", "values indices")
sort = _structseq("sort", "values indices")
topk = _structseq("topk", "values indices")
kthvalue = _structseq("kthvalue", "values indices")
mode = _structseq("mode", "values indices")
median = _structseq("median", "values indices")
nanmedian = _structseq("nanmedian", "values indices")
cummax = _structseq("cummax", "values indices")
cummin = _structseq("cummin", "values indices")
aminmax = _structseq("aminmax", "min max")
frexp = _structseq("frexp", "mantissa exponent")
histogram = _structseq("histogram", "hist bin_edges")
histogramdd = _structseq("histogramdd", "hist bin_edges")
slogdet = _structseq("slogdet", "sign logabsdet")
linalg_slogdet = _structseq("linalg_slogdet", "sign logabsdet")
qr = _structseq("qr", "Q R")
linalg_qr = _structseq("linalg_qr", "Q R")
linalg_eigh = _structseq("linalg_eigh", "eigenvalues eigenvectors")
linalg_eig = _structseq("linalg_eig", "eigenvalues eigenvectors")
svd = _structseq("svd", "U S V")
linalg_svd = _structseq("linalg_svd", "U S Vh")
linalg_lstsq = _structseq("linalg_lstsq", "solution residuals rank singular_values")
linalg_inv_ex = _structseq("linalg_inv_ex", "inverse info")
linalg_cholesky_ex = _structseq("linalg_cholesky_ex", "L info")
linalg_lu_factor = _structseq("linalg_lu_factor", "LU pivots")
linalg_solve_ex = _structseq("linalg_solve_ex", "result info")
linalg_lu_factor_ex = _structseq("linalg_lu_factor_ex", "LU pivots info")
linalg_lu = _structseq("linalg_lu", "P L U")
lu_unpack = _structseq("lu_unpack", "P L U")
linalg_ldl_factor = _structseq("linalg_ldl_factor", "LD pivots")
linalg_ldl_factor_ex = _structseq("linalg_ldl_factor_ex", "LD pivots info")
triangular_solve = _structseq("triangular_solve", "solution cloned_coefficient")
geqrf = _structseq("geqrf", "a tau")
