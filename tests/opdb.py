"""The op database: one entry per registry op, driving the generic tests in test_ops.py.

An entry names a registry op and says how to build its sample inputs (NumPy data, turned
into tensors by each backend), which bad inputs must raise, whether it is differentiable
and its tolerances. Which bindings to test (function, method, in-place, ``out=``) comes
from the registry's own declaration, so a new binding is tested as soon as it exists.
Shapes are shared across entries so JAX compiles each op/shape/dtype combination once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

# ------------------------------------------------------------------ sample building blocks


@dataclass(frozen=True)
class T:
    """A tensor to be: NumPy data plus a torch dtype name; ``grad`` opts it out of autograd."""

    data: np.ndarray
    dtype: str
    grad: bool = True

    def __repr__(self) -> str:
        return f"{self.dtype}{list(self.data.shape)}"


def make(tmod, x, requires_grad=False):
    """Build ``x`` (a T, or a list/tuple holding some) as a tensor of backend ``tmod``."""
    if isinstance(x, T):
        t = tmod.tensor(x.data, dtype=getattr(tmod, x.dtype))
        if requires_grad and x.grad and x.dtype in ("float64", "complex128"):
            t.requires_grad_(True)
        return t
    if isinstance(x, list | tuple):
        return type(x)(make(tmod, i, requires_grad) for i in x)
    return x


def leaves(x):
    """The T's inside a (nested) argument, in order."""
    if isinstance(x, T):
        return [x]
    if isinstance(x, list | tuple):
        return [leaf for i in x for leaf in leaves(i)]
    return []


_SEED = iter(range(10**6))


def tensor(shape, dtype="float32", kind="any", grad=True) -> T:
    """Deterministic data of ``shape``: ``kind`` is "any", "positive", "nonzero" or "ties"."""
    rng = np.random.default_rng(next(_SEED))
    shape = tuple(shape)
    if dtype == "bool":
        data = rng.random(shape) > 0.5 if kind != "nonzero" else np.ones(shape, bool)
    elif dtype in ("uint8", "int8", "int16", "int32", "int64"):
        lo = 1 if kind in ("positive", "nonzero") or dtype == "uint8" else -5
        data = rng.integers(lo, 6, shape)
        if kind == "nonzero" and dtype != "uint8":
            data = data * rng.choice([-1, 1], shape)
    elif kind == "ties":
        data = rng.integers(0, 3, shape).astype(np.float64)
    elif kind == "positive":
        data = rng.uniform(0.5, 2.0, shape)
    else:
        data = rng.standard_normal(shape)
        if kind == "nonzero":
            data = np.where(np.abs(data) < 0.2, 0.7, data)
    if dtype.startswith("complex"):
        data = data + 1j * rng.standard_normal(shape)
    return T(np.asarray(data), dtype, grad)


@dataclass
class Sample:
    args: tuple
    kwargs: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        kw = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return f"({', '.join(map(repr, self.args))}{kw})"


def S(*args, **kwargs) -> Sample:
    return Sample(args, kwargs)


@dataclass
class OpInfo:
    name: str  # the registry name
    samples: Callable[[], list[Sample]]
    errors: Callable[[], list[Sample]] = lambda: []
    grad: bool = True  # differentiable: float64 samples get their gradients compared
    call: Callable | None = None  # how to reach an op with no public binding: (torch, *args)
    tol: dict = field(default_factory=dict)
    strides: bool = False  # compare stride() and storage_offset() (views)
    out_sample: Callable[[Sample], bool] = lambda s: True  # which samples take out=
    xfail: dict = field(default_factory=dict)  # test name -> reason (a bug elsewhere)
    grad_samples: int = 2  # how many float64 samples test_grad takes
    notes: str = ""


# ------------------------------------------------------------------ sample families

FLOATS = ("float32", "float64")
MAIN = ("float32", "float64", "int64", "bool")
ALL = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool")


def binary(dtypes=("float32", "int64", "bool"), scalars=(2, 2.5), kind="any", rkind=None,
           wide="float64"):
    """Samples for a broadcasting binary op: same shape per dtype, broadcasting, promotion,
    0-dim operands and Python scalars; ``rkind`` constrains the second operand's data and
    ``wide`` is the dtype of the broadcasting samples (float64 ones get gradients)."""
    rkind = rkind or kind
    narrow = {"float64": "float32", "int64": "int32"}.get(wide, wide)

    def samples():
        out = [S(tensor((2, 3), d, kind), tensor((2, 3), d, rkind)) for d in dtypes]
        out += [
            S(tensor((2, 3), wide, kind), tensor((3,), wide, rkind)),
            S(tensor((2, 1), narrow, kind), tensor((1, 3), wide, rkind)),
            S(tensor((), wide, kind), tensor((2, 3), narrow, rkind)),  # 0-dim: no promotion
        ]
        out += [S(tensor((2, 3), dtypes[0], kind), s) for s in scalars]
        return out

    return samples


def broadcast_error(*extra):
    return lambda: [S(tensor((2, 3)), tensor((4,))), *extra]


def unary(dtypes=ALL, kind="any", empty=False):
    def samples():
        out = [S(tensor((2, 3), d, kind)) for d in dtypes] + [S(tensor((), "float64", kind))]
        return out + [S(tensor((0, 3), "float64", kind))] if empty else out

    return samples


def reduction(dtypes=("float32", "float64", "int64", "bool"), with_dtype=True):
    def samples():
        x = tensor((3, 4), "float64")
        out = [S(tensor((3, 4), d)) for d in dtypes]
        out += [S(x, 0), S(x, dim=-1, keepdim=True), S(x, (0, 1)), S(x, ()),
                S(tensor((), "float64"), 0),
                S(tensor((2, 3, 4), "float32"), (0, 2))]
        if with_dtype:
            out.append(S(tensor((3, 4), "float32"), dtype=getattr_dtype("float64")))
        return out

    return samples


class getattr_dtype:  # noqa: N801 - reads like the dtype it stands for
    """A dtype argument, resolved per backend by ``resolve``."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


def resolve(tmod, x):
    if isinstance(x, getattr_dtype):
        return getattr(tmod, x.name)
    if isinstance(x, list | tuple) and not isinstance(x, T):
        return type(x)(resolve(tmod, i) for i in x)
    return x


def idx(data) -> T:
    return T(np.asarray(data, dtype=np.int64), "int64")


# ------------------------------------------------------------------ the entries

_ARITH_ERR = broadcast_error()
_INT_DIV = dict(kind="nonzero")  # integer division by zero raises in torch: data-dependent

OPS: list[OpInfo] = [
    OpInfo("add", lambda: binary(scalars=(2, 2.5, True))() + [
        S(tensor((2, 3), "int64"), tensor((2, 3), "float32")),
        S(tensor((2, 3), "float64"), tensor((2, 3), "float64"), alpha=2),
        S(tensor((2, 3), "int64"), tensor((3,), "int64"), alpha=-3),
        S(tensor((2, 3), "bool"), tensor((2, 3), "bool"), alpha=True),
    ], broadcast_error(S(tensor((2,), "int64"), tensor((2,), "int64"), alpha=2.5),
                       S(tensor((2,)), tensor((2,)), alpha=True),
                       S(tensor((2,)), tensor((2,)), alpha=1j))),
    OpInfo("sub", lambda: binary(dtypes=("float32", "int64"))() + [
        S(tensor((2, 3), "float64"), tensor((3,), "float64"), alpha=0.5),
    ], broadcast_error(S(tensor((3,), "bool"), tensor((3,), "bool")),
                       S(tensor((3,), "float32"), True), S(tensor((3,), "bool"), 1.5))),
    OpInfo("rsub", binary(dtypes=("float32", "int64")), _ARITH_ERR),
    OpInfo("mul", binary(scalars=(2, 2.5, True)), _ARITH_ERR),
    OpInfo("div", lambda: binary(**_INT_DIV)() + [
        S(tensor((2, 3), "float64"), tensor((2, 3), "float64", "nonzero"),
          rounding_mode="floor"),
        S(tensor((2, 3), "int64"), tensor((3,), "int64", "nonzero"), rounding_mode="trunc"),
        S(tensor((2, 3), "int64"), 2, rounding_mode="floor"),
        S(tensor((2, 3), "float32"), -1.5, rounding_mode="trunc"),
    ], broadcast_error(S(tensor((2,)), 2, rounding_mode="round"))),
    OpInfo("floor_divide", binary(dtypes=("float32", "int64"), **_INT_DIV),
           broadcast_error(S(tensor((3,), "bool"), tensor((3,), "bool", "nonzero"))),
           grad=False, notes="torch: derivative for floor_divide is not implemented"),
    OpInfo("remainder", binary(dtypes=("float32", "int64", "uint8"), **_INT_DIV),
           broadcast_error(S(tensor((3,), "complex64"), 2))),
    OpInfo("pow", lambda: binary(dtypes=FLOATS, scalars=(2, 0.5, 0), kind="positive")() + [
        S(tensor((2, 3), "int64"), tensor((2, 3), "int64", "positive")),
        S(tensor((2, 3), "int64"), tensor((3,), "int64")),  # negative integer exponents
        S(tensor((2, 3), "int64"), 2),
        S(tensor((2, 3), "int64"), 0.5),
        S(tensor((2, 3), "float64"), 2),  # negative bases, integral exponent
        S(tensor((2, 3), "float64", "ties"), tensor((2, 3), "float64", "ties")),  # 0 ** 0
        S(tensor((2, 3), "bool"), 2),
        S(tensor((2, 3), "complex64"), 2),
    ], broadcast_error(S(tensor((3,), "bool"), tensor((3,), "bool"))),
        tol=dict(rtol=1e-5)),
]

for _name in ("neg", "abs"):
    OPS.append(OpInfo(_name, unary(("float32", "float64", "int64", "int8", "float16"),
                                   empty=True),
                      lambda: [S(tensor((3,), "bool"))]))
for _name, _dts in (("exp", ("float32", "float64", "float16", "bfloat16", "int64", "bool")),
                    ("tanh", ("float32", "float64", "bfloat16", "int64")),
                    ("sigmoid", ("float32", "float64", "float16", "bool"))):
    OPS.append(OpInfo(_name, unary(_dts), tol=dict(rtol=1e-5), grad_samples=1))
for _name in ("sin", "cos"):
    OPS.append(OpInfo(_name, unary(("float32", "float64", "int64")), tol=dict(rtol=1e-5),
                      grad_samples=1))
for _name in ("log", "sqrt"):
    OPS.append(OpInfo(_name, lambda: unary(("float32", "float64", "float16", "int64", "bool"),
                                           kind="positive")() + [
        S(T(np.array([-1.0, 0.0, 1.0]), "float64", grad=False))], tol=dict(rtol=1e-5)))

for _name, _dts in (("eq", ("float32", "int64", "bool", "uint8")), ("ne", ("float32", "bool")),
                    ("lt", ("float32", "int64", "uint8")), ("le", ("float32", "int64")),
                    ("gt", ("float32", "bool")), ("ge", ("int64", "float32"))):
    OPS.append(OpInfo(_name, binary(dtypes=_dts, kind="ties", scalars=(2.5,)), _ARITH_ERR,
                      grad=False))
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    OPS.append(OpInfo(_name, binary(dtypes=("int64", "bool", "uint8"),
                                    scalars=(3, True), wide="int64"), broadcast_error(
        S(tensor((3,), "float32"), tensor((3,), "int64"))), grad=False))
for _name in ("logical_and", "logical_or", "logical_xor"):
    OPS.append(OpInfo(_name, binary(dtypes=("float32", "int64", "bool"), kind="ties",
                                    scalars=()),
                      broadcast_error(S(tensor((3,)), 2), S(1.5, tensor((3,)))), grad=False))
OPS += [
    OpInfo("bitwise_not", lambda: unary(("int64", "bool", "uint8", "int8"))()[:4],
           lambda: [S(tensor((3,), "float32"))], grad=False),
    OpInfo("logical_not", unary(("float32", "int64", "bool"), kind="ties"), grad=False),
    OpInfo("maximum", binary(dtypes=("float32", "int64", "bool"), kind="ties",
                             scalars=()), broadcast_error(
        S(tensor((3,), "complex64"), tensor((3,), "complex64")), S(tensor((3,)), 2))),
    OpInfo("minimum", binary(dtypes=("float32", "int64"), kind="ties",
                             scalars=()), broadcast_error(S(tensor((3,)), 2.5))),
    OpInfo("where", lambda: [
        S(tensor((2, 3), "bool"), tensor((2, 3)), tensor((2, 3))),
        S(tensor((3,), "bool"), tensor((2, 1), "float64"), tensor((), "float64")),
        S(tensor((2, 3), "bool"), tensor((2, 3), "int64"), tensor((), "float64")),
        S(tensor((2, 3), "bool"), tensor((2, 3), "int32"), tensor((3,), "float64")),
        S(tensor((2, 3), "bool"), tensor((2, 3), "float64"), tensor((2, 3), "float64")),
    ], lambda: [
        S(tensor((3,), "float32"), tensor((3,)), tensor((3,))),
        S(tensor((3,), "bool"), tensor((2, 1)), tensor((4,))),
    ]),
    OpInfo("clone", lambda: [S(tensor((2, 3), d)) for d in MAIN + ("bfloat16",)]
           + [S(tensor((), "float64"))]),
    # Internal ops behind hand-written methods: reached through those methods.
    OpInfo("_copy", lambda: [
        S(tensor((2, 3), "float32", grad=False), tensor((2, 3), "float64")),
        S(tensor((2, 3), "float64", grad=False), tensor((3,), "float64")),
        S(tensor((2, 3), "int64"), tensor((2, 3), "float64", grad=False)),
        S(tensor((2, 3), "float64", grad=False), tensor((), "bool")),
    ], lambda: [S(tensor((2, 3)), tensor((4,)))],
        call=lambda t, dst, src: dst.clone().copy_(src)),
    OpInfo("_fill", lambda: [
        S(tensor((2, 3), "float64"), 2.5), S(tensor((2, 3), "int64"), 3),
        S(tensor((2, 3), "float64", grad=False), tensor((), "float64")),
        S(tensor((2, 3), "bool"), 0),
    ], lambda: [S(tensor((2, 3)), tensor((2,)))], call=lambda t, x, v: x.clone().fill_(v)),
    OpInfo("_zero", lambda: [S(tensor((2, 3), d)) for d in MAIN],
           call=lambda t, x: x.clone().zero_()),
    OpInfo("_to_dtype", lambda: [
        S(tensor((2, 3), "float64"), getattr_dtype("float32")),
        S(tensor((2, 3), "float32"), getattr_dtype("int64")),
        S(tensor((2, 3), "int64"), getattr_dtype("float64")),
        S(tensor((2, 3), "float64"), getattr_dtype("bool")),
        S(tensor((2, 3), "complex128"), getattr_dtype("float64")),
        S(tensor((2, 3), "float32"), getattr_dtype("bfloat16")),
    ], call=lambda t, x, d: x.to(d)),
]

# ------------------------------------------------------------------ reductions and linalg


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


def _mm_samples():
    return [
        S(tensor((2, 3)), tensor((3, 4))),
        S(tensor((2, 3), "float64"), tensor((3, 4), "float64")),
        S(tensor((3,), "float64"), tensor((3,), "float64")),
        S(tensor((3,), "float64"), tensor((3, 4), "float64")),
        S(tensor((2, 3), "float64"), tensor((3,), "float64")),
        S(tensor((2, 2, 3), "float64"), tensor((3, 4), "float64")),
        S(tensor((2, 1, 2, 3), "float64"), tensor((3, 3, 2), "float64")),
        S(tensor((3,), "float64"), tensor((2, 3, 4), "float64")),
        S(tensor((2, 3), "int64"), tensor((3, 4), "int64")),
    ]


OPS.append(OpInfo("matmul", _mm_samples, lambda: [
    S(tensor((2, 3)), tensor((3, 4), "float64")), S(tensor((2, 3)), tensor((2, 3))),
    S(tensor((3,)), tensor((4,))), S(tensor(())), S(tensor((2, 2, 3)), tensor((3, 3, 4))),
    S(tensor((2, 2), "bool"), tensor((2, 2), "bool")),
], tol=dict(rtol=1e-5, atol=1e-5)))

OPS.append(OpInfo("mm", lambda: _mm_samples()[:2] + [_mm_samples()[-1]], lambda: [
    S(tensor((2, 3)), tensor((3, 4), "float64")), S(tensor((2, 3)), tensor((3,))),
    S(tensor((3,)), tensor((3, 2))), S(tensor((2, 3)), tensor((2, 3))),
], tol=dict(rtol=1e-5, atol=1e-5)))

# ------------------------------------------------------------------ views


def _view(*samples, errors=()):
    return dict(samples=lambda: list(samples), errors=lambda: list(errors), strides=True)


_X = tensor((2, 3, 4), "float64")
_M = tensor((3, 4), "float64")
OPS += [
    OpInfo("view", **_view(S(_X, (6, 4)), S(_X, (-1,)), S(_X, (4, -1, 2)), S(_M, (12,)),
                           S(tensor((), "float64"), (1,)), S(tensor((2, 3), "int64"), (3, 2)),
                           errors=[S(_X, (5, 5)), S(_X, (-1, -1))])),
    OpInfo("transpose", **_view(S(_X, 0, 1), S(_X, -1, 0), S(_M, 1, 1),
                                S(tensor((), "float64"), 0, -1), errors=[S(_X, 0, 3)])),
    OpInfo("t", **_view(S(_M), S(tensor((3,), "float64")), S(tensor((), "float64")),
                        errors=[S(_X)])),
    OpInfo("permute", **_view(S(_X, (2, 0, 1)), S(_X, (-1, 1, 0)), S(_M, (0, 1)),
                              errors=[S(_X, (0, 1)), S(_X, (0, 0, 1))])),
    OpInfo("expand", **_view(S(tensor((3, 1), "float64"), (2, 3, 4)),
                             S(tensor((3, 1), "float64"), (-1, 5)),
                             S(tensor((), "float64"), (2, 2)),
                             errors=[S(tensor((3, 2)), (3, 4)), S(_M, (4,))])),
    OpInfo("squeeze", **_view(S(tensor((2, 1, 3, 1), "float64")),
                              S(tensor((2, 1, 3, 1), "float64"), 1),
                              S(tensor((2, 1, 3, 1), "float64"), -1),
                              S(tensor((2, 1, 3, 1), "float64"), 0),
                              S(tensor((2, 1, 3, 1), "float64"), (1, 3)),
                              S(tensor((), "float64")), errors=[S(_M, 2)])),
    OpInfo("unsqueeze", **_view(S(_M, 0), S(_M, -1), S(_M, 1), S(tensor((), "float64"), 0),
                                errors=[S(_M, 3)])),
    OpInfo("select", **_view(S(_X, 0, 1), S(_X, 2, -1), S(_M, 1, 3),
                             errors=[S(_M, 0, 3), S(_M, 2, 0)])),
    OpInfo("narrow", **_view(S(_X, 0, 1, 1), S(_X, 2, 1, 2), S(_M, -1, 0, 4),
                             S(_M, 0, -2, 2), errors=[S(_M, 0, 2, 2)])),
    OpInfo("diagonal", **_view(S(_M), S(_M, 1), S(_M, -1), S(_X, 0, 0, 2),
                               S(_X, 1, -1, 1), errors=[S(_M, 0, 0, 0)])),
    OpInfo("unfold", **_view(S(_M, 1, 2, 1), S(_M, 0, 2, 1), S(_X, -1, 3, 2),
                             errors=[S(_M, 0, 5, 1)])),
    OpInfo("cat", lambda: [
        S([tensor((2, 3)), tensor((1, 3))]),
        S([tensor((2, 3), "float64"), tensor((2, 2), "float64")], 1),
        S((tensor((2, 3), "float64"), tensor((2, 3), "int64")), dim=-1),
        S([tensor((2, 3), "float64"), tensor((0,), "float64")]),
        S([tensor((2, 3), "int64")]),
    ], lambda: [S([tensor((2, 3)), tensor((2, 2))]), S([tensor(()), tensor(())]),
                S([tensor((2, 3)), tensor((3,))]), S([tensor((2, 3))], 2)]),
    OpInfo("stack", lambda: [
        S([tensor((2, 3)), tensor((2, 3))]),
        S([tensor((2, 3), "float64"), tensor((2, 3), "float64")], 2),
        S((tensor((2, 3), "float64"), tensor((2, 3), "int64")), dim=-1),
        S([tensor((), "float64"), tensor((), "float64")]),
    ], lambda: [S([tensor((2, 3)), tensor((3, 2))]), S([]), S([tensor((2,))], 2)]),
]

# ------------------------------------------------------------------ indexing and scatter

OPS += [
    OpInfo("_index", lambda: [
        S(_X, idx([1, 0, 1])), S(_M, T(np.array([True, False, True]), "bool")),
        S(_M, (slice(None), idx([[0, 3], [1, 1]]))), S(_X, (idx([0, 1]), 1, idx([3, 2]))),
    ], lambda: [S(_M, idx([3]))], call=lambda t, x, i: x[i]),
    OpInfo("_index_put", lambda: [
        S(tensor((3, 4), "float64"), idx([2, 0]), tensor((4,), "float64")),
        S(tensor((3, 4), "float64"), (slice(None), idx([1, 3])), 2.5),
        S(tensor((3, 4), "int64"), T(np.array([True, False, True]), "bool"), 7),
    ], lambda: [S(_M, idx([0]), tensor((3,)))], call=lambda t, x, i, v: _setitem(x, i, v)),
    OpInfo("index_add", lambda: [
        S(tensor((3, 4), "float64"), 0, idx([2, 0, 2]), tensor((3, 4), "float64")),
        S(tensor((3, 4), "float64"), 1, idx([1, 3]), tensor((3, 2), "float64"), alpha=2),
        S(tensor((3, 4), "int64"), -1, idx([0]), tensor((3, 1), "int64")),
    ], lambda: [S(_M, 0, idx([[0]]), tensor((1, 1, 4)))]),
    OpInfo("scatter", lambda: [
        S(tensor((3, 4), "float64"), 1, idx([[0, 1], [3, 2], [1, 0]]),
          tensor((3, 2), "float64")),
        S(tensor((3, 4), "float64"), 0, idx([[2, 0, 1, 0]]), tensor((1, 4), "float64")),
        S(tensor((3, 4), "float64", grad=False), 1, idx([[1], [2], [0]]),  # no derivative
          tensor((3, 1), "float64", grad=False), reduce="add"),
    ], lambda: [S(_M, 1, idx([1, 2]), tensor((2,)))]),
    OpInfo("scatter_add", lambda: [
        S(tensor((3, 4), "float64"), 1, idx([[0, 0], [3, 2], [1, 1]]),
          tensor((3, 2), "float64")),
        S(tensor((3, 4), "int64"), 0, idx([[2, 0, 2, 0]]), tensor((1, 4), "int64")),
    ], lambda: [S(_M, 1, idx([1, 2]), tensor((2,)))]),
    OpInfo("gather", lambda: [
        S(tensor((3, 4), "float64"), 1, idx([[0, 0], [3, 2], [1, 1]])),
        S(tensor((3, 4), "float64"), 0, idx([[2, 0, 2, 0], [1, 1, 1, 1]])),
        S(tensor((3, 4), "int64"), -1, idx([[0], [1], [2]])),
    ], lambda: [S(_M, 1, idx([1, 2]))]),
    OpInfo("masked_fill", lambda: [
        S(tensor((3, 4), "float64"), tensor((3, 4), "bool"), 2.5),
        S(tensor((3, 4), "float64"), tensor((4,), "bool"), tensor((), "float64")),
        S(tensor((3, 4), "int64"), tensor((3, 1), "bool"), 7),
    ], lambda: [S(_M, tensor((3, 4), "int64"), 1.0), S(_M, tensor((3, 4), "bool"),
                                                       tensor((2,), "float64"))]),
]


def _setitem(x, i, v):
    x = x.clone()
    x[i] = v
    return x


DB: dict[str, OpInfo] = {}
for _info in OPS:
    assert _info.name not in DB, f"duplicate opdb entry {_info.name}"
    DB[_info.name] = _info

# Registry ops without an entry here, and where they are tested instead.
SKIP: dict[str, str] = {
    **{n: "factory: tests/test_creation.py" for n in (
        "zeros", "ones", "empty", "full", "arange", "linspace", "eye")},
    **{n: "random: tests/test_random.py" for n in (
        "rand", "randn", "randint", "normal_", "uniform_")},
    **{n: "reached through the max/min overload entries" for n in (
        "max_all", "min_all", "max_dim", "min_dim")},
}
