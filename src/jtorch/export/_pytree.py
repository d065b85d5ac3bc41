"""Inputs and outputs of an exported program as flat tensor lists plus a JSON-able spec.

The spec describes the nesting (tuples, lists, dicts, named tuples) and the non-tensor
leaves, which an exported program keeps as constants, so that a program loaded in a fresh
process (without the model's classes) can take and return the same structures.
"""

from __future__ import annotations

import collections
import importlib

from ..eager.tensor import Tensor

_CONSTANTS = (int, float, bool, str, type(None))


def flatten(obj, leaves: list, path: str = ""):
    """Append ``obj``'s tensors to ``leaves`` and return its spec."""
    if isinstance(obj, Tensor):
        leaves.append((path, obj))
        return {"t": "tensor", "i": len(leaves) - 1}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        cls = type(obj)
        return {"t": "namedtuple", "cls": f"{cls.__module__}:{cls.__qualname__}",
                "fields": list(obj._fields),
                "c": [flatten(v, leaves, f"{path}.{f}") for f, v in zip(obj._fields, obj)]}
    if isinstance(obj, tuple | list):
        return {"t": type(obj).__name__,
                "c": [flatten(v, leaves, f"{path}[{i}]") for i, v in enumerate(obj)]}
    if isinstance(obj, dict):
        keys = list(obj)
        if not all(isinstance(k, str | int) for k in keys):
            raise TypeError(f"torch.export: dict keys must be str or int, got {keys!r}")
        return {"t": "dict", "k": keys,
                "c": [flatten(obj[k], leaves, f"{path}[{k!r}]") for k in keys]}
    if isinstance(obj, _CONSTANTS):
        return {"t": "const", "v": obj}
    from .. import _dtypes as D
    from .._device import device

    if isinstance(obj, D.dtype):
        return {"t": "dtype", "v": obj.name}
    if isinstance(obj, device):
        return {"t": "device", "v": str(obj)}
    raise TypeError(f"torch.export: unsupported input or output {path or 'value'} of type "
                    f"{type(obj).__name__} (expected tensors, tuples, lists, dicts and "
                    "Python constants)")


def unflatten(spec, leaves):
    """The structure ``spec`` describes, with tensor ``leaves`` in their places."""
    t = spec["t"]
    if t == "tensor":
        return leaves[spec["i"]]
    if t == "const":
        return spec["v"]
    if t == "dtype":
        from .. import _dtypes as D

        return getattr(D, spec["v"])
    if t == "device":
        from .._device import device

        return device(spec["v"])
    children = [unflatten(c, leaves) for c in spec["c"]]
    if t == "tuple":
        return tuple(children)
    if t == "list":
        return children
    if t == "dict":
        return dict(zip(spec["k"], children))
    return _namedtuple(spec["cls"], spec["fields"])(*children)


def _namedtuple(path: str, fields):
    """The named tuple class ``path`` names, or one made with its name and fields when its
    module cannot be imported here (a fresh process without the model's code)."""
    module, _, qualname = path.partition(":")
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        if isinstance(obj, type) and tuple(getattr(obj, "_fields", ())) == tuple(fields):
            return obj
    except (ImportError, AttributeError):
        pass
    return collections.namedtuple(qualname.rsplit(".", 1)[-1], fields)


def same_structure(spec, actual) -> bool:
    """Whether two specs agree on structure and constants (tensor leaves match any)."""
    if spec["t"] != actual["t"]:
        return False
    if spec["t"] == "tensor":
        return spec["i"] == actual["i"]
    if "c" not in spec:
        return spec["v"] == actual["v"] and type(spec["v"]) is type(actual["v"])
    if spec.get("k") != actual.get("k") or len(spec["c"]) != len(actual["c"]):
        return False
    return all(same_structure(a, b) for a, b in zip(spec["c"], actual["c"]))
