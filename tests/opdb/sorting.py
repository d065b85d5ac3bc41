"""Op database entries: sorting, selection and scans."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary
from opdb.reduction import DIM_ERRORS, X, distinct_ints, nans, zeros_in

OPS: list[OpInfo] = []


def _sort_samples():
    ties = tensor((3, 4), "float64", "ties")
    return [S(X(), 0), S(X(), 1, True), S(ties, dim=0, descending=True, stable=True),
            S(nans(), 1), S(nans(), 0, True), S(tensor((3, 4), "int64", "ties"), 1),
            S(tensor((3, 4), "bool"), descending=True, stable=True), S(tensor((), "float64"))]


OPS += [
    OpInfo("sort", _sort_samples, DIM_ERRORS),
    OpInfo("argsort", _sort_samples, DIM_ERRORS, grad=False),
    OpInfo("msort", lambda: [S(X()), S(tensor((3, 4), "float64", "ties")), S(nans()),
                             S(tensor((3, 4), "int64"))]),
    OpInfo("topk", lambda: [
        S(X(), 2), S(X(), 1, 0), S(X(), 3, largest=False), S(X(), 0), S(one_nan(), 2, 1),
        S(tensor((3, 4), "int64"), 2, 0, False), S(tensor((), "float64"), 1),
    ], lambda: [S(tensor((2, 3)), 4), S(tensor((2, 3)), 1, 2)]),
    OpInfo("kthvalue", lambda: [
        S(X(), 2), S(X(), 1, 0), S(X(), 3, 0, True), S(one_nan(), 4, 1),
        S(distinct_ints(), 2), S(tensor((), "float64"), 1),
    ], lambda: [S(tensor((2, 3)), 4), S(tensor((2, 3)), 0), S(tensor((2, 3)), 1, 2)]),
]


def one_nan() -> T:
    """(3, 4) with one NaN per row: which of several tied NaNs topk picks is unspecified."""
    data = tensor((3, 4), "float64").data.copy()
    data[[0, 1, 2], [1, 3, 0]] = float("nan")
    return T(data, "float64")


# bool is left out: its in-place cumsum_ raises NotImplementedError in PyTorch (RuntimeError
# here, from the in-place cast check); test_reduction.py covers the bool function forms.
def _scan_samples(dtypes=("float32", "int64", "uint8"), dtype=True):
    out = [S(X(), 0), S(zeros_in(), 1), S(tensor((), "float64"), 0)]
    out += [S(tensor((3, 4), d), -1) for d in dtypes]
    if dtype:
        out.append(S(tensor((3, 4), "int64"), 1, dtype=getattr_dtype("float64")))
    return out


OPS += [
    OpInfo("cumsum", _scan_samples, DIM_ERRORS, tol=dict(rtol=1e-5)),
    OpInfo("cumprod", _scan_samples, DIM_ERRORS, tol=dict(rtol=1e-5), grad_samples=3),
    OpInfo("logcumsumexp", lambda: _scan_samples(("float32",), dtype=False),
           lambda: DIM_ERRORS() + [S(tensor((2, 3), "int64"), 0)], tol=dict(rtol=1e-5)),
]
for _n in ("cummax", "cummin"):
    OPS.append(OpInfo(_n, lambda: [
        S(tensor((3, 4), "float64", "ties"), 1), S(X(), 0), S(nans(), 1),
        S(T(np.array([1.0, 1.0, np.nan, 2.0, np.nan]), "float64"), 0),
        S(tensor((3, 4), "int64", "ties"), 0), S(tensor((3, 4), "bool"), 1),
        S(tensor((), "float64"), 0),
    ], DIM_ERRORS))

OPS.append(OpInfo("diff", lambda: [
    S(X()), S(X(), 2, 0), S(X(), 1, 0, tensor((1, 4), "float64")),
    S(X(), append=tensor((3, 2), "float64")), S(tensor((3, 4), "bool")),
    S(tensor((3, 4), "int64"), 1, 0, tensor((2, 4), "int32")), S(X(), 5), S(X(), 0),
], lambda: [S(tensor(())), S(tensor((3,)), -1), S(tensor((3,)), 1, 0, tensor(()))]))
