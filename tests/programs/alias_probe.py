"""Probes the alias runner itself: argv, __main__, module identity and missing-API errors."""

import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim.lr_scheduler as sched
from torch.utils.data import DataLoader

print("argv", sys.argv[1:])
print("main", __name__)
print("path0", sys.path[0].endswith("programs"))
print("same", torch.nn is nn, nn.functional is F, torch.optim.lr_scheduler is sched)
print("dataloader", DataLoader.__name__)
print("hasattr", hasattr(torch, "no_such_api"), hasattr(torch.ones(1), "no_such_method"))
print("default", getattr(torch.nn, "NoSuchLayer", "fallback"))
for probe in ("torch.no_such_api", "torch.nn.NoSuchLayer", "torch.ones(1).no_such_method"):
    try:
        eval(probe)
    except AttributeError as e:
        print("missing", type(e).__name__, e)
try:
    import torch.no_such_module  # noqa: F401
except ImportError as e:
    print("import", type(e).__name__, e)
if __name__ == "__main__":
    print("main block ran")
