"""Hand-written torch-level functions (compositions that are not registry ops), one module
per area, each with an ``__all__``; ``jtorch/__init__.py`` re-exports them all."""

from .._discover import star_import_all

__all__ = star_import_all(__name__, __path__, globals())
