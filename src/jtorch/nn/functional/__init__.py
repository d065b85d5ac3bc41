"""torch.nn.functional: one family per file (``_activation.py``, ``_loss.py``, ...);
every file's ``__all__`` is re-exported here."""

from ..._discover import star_import_all

__all__ = star_import_all(__name__, __path__, globals())
