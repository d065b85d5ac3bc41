"""Gather a package's modules: each area of a namespace is its own file, so adding an area
never edits a shared list (and parallel work on separate areas never collides)."""

from __future__ import annotations

import importlib
import pkgutil


def import_all(package: str, path) -> list:
    """Import every module of ``package`` (sorted by name, so the order is stable)."""
    return [importlib.import_module(f"{package}.{m.name}")
            for m in sorted(pkgutil.iter_modules(path), key=lambda m: m.name)]


def star_import_all(package: str, path, namespace: dict) -> list[str]:
    """``from .each_module import *`` for every module of ``package``; returns the names.
    A name exported by two modules is an error, not a silent override."""
    names: dict[str, str] = {}
    for mod in import_all(package, path):
        for name in getattr(mod, "__all__", ()):
            if name in names:
                raise ImportError(f"{name!r} is exported by both {names[name]} and "
                                  f"{mod.__name__}")
            names[name] = mod.__name__
            namespace[name] = getattr(mod, name)
    return list(names)
