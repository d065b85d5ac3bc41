"""torch.linalg: the registry ops declared with ``modules=("linalg",)``."""

from .eager.bind import export as _export

_export(globals(), "linalg")
