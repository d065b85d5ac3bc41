"""torch.overrides: the ``__torch_function__`` protocol helpers.

jtorch's own functions do not dispatch through ``__torch_function__`` (its tensors are not
subclassable at the dispatcher level), but these helpers implement the protocol for code
that calls them directly: ``handle_torch_function`` calls the overriding types'
``__torch_function__`` in PyTorch's order and raises PyTorch's TypeError when none handles
the call.
"""

from __future__ import annotations

import functools

from .eager.tensor import Tensor

__all__ = ["get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
           "handle_torch_function", "has_torch_function", "resolve_name", "is_tensor_like",
           "is_tensor_method_or_property", "wrap_torch_function", "enable_reentrant_dispatch",
           "has_torch_function_unary", "has_torch_function_variadic", "TorchFunctionMode",
           "BaseTorchFunctionMode"]


def _overrides(arg) -> bool:
    return type(arg) is not Tensor and hasattr(type(arg), "__torch_function__")


def has_torch_function(relevant_args) -> bool:
    """Whether any argument's type defines ``__torch_function__``."""
    return any(_overrides(a) for a in relevant_args)


def has_torch_function_unary(arg) -> bool:
    return _overrides(arg)


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def _overloaded_args(relevant_args) -> list:
    """PyTorch's order: subclasses before their parents, otherwise left to right."""
    types, args = [], []
    for arg in relevant_args:
        t = type(arg)
        if _overrides(arg) and t not in types:
            at = next((i for i, s in enumerate(types) if issubclass(t, s)), len(args))
            types.insert(at, t)
            args.insert(at, arg)
    return args


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call ``__torch_function__`` of the overriding arguments until one handles the call."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(map(type, overloaded))
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = resolve_name(public_api) or getattr(public_api, "__name__", repr(public_api))
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: {[type(a) for a in overloaded]}")


def is_tensor_like(inp) -> bool:
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def is_tensor_method_or_property(func) -> bool:
    return getattr(Tensor, getattr(func, "__name__", ""), None) is func


def resolve_name(f):
    """The dotted public name of ``f`` (``torch.add``), or None."""
    import jtorch

    for prefix, ns in (("torch", jtorch), ("torch.Tensor", Tensor),
                       ("torch.nn.functional", jtorch.nn.functional),
                       ("torch.linalg", jtorch.linalg)):
        name = getattr(f, "__name__", None)
        if name and getattr(ns, name, None) is f:
            return f"{prefix}.{name}"
    return None


def wrap_torch_function(dispatcher):
    """Decorate a function so calls on overriding arguments go to ``__torch_function__``."""

    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return inner


def get_ignored_functions() -> set:
    """Public functions that never dispatch: in jtorch, none do."""
    return set()


def get_overridable_functions() -> dict:
    """{namespace: [public functions]} of jtorch's overridable namespaces."""
    import jtorch

    spaces = {jtorch: jtorch, Tensor: Tensor, jtorch.nn.functional: jtorch.nn.functional,
              jtorch.linalg: jtorch.linalg}
    return {ns: [getattr(ns, n) for n in dir(ns)
                 if not n.startswith("_") and callable(getattr(ns, n))
                 and not isinstance(getattr(ns, n), type)] for ns in spaces}


def get_testing_overrides() -> dict:
    """{function: dummy returning -1}, over every overridable function."""
    return {f: (lambda *args, **kwargs: -1) for fs in get_overridable_functions().values()
            for f in fs}


class TorchFunctionMode:
    """A mode intercepting every torch function: jtorch's functions do not consult modes, so
    entering one raises rather than silently intercept nothing."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        raise RuntimeError("TorchFunctionMode is not supported in jtorch: its operations do "
                           "not dispatch through __torch_function__ modes")

    def __exit__(self, *exc):
        return False


class BaseTorchFunctionMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def enable_reentrant_dispatch():
    """A no-op context: jtorch has no dispatcher to re-enter."""
    import contextlib

    return contextlib.nullcontext()
