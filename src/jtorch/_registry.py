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
    # none | unchecked | inputs | others | out | all. "none": no tensor saved and the
    # gradient reads no input's value (a released node replays from zeros: add, sum, cat);
    # "unchecked": none version-checked, but the gradient reads the inputs.
    saves: str = "inputs"
    grad_name: Any = ""  # or a function (statics dict, operands dict) -> name, for overloads
    geometry: Callable | None = None
    varargs: str | None = None  # the method form takes this parameter as *args
    returns: Any = None  # namedtuple type for structured results
    overloads: tuple = ()  # (predicate(args, kwargs), spec name) tried in order
    pointwise: bool = False  # the result takes its inputs' memory layout (TensorIterator)
    promotion: str = "default"  # "always_bool": computes in the common dtype, returns bool
    # The first two operands are graph inputs whatever their type: True, a Python number
    # too (wrapped into a tensor: add/sub/mul/div); "tensors", tensors only (rsub, whose
    # number form is a Scalar overload). An input/other of an integer type then gets its
    # (None, 0) edge, as in PyTorch; other ops list only floating ones.
    scalar_edges: bool | str = False
    # The gradient keeps the forward's residuals (a forward-with-VJP kernel) instead of
    # recomputing the forward from the inputs in the backward: for ops whose gradient reads
    # costly intermediates (a recurrent scan, decompositions, sorts, attention weights).
    residuals: bool = False
    # Further namespaces holding the function form, e.g. ("linalg",) or ("nn.functional",);
    # with function=False the op lives only there. Each namespace module pulls its ops in
    # with ``eager.bind.export(globals(), "linalg")``.
    modules: tuple = ()
    # "index_bounds": operand name checked on the host against input's size at dim;
    # "check": fn(operands dict, statics dict) run on the host before the kernel, for
    # data-dependent errors PyTorch raises (integer division by zero, ...);
    # "constant": fn(operands dict) naming the number operands compiled into the kernel;
    # "by_types": True where "check" and "constant" answer from the operands' dtypes and
    # number values alone (pow), so the fast path runs them once per such types;
    # "layout": fn(result, operands dict) setting the result's strides (channels_last);
    # "groups": n, a cat of more than n tensors runs as a cat of cats (bind._in_groups).
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.grad_name:
            camel = "".join(p.capitalize() for p in self.name.split("_"))
            self.grad_name = f"{camel}Backward0"
        elif not isinstance(self.grad_name, str) and not hasattr(self.grad_name, "by_statics"):
            self.grad_name.by_statics = False  # read by the fast paths (see ``numbered``)

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


# ------------------------------------------------------------------ helpers for declarations

BIN = dict(inplace=True, out=True, pointwise=True)  # a pointwise op with x.op_ and out=
WRAP = dict(scalar_edges=True)  # a Python-number operand is a wrapped-scalar graph edge


def numbered(base: str, pick, by_statics: bool = False):
    """PyTorch numbers backward names per overload: SumBackward0 / SumBackward1 / ...
    ``by_statics``: ``pick`` reads the static arguments only (a binding may then keep the
    name per kernel: ``fast_paths._unrecorded``)."""
    names: dict = {}  # overload number -> name: made once, not per recorded node

    def name(statics, operands) -> str:
        n = pick(statics, operands)
        text = names.get(n)
        if text is None:
            text = names[n] = f"{base}Backward{n}"
        return text

    name.by_statics = by_statics
    return name


_NUMBER = (bool, int, float, complex)  # a tuple: ``bool | int | ...`` builds unions per call


def is_number(x) -> bool:
    return isinstance(x, _NUMBER)


# The declarations, one module per area; each registers its ops on import.
from . import _ops  # noqa: E402,F401
