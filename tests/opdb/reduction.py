"""Op database entries: reductions and statistics."""

from __future__ import annotations

import numpy as np

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
NAN = float("nan")


def _has_dim(s: Sample) -> bool:
    """torch's sum/mean/prod take out= only in their dim overloads."""
    return len(s.args) > 1 or "dim" in s.kwargs


def nans(dtype="float64") -> T:
    """A (3, 4) tensor with NaNs: one row all NaN, one with two."""
    data = tensor((3, 4), dtype).data.copy()
    data[0, 1] = data[2, :] = NAN
    return T(data, dtype)


def some_nans() -> T:
    """A (3, 4) float64 tensor with 1, 0 and 2 NaNs in its rows (never all NaN: which index
    PyTorch returns for an all-NaN slice of median/kthvalue/topk is unspecified)."""
    data = tensor((3, 4), "float64").data.copy()
    data[0, 1] = data[2, 0] = data[2, 3] = NAN
    return T(data, "float64")


def distinct_ints() -> T:
    """(3, 4) int64 without repeats, so the index of a selected value is determined."""
    return T(np.random.default_rng(0).permutation(12).reshape(3, 4) - 5, "int64")


def zeros_in(dtype="float64") -> T:
    """A (3, 4) tensor with one zero in row 0 and two zeros in row 1."""
    data = tensor((3, 4), dtype).data.copy()
    data[0, 2] = data[1, 0] = data[1, 3] = 0.0
    return T(data, dtype)


X = lambda: tensor((3, 4), "float64")  # noqa: E731
DIM_ERRORS = lambda: [S(tensor((2, 3)), 2), S(tensor((2, 3)), -3)]  # noqa: E731

OPS += [
    OpInfo("sum", lambda: reduction(dtypes=("float32", "int64", "bool", "uint8", "float16",
                                            "int32", "int8", "bfloat16"))() + [
        S(tensor((3, 4), "int64"), dtype=getattr_dtype("float32")),
        S(tensor((3, 4), "bool"), 1), S(tensor((0, 3))), S(tensor((0, 3)), 0),
    ], lambda: [S(tensor((2, 3)), 2), S(tensor((2, 3)), (0, 0))], tol=dict(rtol=1e-5),
        out_sample=_has_dim),
    OpInfo("nansum", lambda: reduction(dtypes=("float32", "int64", "bool"))() + [
        S(nans()), S(nans(), 1), S(nans("float32"), 0, True),
    ], lambda: [S(tensor((2, 3)), 2), S(tensor((2, 3), "complex64"))], tol=dict(rtol=1e-5)),
    OpInfo("mean", lambda: reduction(dtypes=("float32", "float16"))() + [
        S(tensor((3, 4), "float32"), 0, dtype=getattr_dtype("float64")),
        S(tensor((3, 4), "int64"), dtype=getattr_dtype("float32")),
    ], lambda: [S(tensor((2, 3), "int64")), S(tensor((2, 3)), 2)], tol=dict(rtol=1e-5),
        out_sample=_has_dim),
    OpInfo("nanmean", lambda: [S(nans()), S(nans(), 1), S(nans("float32"), (0, 1), True),
                               S(X(), 0)],
           lambda: [S(tensor((2, 3), "int64")), S(tensor((2, 3)), 2)], tol=dict(rtol=1e-5)),
    OpInfo("prod", lambda: [
        S(tensor((3, 4), "float32")), S(tensor((3, 4), "int32")), S(tensor((3, 4), "bool")),
        S(tensor((3, 4), "uint8"), 0), S(zeros_in()), S(zeros_in(), 1), S(X(), 0, True),
        S(tensor((3, 4), "float32"), 1, dtype=getattr_dtype("float64")),
        S(tensor((), "float64"), 0),
    ], lambda: [S(tensor((2, 3)), 2), S(tensor((2, 3)), (0, 1))], tol=dict(rtol=1e-5),
        out_sample=_has_dim, grad_samples=3),
    OpInfo("max", lambda: [
        S(tensor((3, 4), "float64")), S(tensor((3, 4), "float64", "ties")),
        S(tensor((3, 4), "int64")), S(tensor((3, 4), "bool")), S(nans()),
        S(tensor((3, 4), "float64", "ties"), 1), S(tensor((3, 4), "float64"), 0, True),
        S(tensor((3, 4), "int64"), dim=-1), S(tensor((), "float64"), 0), S(nans(), 1),
        S(tensor((3, 4), "float64", "ties"), tensor((4,), "float64", "ties")),
        S(tensor((3, 4), "float32"), other=tensor((3, 4), "int64")),
    ], lambda: [
        S(tensor((0, 3))), S(tensor((0, 3)), 0), S(tensor((2, 3)), 2),
        S(tensor((2, 3), "complex64")), S(tensor((2, 3)), tensor((4,))),
    ]),
]
_MAX = OPS[-1]
OPS.append(OpInfo("min", _MAX.samples, _MAX.errors))


def _extreme_samples():
    t = tensor((3, 4), "float64", "ties")
    return [S(t), S(t, 0), S(t, (0, 1), True), S(t, -1, True), S(tensor((3, 4), "int64"), 1),
            S(tensor((3, 4), "bool"), 0), S(nans(), 1), S(tensor((0, 3)), 1),
            S(tensor((), "float64"))]


def _arg_samples():
    return [S(X()), S(X(), 0), S(X(), 1, True), S(X(), keepdim=True), S(nans(), 1),
            S(tensor((3, 4), "int64"), 0), S(tensor((), "float64"), 0),
            S(tensor((3, 4), "float64", "ties"), 1)]


_EMPTY = lambda: [S(tensor((0, 3))), S(tensor((0, 3)), 0), S(tensor((2, 3)), 2),  # noqa: E731
                  S(tensor((2, 3), "complex64"), 0)]
OPS += [OpInfo(n, _extreme_samples, _EMPTY) for n in ("amax", "amin")]
OPS += [OpInfo(n, _arg_samples, lambda: _EMPTY() + [S(tensor((2, 3), "bool"))], grad=False)
        for n in ("argmax", "argmin")]
OPS += [
    OpInfo("aminmax", lambda: [S(X()), S(X(), dim=0), S(X(), dim=1, keepdim=True),
                               S(X(), keepdim=True), S(tensor((3, 4), "int64"), dim=0)],
           lambda: [S(tensor((0,))), S(tensor((2, 3)), dim=2)]),
    OpInfo("count_nonzero", lambda: [S(zeros_in()), S(zeros_in(), 0), S(zeros_in(), (0, 1)),
                                     S(tensor((3, 4), "bool"), -1)],
           lambda: [S(tensor((2, 3)), (0, 0)), S(tensor((2, 3)), 2)], grad=False),
    OpInfo("logsumexp", lambda: [
        S(X(), 1), S(X(), (0, 1), True), S(tensor((3, 4), "float32"), 0),
        S(tensor((3, 4), "int64"), 1), S(tensor((), "float64"), 0),
        S(T(np.array([[-np.inf, -np.inf], [-np.inf, 1.0]]), "float64"), 1),
    ], lambda: [S(tensor((2, 3)), 2)]),
]
for _n in ("all", "any"):
    OPS.append(OpInfo(_n, lambda: [
        S(tensor((3, 4), "bool")), S(tensor((3, 4), "bool"), 1), S(zeros_in(), 0, True),
        S(tensor((3, 4), "uint8")), S(zeros_in("float32"), (0, 1)),
        S(tensor((3, 4), "int64", "nonzero")), S(tensor((0, 3), "bool"), 1),
    ], DIM_ERRORS, grad=False))


def _var_samples():
    return [S(X()), S(X(), 1, False, True), S(X(), False),
            S(X(), dim=(0, 1), correction=0), S(X(), 1, keepdim=True, correction=2),
            S(tensor((3, 4), "complex64"), 1)]


for _n in ("var", "std", "var_mean", "std_mean"):
    OPS.append(OpInfo(_n, _var_samples, lambda: [S(tensor((2, 3), "int64")),
                                                 S(tensor((2, 3)), 2)],
                      tol=dict(rtol=1e-5), grad_samples=3,
                      out_sample=lambda s: "unbiased" not in s.kwargs and not (
                          len(s.args) > 1 and isinstance(s.args[1], bool))))

OPS += [
    OpInfo("norm", lambda: [
        S(X()), S(X(), 1), S(X(), 3, 0, True), S(X(), float("inf"), 1), S(X(), 0.5),
        S(X(), -float("inf")), S(X(), 0, 1), S(X(), "fro", (0, 1)), S(X(), "nuc"),
        S(X(), 1.5, dim=1), S(tensor((3, 4), "float32"), dtype=getattr_dtype("float64")),
        S(tensor((3, 4), "complex64"), 2, 1),
    ], lambda: [S(tensor((2, 3), "int64")), S(tensor((3,)), "nuc"), S(tensor((2, 3)), 2, 2)],
        grad_samples=4, tol=dict(rtol=1e-5)),
    OpInfo("dist", lambda: [S(X(), tensor((3, 4), "float64")), S(X(), tensor((4,), "float64"), 1),
                            S(X(), tensor((3, 4), "float64"), float("inf")),
                            S(tensor((3, 4), "float32"), tensor((3, 4), "float64"), 3)],
           lambda: [S(tensor((2, 3)), tensor((4,)))], tol=dict(rtol=1e-5)),
    OpInfo("mode", lambda: [
        S(tensor((3, 4), "float64", "ties")), S(tensor((3, 4), "float64", "ties"), 0, True),
        S(tensor((3, 4), "int64"), 0), S(tensor((), "float64")),
    ], lambda: [S(tensor((0,))), S(tensor((2, 3)), 2)]),
]


def _quantile_samples():
    q = T(np.array([0.0, 0.25, 0.5, 1.0]), "float64", grad=False)
    out = [S(X(), 0.3), S(X(), q, 1), S(X(), 0.5, 0, True), S(X(), q, keepdim=True),
           S(X(), T(np.array(0.7), "float64", grad=False), 1), S(nans(), q, 1)]
    out += [S(X(), q, 1, interpolation=m) for m in ("lower", "higher", "midpoint", "nearest")]
    return out


def _quantile_errors():
    return [S(tensor((2, 3), "int64"), 0.5), S(tensor((2, 3)), 1.5),
            S(tensor((2, 3)), T(np.array([0.5, 2.0]), "float32")),
            S(tensor((2, 3)), T(np.array([0.5]), "float64")),
            S(tensor((2, 3)), 0.5, interpolation="cubic"), S(tensor((0,)), 0.5),
            S(tensor((2, 3)), 0.5, 2)]


OPS += [OpInfo(n, _quantile_samples, _quantile_errors, tol=dict(rtol=1e-5), grad_samples=1)
        for n in ("quantile", "nanquantile")]

HISTC = lambda t, *a, **k: t.histc(*a, **k)  # noqa: E731
OPS.append(OpInfo("_histc", lambda: [
    S(tensor((3, 4), "float32")), S(tensor((3, 4), "float64"), 5),
    S(tensor((3, 4), "float32"), 4, -1.0, 1.0), S(T(np.array([1.0, 1.0]), "float32"), 3),
    S(T(np.array([0.0, 0.5, 1.0, 2.0, NAN]), "float64"), bins=4, min=0, max=2),
], lambda: [S(tensor((3,), "int64")), S(tensor((3,)), 0), S(tensor((3,)), 4, 2, 1),
            S(T(np.array([1.0, NAN]), "float32"), 2)], grad=False, call=HISTC))


def _median_samples():
    return [S(X()), S(tensor((3, 4), "float64", "ties")), S(tensor((3, 4), "int64")),
            S(nans()), S(X(), 0, True), S(some_nans(), 1), S(distinct_ints(), 0),
            S(tensor((0,)))]


def _median_errors():
    return [S(tensor((2, 3)), 2), S(tensor((0, 3)), 0), S(tensor((2, 3)), keepdim=True)]


for _n in ("median", "nanmedian"):
    OPS.append(OpInfo(_n, _median_samples, _median_errors))
    _call = (lambda n: lambda t, *a, **k: getattr(t, n)(*a, **k))(_n)
    OPS.append(OpInfo(f"_{_n}_all", lambda: [S(X())], call=_call, grad_samples=1))
    OPS.append(OpInfo(f"_{_n}_dim", lambda: [S(X(), 1)], call=_call, grad_samples=1))

SKIP: dict[str, str] = {
    n: "reached through the max/min overload entries"
    for n in ("max_all", "min_all", "max_dim", "min_dim")
}
