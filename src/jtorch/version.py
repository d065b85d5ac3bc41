"""torch.version: the library's version and the accelerator toolkits it was built with."""

from __future__ import annotations

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

__version__ = "0.1.0"
# jtorch is not built against CUDA/ROCm/XPU toolkits (JAX's plugins bring their own), so it
# reports what PyTorch's CPU build reports.
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "Unknown"
