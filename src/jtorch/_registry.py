"""The op registry: one OpSpec per public op, the single source of truth for bindings.

``eager/bind.py`` turns each declaration into ``torch.X``, ``Tensor.X``, ``Tensor.X_``,
``out=`` and dunders. A declaration says which parameters are static (they key the
compiled kernel; everything else is a dynamic tensor or scalar operand), what the
backward saves (only saved tensors are version-checked), and for views the geometry
that gives PyTorch's strides. Registering a name twice raises.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import _strides as G
from . import return_types
from .functional import creation, indexing, linalg, random
from .functional import elementwise as E
from .functional import reduction as R
from .functional import shape as S


@dataclass(eq=False)
class OpSpec:
    name: str
    fn: Callable | None
    kind: str = "op"  # op | view | factory | like | random | random_ | overload
    static: tuple = ()
    function: bool = True
    method: bool = True
    inplace: bool = False
    out: bool = False
    dunders: tuple = ()  # e.g. ("add", "radd", "iadd") -> __add__, __radd__, __iadd__
    aliases: tuple = ()
    saves: str = "inputs"  # none | inputs | others | out | all
    grad_name: Any = ""  # or a function (statics dict, operands dict) -> name, for overloads
    geometry: Callable | None = None
    varargs: str | None = None  # the method form takes this parameter as *args
    returns: Any = None  # namedtuple type for structured results
    overloads: tuple = ()  # (predicate(args, kwargs), spec name) tried in order
    pointwise: bool = False  # the result takes its inputs' memory layout (TensorIterator)
    promotion: str = "default"  # "always_bool": computes in the common dtype, returns bool
    scalar_edges: bool = False  # a Python-number input/other is wrapped: (None, 0) edge
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.grad_name:
            camel = "".join(p.capitalize() for p in self.name.split("_"))
            self.grad_name = f"{camel}Backward0"

    def __repr__(self) -> str:
        return f"OpSpec({self.name})"


REGISTRY: dict[str, OpSpec] = {}


def register(spec: OpSpec) -> OpSpec:
    for name in (spec.name, *spec.aliases):
        if name in REGISTRY:
            raise ValueError(f"op {name!r} is registered twice")
        REGISTRY[name] = spec
    return spec


def op(name, fn, **kw) -> OpSpec:
    return register(OpSpec(name, fn, **kw))


# ------------------------------------------------------------------ elementwise

_BIN = dict(inplace=True, out=True, pointwise=True)


def _numbered(base: str, pick):
    """PyTorch numbers backward names per overload: SumBackward0 / SumBackward1 / ..."""
    return lambda statics, operands: f"{base}Backward{pick(statics, operands)}"


def _is_number(x) -> bool:
    return isinstance(x, bool | int | float | complex)


_WRAP = dict(scalar_edges=True)
op("add", E.add, dunders=("add", "radd", "iadd"), saves="none", **_WRAP, **_BIN)
op("sub", E.sub, dunders=("sub", "isub"), saves="none", aliases=("subtract",), **_WRAP,
   **_BIN)
op("rsub", E.rsub, method=False, saves="none", dunders=("rsub",), **_WRAP,
   grad_name=_numbered("Rsub", lambda s, o: int(_is_number(o.get("other")))))
op("mul", E.mul, dunders=("mul", "rmul", "imul"), aliases=("multiply",), saves="others", **_WRAP,
   **_BIN)
op("div", E.div, static=("rounding_mode",), dunders=("truediv", "rtruediv", "itruediv"), **_WRAP,
   aliases=("divide", "true_divide"), **_BIN)
op("floor_divide", E.floor_divide, dunders=("floordiv", "rfloordiv", "ifloordiv"), **_BIN)
op("remainder", E.remainder, dunders=("mod", "rmod", "imod"), **_BIN)
op("pow", E.pow, dunders=("pow", "rpow", "ipow"), **_BIN, grad_name=_numbered(
    "Pow", lambda s, o: 2 if _is_number(o.get("input")) else int(not _is_number(o["exponent"]))))
op("neg", E.neg, dunders=("neg",), saves="none", aliases=("negative",), **_BIN)
op("abs", E.abs, dunders=("abs",), aliases=("absolute",), **_BIN)
for _name in ("exp", "tanh", "sigmoid"):
    op(_name, getattr(E, _name), saves="out", **_BIN)
for _name in ("log", "sqrt", "sin", "cos"):
    op(_name, getattr(E, _name), **_BIN)
for _name, _d in (("eq", "eq"), ("ne", "ne"), ("lt", "lt"), ("le", "le"), ("gt", "gt"),
                  ("ge", "ge")):
    op(_name, getattr(E, _name), dunders=(_d,), saves="none", promotion="always_bool", **_BIN)
op("bitwise_and", E.bitwise_and, dunders=("and", "rand", "iand"), saves="none", **_BIN)
op("bitwise_or", E.bitwise_or, dunders=("or", "ror", "ior"), saves="none", **_BIN)
op("bitwise_xor", E.bitwise_xor, dunders=("xor", "rxor", "ixor"), saves="none", **_BIN)
op("bitwise_not", E.bitwise_not, saves="none", **_BIN)  # ~ is Tensor.__invert__ (methods)
for _name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    op(_name, getattr(E, _name), saves="none", promotion="always_bool", **_BIN)
op("where", E.where, saves="others", out=True, pointwise=True, method=False)
op("maximum", R.maximum, **{**_BIN, "inplace": False})  # PyTorch has no maximum_
op("minimum", R.minimum, **{**_BIN, "inplace": False})
op("clone", E.clone, static=("memory_format",), saves="none", extra={"fresh": True})
op("_copy", E.copy, function=False, method=False, saves="none", grad_name="CopyBackwards")
op("_fill", E.fill, function=False, method=False, saves="none", grad_name="FillBackward0")
op("_zero", E.zero, function=False, method=False, saves="none", grad_name="ZeroBackward0")
op("_to_dtype", E.to_dtype, static=("dtype",), function=False, method=False, saves="none",
   grad_name="ToCopyBackward0")

# ------------------------------------------------------------------ reductions and linalg

_BY_DIM = lambda s, o: int(s.get("dim") is not None)  # noqa: E731
op("sum", R.sum, static=("dim", "keepdim", "dtype"), saves="none", out=True,
   grad_name=_numbered("Sum", _BY_DIM))
op("mean", R.mean, static=("dim", "keepdim", "dtype"), saves="none", out=True,
   grad_name=_numbered("Mean", _BY_DIM))
op("max_all", R.max, function=False, method=False, grad_name="MaxBackward1")
op("min_all", R.min, function=False, method=False, grad_name="MinBackward1")
op("max_dim", R.max_dim, static=("dim", "keepdim"), function=False, method=False,
   grad_name="MaxBackward0", returns=return_types.max)
op("min_dim", R.min_dim, static=("dim", "keepdim"), function=False, method=False,
   grad_name="MinBackward0", returns=return_types.min)


def _has_other(args, kwargs) -> bool:
    return "other" in kwargs or (len(args) > 1 and not isinstance(args[1], int))


def _has_dim(args, kwargs) -> bool:
    return "dim" in kwargs or len(args) > 1


for _name in ("max", "min"):
    op(_name, None, kind="overload", overloads=(
        (_has_other, "maximum" if _name == "max" else "minimum"),
        (_has_dim, f"{_name}_dim"),
        (lambda a, k: True, f"{_name}_all"),
    ))
_MATMUL_NAMES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0"}
op("matmul", linalg.matmul, dunders=("matmul", "rmatmul"), out=True, grad_name=lambda s, o: (
    _MATMUL_NAMES.get((len(o["input"].shape), len(o["other"].shape)), "MmBackward0")),
   saves="others")
op("mm", linalg.mm, out=True, saves="others")

# ------------------------------------------------------------------ views

_V = dict(kind="view", saves="none")
op("view", S.view, geometry=G.g_view, varargs="size", function=False, **_V)
op("transpose", S.transpose, geometry=G.g_transpose, aliases=("swapaxes", "swapdims"), **_V)
op("t", S.t, geometry=G.g_t, **_V)
op("permute", S.permute, geometry=G.g_permute, varargs="dims", **_V)
op("expand", S.expand, geometry=G.g_expand, varargs="size", function=False, **_V)
op("squeeze", S.squeeze, geometry=G.g_squeeze, **_V, grad_name=_numbered(
    "Squeeze", lambda s, o: 0 if s.get("dim") is None else 1 if isinstance(s["dim"], int) else 2))
op("unsqueeze", S.unsqueeze, geometry=G.g_unsqueeze, **_V)
op("select", S.select, geometry=G.g_select, **_V)
op("narrow", S.narrow, geometry=G.g_narrow, grad_name="SliceBackward0", **_V)  # torch slices
op("diagonal", S.diagonal, geometry=lambda sh, st, o, offset=0, dim1=0, dim2=1: G.g_diagonal(
    sh, st, o, offset, dim1, dim2), **_V)
op("unfold", S.unfold, geometry=G.g_unfold, function=False, **_V)
op("cat", S.cat, static=("dim",), method=False, out=True, saves="none",
   aliases=("concat", "concatenate"))
op("stack", S.stack, static=("dim",), method=False, out=True, saves="none")

# ------------------------------------------------------------------ indexing and scatter

op("_index", indexing.index, static=("spec",), function=False, method=False, saves="inputs",
   grad_name="IndexBackward0")
op("_index_put", indexing.index_put, static=("spec", "accumulate"), function=False,
   method=False, saves="inputs", grad_name="IndexPutBackward0")
# XLA drops or clamps out-of-range indices silently; "index_bounds" has them checked on the
# host first (PyTorch checks too), naming the index operand.
_IDX = dict(extra={"index_bounds": "index"})
op("index_add", indexing.index_add, static=("dim",), inplace=True, out=True, saves="inputs",
   **_IDX)
op("scatter", indexing.scatter, static=("dim", "reduce"), inplace=True, out=True, **_IDX)
op("scatter_add", indexing.scatter_add, static=("dim",), inplace=True, out=True, **_IDX)
op("gather", indexing.gather, static=("dim",), out=True, **_IDX)
op("masked_fill", indexing.masked_fill, inplace=True, saves="inputs")

# ------------------------------------------------------------------ factories and random

_F = dict(kind="factory", method=False)
op("zeros", creation.zeros, varargs="size", **_F)
op("ones", creation.ones, varargs="size", **_F)
op("empty", creation.empty, varargs="size", **_F)
op("full", creation.full, **_F)
op("arange", creation.arange, **_F)
op("linspace", creation.linspace, **_F)
op("eye", creation.eye, **_F)
op("rand", random.rand, kind="random", varargs="size", method=False)
op("randn", random.randn, kind="random", varargs="size", method=False)
op("randint", random.randint, kind="random", method=False)
op("normal_", random.normal, kind="random_", function=False)
op("uniform_", random.uniform, kind="random_", function=False)
