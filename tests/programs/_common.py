"""Helpers the example programs share: bundled data (no downloads) and a reproducible start.

``seeded_init`` draws every parameter from NumPy instead of torch's generator, in the
range of PyTorch's default initialisation, so that one program started on PyTorch and on
jtorch takes the same first step (their random streams differ) and their losses can be
compared step by step.
"""

import argparse
import math

import numpy as np
import torch


def knobs(description, **defaults):
    """Command-line knobs every program takes: --epochs, --steps (stop early), --log-every."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--epochs", type=int, default=defaults.pop("epochs", 1))
    parser.add_argument("--steps", type=int, default=defaults.pop("steps", 0),
                        help="stop after this many steps")
    parser.add_argument("--log-every", type=int, default=defaults.pop("log_every", 50))
    for name, value in defaults.items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    return parser.parse_args()


def seeded_init(model, seed=0):
    """Fill every parameter from NumPy: uniform(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for p in model.parameters():
            fan_in = math.prod(p.shape[1:]) if p.dim() > 1 else p.shape[0]
            bound = 1.0 / math.sqrt(fan_in)
            values = rng.uniform(-bound, bound, tuple(p.shape))
            p.copy_(torch.from_numpy(values).to(p.dtype))


def digits(size=8, seed=0):
    """scikit-learn's 8x8 digits scaled to [0, 1] (optionally resized to size x size), in a
    fixed shuffled order: (images (N, 1, size, size) float32, labels (N,) int64)."""
    from sklearn.datasets import load_digits

    data = load_digits()
    images = (data.images / 16.0).astype(np.float32)
    if size != 8:
        # Bilinear resampling by two small matrices: an MNIST-sized picture of each digit.
        grid = np.clip((np.arange(size) + 0.5) * 8 / size - 0.5, 0, 7)
        lo = np.floor(grid).astype(int)
        hi = np.minimum(lo + 1, 7)
        w = (grid - lo)[:, None]
        m = np.zeros((size, 8), np.float32)
        m[np.arange(size), lo] += (1 - w[:, 0])
        m[np.arange(size), hi] += w[:, 0]
        images = np.einsum("ij,njk,lk->nil", m, images, m).astype(np.float32)
    order = np.random.default_rng(seed).permutation(len(images))
    return images[order][:, None], data.target[order].astype(np.int64)


def tick(step, args, **metrics):
    """After a step: log ``metrics`` (tensors or numbers) every ``--log-every`` steps; True
    when ``--steps`` says to stop. Tensors are read (``.item()``) only when logged."""
    if step % args.log_every == 0:
        log(step, **{k: v.item() if hasattr(v, "item") else v for k, v in metrics.items()})
    return step == args.steps


def log(step, **metrics):
    text = " ".join(f"{k} {v}" if isinstance(v, int) else f"{k} {v:.6f}"
                    for k, v in metrics.items())
    print(f"step {step} {text}", flush=True)
