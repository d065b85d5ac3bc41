"""Building blocks of the op database (see ``opdb/__init__.py``).

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
