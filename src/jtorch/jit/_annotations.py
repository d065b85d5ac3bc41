"""TorchScript's annotations and decorators, with their meaning in eager PyTorch code."""

from __future__ import annotations

import builtins
import typing

from .. import compiler
from . import _script

__all__ = ["ignore", "unused", "export", "script_method", "interface", "script_if_tracing",
           "is_scripting", "is_tracing", "annotate", "Attribute", "isinstance", "Final"]

Final = typing.Final


def ignore(drop=False, **kwargs):
    """Leave a function to Python: ``@ignore`` or ``@ignore(drop=True)``; it runs as
    written."""
    if callable(drop):
        drop._torchscript_modifier = "ignore"
        return drop

    def decorator(fn):
        fn._torchscript_modifier = "unused" if drop else "ignore"
        return fn

    return decorator


def unused(fn):
    """Mark a method TorchScript should not compile; it runs as written."""
    if not builtins.isinstance(fn, property):
        fn._torchscript_modifier = "unused"
    return fn


def export(fn):
    """Mark a method to compile besides ``forward``; it runs as written."""
    fn._torchscript_modifier = "export"
    return fn


def script_method(fn):
    """The decorator of old ``ScriptModule`` subclasses' methods."""
    return fn


def interface(obj):
    """``@torch.jit.interface`` classes are ordinary Python classes here."""
    return obj


def script_if_tracing(fn):
    """Returns ``fn``: it runs as Python, traced or not."""
    return fn


def is_scripting() -> bool:
    """False: code never runs as TorchScript here."""
    return False


def is_tracing() -> bool:
    """True while the code of a ``torch.jit.trace``/``script`` result is being traced."""
    return _script._tracing[0] > 0 and compiler.is_compiling()


def annotate(the_type, the_value):
    """Returns ``the_value`` (the type is for TorchScript's compiler)."""
    return the_value


class Attribute(typing.NamedTuple):
    """``Attribute(value, type)``: a ``ScriptModule`` attribute with its TorchScript
    type; assigning one to a ``ScriptModule`` stores ``value``."""

    value: typing.Any
    type: typing.Any


def isinstance(obj, target_type) -> bool:  # noqa: A001 - torch.jit.isinstance
    """A runtime check that understands ``List[int]``, ``Dict[str, Tensor]``,
    ``Optional[...]`` and ``Tuple[...]``."""
    origin, targs = typing.get_origin(target_type), typing.get_args(target_type)
    if target_type is typing.Any:
        return True
    if origin is None:
        return builtins.isinstance(obj, target_type)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        return any(isinstance(obj, t) for t in targs)
    if not builtins.isinstance(obj, origin):
        return False
    if origin is list:
        return all(isinstance(v, targs[0]) for v in obj) if targs else True
    if origin is dict:
        return all(isinstance(k, targs[0]) and isinstance(v, targs[1])
                   for k, v in obj.items()) if targs else True
    if origin is tuple and targs:
        if len(targs) == 2 and targs[1] is Ellipsis:
            return all(isinstance(v, targs[0]) for v in obj)
        return len(obj) == len(targs) and all(isinstance(v, t) for v, t in zip(obj, targs))
    return True
