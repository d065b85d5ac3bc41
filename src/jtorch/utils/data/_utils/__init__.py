"""DataLoader internals: collation and worker processes."""

from . import collate, worker  # noqa: F401
