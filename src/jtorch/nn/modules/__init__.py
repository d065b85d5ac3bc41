"""nn modules, one family per file; every file's ``__all__`` is re-exported."""

from ..._discover import star_import_all

__all__ = star_import_all(__name__, __path__, globals())
