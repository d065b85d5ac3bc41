"""``torch.export.Dim``: dynamic dimensions as ``jax.export`` symbolic sizes.

A ``Dim("batch", min=, max=)`` becomes the symbol ``batch`` with those bounds as
constraints; ``2 * batch + 1`` (a derived dim) the symbolic expression of that text; one
``Dim`` object used for several dimensions makes them one symbol (equal sizes).
``Dim.AUTO`` and ``Dim.DYNAMIC`` give each dimension a symbol of its own, shared by the
hinted dimensions that have the same example size (jtorch imposes the equality a PyTorch
trace would infer).
"""

from __future__ import annotations

import enum
import inspect
import math
import re

from ..eager.tensor import Tensor

__all__ = ["Dim", "dims", "ConstraintViolationError", "UserError",
           "GuardOnDataDependentSymNode"]

_INT_OO = math.inf


class ConstraintViolationError(RuntimeError):
    """An example input outside a ``Dim``'s range."""


class UserError(RuntimeError):
    """A dimension marked dynamic that the model's code needs as a constant."""


class GuardOnDataDependentSymNode(RuntimeError):
    """The traced code needs a tensor's value in Python (PyTorch's class name)."""


class _DimHint(enum.Enum):
    AUTO = "AUTO"
    DYNAMIC = "DYNAMIC"
    STATIC = "STATIC"

    def __repr__(self) -> str:
        return f"DimHint({self.value})"


class Dim:
    """A named dynamic dimension: ``Dim("batch", min=2, max=64)``."""

    AUTO = _DimHint.AUTO
    DYNAMIC = _DimHint.DYNAMIC
    STATIC = _DimHint.STATIC

    def __init__(self, name: str, *, min: int | None = None, max: int | None = None):  # noqa: A002
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(f"Dim name must be a valid identifier, got {name!r}")
        lo = 0 if min is None else int(min)
        hi = _INT_OO if max is None else int(max)
        if lo < 0 or hi < lo:
            raise ValueError(f"Invalid range [{lo}, {hi}] for Dim {name}")
        self.__name__, self.min, self.max = name, lo, hi

    def __repr__(self) -> str:
        hi = "" if self.max == _INT_OO else f", max={self.max}"
        return f"Dim({self.__name__!r}, min={self.min}{hi})"

    def _expr(self) -> str:
        return self.__name__

    def _root(self) -> Dim:
        return self

    def __add__(self, other: int) -> _DerivedDim:
        return _DerivedDim(self._root(), f"{self._expr()} + {int(other)}")

    def __radd__(self, other: int) -> _DerivedDim:
        return self + other

    def __sub__(self, other: int) -> _DerivedDim:
        return _DerivedDim(self._root(), f"{self._expr()} - {int(other)}")

    def __mul__(self, other: int) -> _DerivedDim:
        return _DerivedDim(self._root(), f"{int(other)}*({self._expr()})")

    def __rmul__(self, other: int) -> _DerivedDim:
        return self * other


class _DerivedDim(Dim):
    """``2 * dim + 1``: a size given by an expression of one root ``Dim``."""

    def __init__(self, root: Dim, expr: str):
        self.__name__, self.min, self.max = expr, root.min, root.max
        self._root_dim = root

    def __repr__(self) -> str:
        return self.__name__

    def _root(self) -> Dim:
        return self._root_dim


def dims(*names: str, min: int | None = None, max: int | None = None) -> tuple[Dim, ...]:  # noqa: A002
    """Several ``Dim`` objects with one range."""
    return tuple(Dim(n, min=min, max=max) for n in names)


def bind_dynamic_shapes(fn, args, kwargs, dynamic_shapes):
    """``[(path, tensor, {dim: Dim | hint})]`` for the tensors ``dynamic_shapes`` marks."""
    if dynamic_shapes is None:
        return []
    if isinstance(dynamic_shapes, dict):
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs).arguments
        except TypeError as e:
            raise ValueError(f"dynamic_shapes: cannot match the inputs to forward: {e}") from e
        unknown = set(dynamic_shapes) - set(bound)
        if unknown:
            raise ValueError(f"dynamic_shapes has keys {sorted(unknown)} that are not "
                             f"inputs of forward (inputs: {list(bound)})")
        pairs = [(k, bound[k], dynamic_shapes[k]) for k in dynamic_shapes]
    elif isinstance(dynamic_shapes, tuple | list):
        values = list(args) + list(kwargs.values())
        if len(dynamic_shapes) != len(values):
            raise ValueError(f"dynamic_shapes has {len(dynamic_shapes)} entries for "
                             f"{len(values)} inputs")
        pairs = [(f"args[{i}]", v, s) for i, (v, s) in enumerate(zip(values, dynamic_shapes))]
    else:
        raise TypeError("dynamic_shapes must be a dict, tuple or list, got "
                        f"{type(dynamic_shapes).__name__}")
    out = []
    for path, value, spec in pairs:
        _walk(path, value, spec, out)
    return out


def _walk(path, value, spec, out) -> None:
    if spec is None:
        return
    if isinstance(value, Tensor):
        if isinstance(spec, dict):
            marks = dict(spec)
        elif isinstance(spec, tuple | list):
            marks = dict(enumerate(spec))
        else:
            raise ValueError(f"dynamic_shapes[{path}]: expected a dict or tuple of dims for "
                             f"a tensor, got {spec!r}")
        for d in list(marks):
            if not -value.dim() <= d < value.dim():
                raise ValueError(f"dynamic_shapes[{path}]: dim {d} out of range for a "
                                 f"{value.dim()}-d tensor")
            if marks[d] is None or marks[d] is _DimHint.STATIC:
                del marks[d]
            else:
                marks[d % value.dim()] = marks.pop(d)
        out.append((path, value, marks))
    elif isinstance(value, tuple | list) and isinstance(spec, tuple | list):
        for i, (v, s) in enumerate(zip(value, spec)):
            _walk(f"{path}[{i}]", v, s, out)
    elif isinstance(value, dict) and isinstance(spec, dict):
        for k, s in spec.items():
            _walk(f"{path}[{k!r}]", value[k], s, out)
    else:
        raise ValueError(f"dynamic_shapes[{path}]: spec {spec!r} does not match an input "
                         f"of type {type(value).__name__}")


def stages(marked) -> list[int]:
    """The fallbacks to try for ``Dim.AUTO``/``Dim.DYNAMIC`` hints (see ``symbols``)."""
    hints = {m for _, _, marks in marked for m in marks.values() if isinstance(m, _DimHint)}
    if _DimHint.AUTO in hints:
        return [0, 1, 2, 3]
    return [0, 1] if hints else [0]


def symbols(marked, stage: int = 0):
    """``({id(tensor): {dim: expression text}}, constraints, ranges)`` for jax.export.

    Hinted dimensions get a symbol each (``stage`` 0), one per example size (1), AUTO ones
    only on dim 0 (2), or AUTO ones none (3): a trace that fails at one stage retries at
    the next, PyTorch's AUTO specialising what the code needs. AUTO leaves sizes 0 and 1
    static, as PyTorch does. ``ranges`` maps each symbol to ``(min, max, hinted)``
    (``jax.export`` sizes are at least 1).
    """
    exprs, roots, by_size = {}, {}, {}
    for path, t, marks in marked:
        for d, mark in marks.items():
            size = t.shape[d]
            if isinstance(mark, _DimHint):
                auto = mark is _DimHint.AUTO
                if auto and (size < 2 or stage == 3 or (stage == 2 and d != 0)):
                    continue
                name = f"s{len(roots)}"
                if stage > 0:
                    name = by_size.setdefault(size, name)
                roots.setdefault(name, (1, _INT_OO, True))
            elif isinstance(mark, Dim):
                root = mark._root()
                _check_range(path, d, size, mark)
                roots.setdefault(root.__name__, (root.min, root.max, False))
                name = mark._expr()
            else:
                raise ValueError(f"dynamic_shapes[{path}]: {mark!r} is not a Dim")
            exprs.setdefault(id(t), {})[d] = name
    constraints, ranges = [], {}
    for name, (lo, hi, hinted) in roots.items():
        lo = max(lo, 1)
        if lo > 1:
            constraints.append(f"{name} >= {lo}")
        if hi != _INT_OO:
            constraints.append(f"{name} <= {hi}")
        ranges[name] = (lo, hi, hinted)
    return exprs, constraints, ranges


def _check_range(path, d, size, mark) -> None:
    if not isinstance(mark, _DerivedDim) and not mark.min <= size <= mark.max:
        hi = "int_oo" if mark.max == _INT_OO else mark.max
        raise ConstraintViolationError(
            f"{path}.size()[{d}] = {size} is not in range [{mark.min}, {hi}] of "
            f"{mark.__name__}")
