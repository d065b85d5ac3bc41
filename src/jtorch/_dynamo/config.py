"""torch._dynamo.config: reads and writes go to jtorch's compiler settings."""

from __future__ import annotations

import sys
import types

from ..compiler.config import config as _config


class _ConfigModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_config, name)

    def __setattr__(self, name, value):
        if name.startswith("__"):
            super().__setattr__(name, value)
        else:
            setattr(_config, name, value)


sys.modules[__name__].__class__ = _ConfigModule
