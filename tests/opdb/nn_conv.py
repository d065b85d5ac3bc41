"""Op database entries: convolutions (torch.convNd / conv_transposeNd)."""

from __future__ import annotations

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
TOL = dict(rtol=1e-5, atol=1e-5)


def _conv(n, transposed=False):
    sp = (5, 4, 3)[:n]
    k = (3, 2, 2)[:n]
    x = tensor((2, 4, *sp), "float64")
    w = tensor((4, 2, *k) if transposed else (6, 4, *k), "float64")
    wg = tensor((4, 3, *k) if transposed else (6, 2, *k), "float64")
    b = tensor((6,) if not transposed else (2,), "float64")
    common = [
        S(x, w, b),
        S(tensor((2, 4, *sp)), tensor(w.data.shape), stride=2, padding=1),
        S(x, wg, None, groups=2, dilation=2) if not transposed else S(x, wg, None, 2, 1, 1, 2),
        S(tensor((4, *sp), "float64"), w),
    ]
    if transposed:
        common.append(S(x, w, b, stride=2, padding=1, output_padding=1))
    else:
        common += [S(x, w, b, padding="same", dilation=2), S(x, w, padding="valid")]
    return lambda: common if n == 2 else common[:2]


def _errors(n, transposed=False):
    sp = (5, 4, 3)[:n]
    k = (3, 2, 2)[:n]
    w = (4, 2, *k) if transposed else (6, 4, *k)
    errs = [S(tensor((2, 3, *sp)), tensor(w)),  # channel mismatch
            S(tensor((2, 4, *sp)), tensor(w, "float64")),  # dtype mismatch
            S(tensor((2, 4, *sp, 1)), tensor(w))]  # rank
    if not transposed:
        errs += [S(tensor((2, 4, *(1,) * n)), tensor(w)),  # kernel larger than input
                 S(tensor((2, 4, *sp)), tensor(w), stride=2, padding="same")]
    return lambda: errs if n == 2 else errs[:2]


for _n in (1, 2, 3):
    OPS.append(OpInfo(f"conv{_n}d", _conv(_n), _errors(_n), tol=TOL,
                      grad_samples=2 if _n == 2 else 1))
    OPS.append(OpInfo(f"conv_transpose{_n}d", _conv(_n, True), _errors(_n, True), tol=TOL,
                      grad_samples=2 if _n == 2 else 1))
