"""Op database entries: reductions."""

from __future__ import annotations

from opdb.core import *  # noqa: F403 - the entry vocabulary

OPS: list[OpInfo] = []
def _has_dim(s: Sample) -> bool:
    """torch's sum/mean take out= only in their dim overloads."""
    return len(s.args) > 1 or "dim" in s.kwargs


OPS += [
    OpInfo("sum", lambda: reduction(dtypes=("float32", "int64", "bool", "uint8", "float16"))()
                          + [
        S(tensor((3, 4), "int64"), dtype=getattr_dtype("float32")),
        S(tensor((3, 4), "bool"), 1),
    ], lambda: [S(tensor((2, 3)), 2), S(tensor((2, 3)), (0, 0))], tol=dict(rtol=1e-5),
        out_sample=_has_dim),
    OpInfo("mean", lambda: reduction(dtypes=("float32", "float16"))() + [
        S(tensor((3, 4), "float32"), 0, dtype=getattr_dtype("float64")),
    ], lambda: [S(tensor((2, 3), "int64")), S(tensor((2, 3)), 2)], tol=dict(rtol=1e-5),
        out_sample=_has_dim),
    OpInfo("max", lambda: [
        S(tensor((3, 4), "float64")), S(tensor((3, 4), "float64", "ties")),
        S(tensor((3, 4), "int64")), S(tensor((3, 4), "bool")),
        S(tensor((3, 4), "float64", "ties"), 1), S(tensor((3, 4), "float64"), 0, True),
        S(tensor((3, 4), "int64"), dim=-1), S(tensor((), "float64"), 0),
        S(tensor((3, 4), "float64", "ties"), tensor((4,), "float64", "ties")),
        S(tensor((3, 4), "float32"), other=tensor((3, 4), "int64")),
    ], lambda: [
        S(tensor((0, 3))), S(tensor((0, 3)), 0), S(tensor((2, 3)), 2),
        S(tensor((2, 3), "complex64")), S(tensor((2, 3)), tensor((4,))),
    ]),
]
_MAX = OPS[-1]
OPS.append(OpInfo("min", _MAX.samples, _MAX.errors))

SKIP: dict[str, str] = {
    n: "reached through the max/min overload entries"
    for n in ("max_all", "min_all", "max_dim", "min_dim")
}
