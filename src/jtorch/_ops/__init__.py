"""Op declarations, one module per area (see ``_registry.py``). Importing this package
imports every module in it, and each registers its ops; a new area is a new file."""

from .._discover import import_all

import_all(__name__, __path__)
