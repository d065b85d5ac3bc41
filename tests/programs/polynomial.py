"""Fit sin(x) with a cubic polynomial by hand-written gradient descent: many tiny ops.

The "PyTorch: Tensors and autograd" program of PyTorch's "Learning PyTorch with
Examples" tutorial: four scalar parameters, a forward of a handful of elementwise ops on
2,000 points, ``loss.backward()``, in-place updates under ``no_grad`` and ``grad = None``,
for 30,000 steps. Each step is a few microseconds of arithmetic, so the program measures
per-op overhead. Runs unchanged on PyTorch (``python polynomial.py``) and on jtorch
(``python -m jtorch polynomial.py``).
"""

import math

import numpy as np
import torch
from _common import knobs, log


def main():
    args = knobs(__doc__.splitlines()[0], steps=30000, log_every=1000, lr=1e-6)
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=torch.float)
    y = torch.sin(x)
    # Random starting coefficients, drawn by NumPy so that both libraries start alike.
    start = np.random.default_rng(0).standard_normal(4)
    a, b, c, d = (torch.tensor(v, dtype=torch.float, requires_grad=True) for v in start)
    for t in range(args.steps):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        if t % args.log_every == args.log_every - 1:
            log(t + 1, loss=loss.item())
        loss.backward()
        with torch.no_grad():
            a -= args.lr * a.grad
            b -= args.lr * b.grad
            c -= args.lr * c.grad
            d -= args.lr * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    print(f"Result: y = {a.item():.6f} + {b.item():.6f} x + {c.item():.6f} x^2 + "
          f"{d.item():.6f} x^3")


if __name__ == "__main__":
    main()
