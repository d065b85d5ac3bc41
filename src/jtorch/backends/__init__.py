"""torch.backends: cuda.matmul and cudnn flags, mps. jtorch runs on XLA, so these report
what JAX's backends provide (no cuDNN and no MPS without a GPU, as PyTorch's CPU build)."""

from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
