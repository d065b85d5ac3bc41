"""torch.package: packaging code and pickled models into archives loaded by its importer.

Not supported in jtorch: its archives hold PyTorch's own pickled storages and importer
semantics; each entry point raises saying so.
"""

from __future__ import annotations

__all__ = ["PackageExporter", "PackageImporter", "PackagingError", "EmptyMatchError",
           "Importer", "OrderedImporter", "sys_importer", "Directory", "GlobGroup",
           "is_from_package"]


class PackagingError(Exception):
    """Raised by a PackageExporter that cannot package a dependency."""


class EmptyMatchError(Exception):
    """A pattern that must match nothing matched."""


def _unsupported(name):
    class Unsupported:
        def __init__(self, *args, **kwargs):
            raise RuntimeError(f"torch.package.{name} is not supported in jtorch")

    Unsupported.__name__ = Unsupported.__qualname__ = name
    return Unsupported


PackageExporter = _unsupported("PackageExporter")
PackageImporter = _unsupported("PackageImporter")
Importer = _unsupported("Importer")
OrderedImporter = _unsupported("OrderedImporter")
Directory = _unsupported("Directory")
GlobGroup = _unsupported("GlobGroup")
sys_importer = None


def is_from_package(obj) -> bool:
    """Whether ``obj`` came from a torch.package archive: never in jtorch."""
    return False
