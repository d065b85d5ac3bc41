"""Fit y = 2x^3 - x + 0.5 + noise with polynomial features and plain gradient descent.

Written in ordinary PyTorch style (tensors, autograd, in-place updates under ``no_grad``;
no nn, no optim). It runs unchanged on either backend:

    python examples/regression.py                        # jtorch (default)
    python examples/regression.py --compile              # each step as one program
    TORCH_BACKEND=torch python examples/regression.py    # PyTorch, for comparison

It exits non-zero if the fit is bad. For the same seed the two backends draw different
noise (jtorch's random streams are JAX's), so their numbers agree closely, not exactly.
"""

import argparse
import importlib
import os

torch = importlib.import_module(os.environ.get("TORCH_BACKEND", "jtorch"))

NOISE_STD = 0.1
STEPS = 500
LR = 0.5


def make_data(n: int):
    """Points on [-1, 1] with Gaussian noise; x and y have shape (n, 1)."""
    x = torch.linspace(-1.0, 1.0, n).unsqueeze(1)
    y = 2.0 * x**3 - x + 0.5 + NOISE_STD * torch.randn(n, 1)
    return x, y


def features(x):
    """Polynomial features [x, x^2, x^3], shape (n, 3); the constant term is the bias."""
    return torch.cat([x, x**2, x**3], dim=1)


def main() -> None:
    parser = argparse.ArgumentParser(description="Polynomial regression by gradient descent.")
    parser.add_argument("--compile", action="store_true", help="torch.compile each step")
    args = parser.parse_args()
    torch.manual_seed(0)
    x, y = make_data(200)
    X = features(x)

    w = torch.zeros(3, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)

    def gd_step():
        loss = ((X @ w + b - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w.sub_(LR * w.grad)
            b.sub_(LR * b.grad)
        w.grad = None
        b.grad = None
        return loss

    if args.compile:
        gd_step = torch.compile(gd_step)

    for step in range(STEPS + 1):
        loss = gd_step()
        if step % 100 == 0:
            print(f"step {step:4d}  loss {loss.item():.5f}")

    final_loss = ((X @ w + b - y) ** 2).mean().item()
    true_w = torch.tensor([[-1.0], [0.0], [2.0]])
    coeff_err = ((w - true_w) ** 2).sum().item() + ((b - 0.5) ** 2).sum().item()

    print("learned w (coefficients of x, x^2, x^3):")
    print(w.detach())
    print("learned b (constant term):")
    print(b.detach())
    print("true:     y = -1.0 x + 0.0 x^2 + 2.0 x^3 + 0.5")
    print(f"final loss {final_loss:.5f} (noise floor ~{NOISE_STD**2:.5f})")
    print(f"squared coefficient error {coeff_err:.5f}")

    # The best achievable loss is about NOISE_STD**2; twice that means no convergence.
    if not final_loss < 2 * NOISE_STD**2:
        raise SystemExit(f"FAIL: final loss {final_loss:.5f} >= {2 * NOISE_STD**2:.5f}")
    if not coeff_err < 0.05:
        raise SystemExit(f"FAIL: squared coefficient error {coeff_err:.5f} >= 0.05")
    print("OK")


if __name__ == "__main__":
    main()
