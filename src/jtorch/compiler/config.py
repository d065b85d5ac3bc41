"""``torch._dynamo.config``-style settings of jtorch's compiler."""

from __future__ import annotations


class _Config:
    """Settings read by every compiled function (PyTorch's names where PyTorch has them)."""

    def __init__(self):
        self.enabled = True
        self.recompile_limit = 8  # programs per compiled function before it runs eagerly
        self.suppress_errors = False
        self.verbose = False
        # give XLA the buffers a program overwrites (parameters, optimizer state) to reuse
        self.donate = True
        # programs across all compiled functions before new ones run eagerly
        self.accumulated_recompile_limit = 256

    @property
    def cache_size_limit(self) -> int:
        return self.recompile_limit

    @cache_size_limit.setter
    def cache_size_limit(self, value: int) -> None:
        self.recompile_limit = int(value)

    @property
    def accumulated_cache_size_limit(self) -> int:
        return self.accumulated_recompile_limit

    @accumulated_cache_size_limit.setter
    def accumulated_cache_size_limit(self, value: int) -> None:
        self.accumulated_recompile_limit = int(value)


config = _Config()
