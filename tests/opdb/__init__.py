"""The op database: one entry per registry op, driving the generic tests in test_ops.py.

An entry names a registry op and says how to build its sample inputs (NumPy data, turned
into tensors by each backend), which bad inputs must raise, whether it is differentiable
and its tolerances. Which bindings to test (function, method, in-place, ``out=``) comes
from the registry's own declaration, so a new binding is tested as soon as it exists.
Shapes are shared across entries so JAX compiles each op/shape/dtype combination once.

Entries live in one module per area (mirroring ``src/jtorch/_ops``); each module has
``OPS`` (a list of OpInfo) and optionally ``SKIP`` (registry name -> where it is tested
instead). A new area is a new module in this folder; every module but ``core`` is read.
"""

from __future__ import annotations

import importlib
import pkgutil

from opdb.core import OpInfo, leaves, make, resolve  # noqa: F401 - re-exported

AREAS = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name != "core")

OPS: list[OpInfo] = []
SKIP: dict[str, str] = {}
for _area in AREAS:
    _mod = importlib.import_module(f"opdb.{_area}")
    OPS += getattr(_mod, "OPS", [])
    SKIP.update(getattr(_mod, "SKIP", {}))

DB: dict[str, OpInfo] = {}
for _info in OPS:
    assert _info.name not in DB, f"duplicate opdb entry {_info.name}"
    DB[_info.name] = _info
