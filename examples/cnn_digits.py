"""Train a small CNN on scikit-learn's bundled 8x8 handwritten digits (no downloads).

Ordinary PyTorch: a Dataset and DataLoader, nn.Module layers, Adam with a StepLR
schedule, a tqdm progress bar, evaluation under ``no_grad``, and a checkpoint saved with
``torch.save`` and restored with ``torch.load``. It runs unchanged on either backend:

    python examples/cnn_digits.py                        # jtorch (default)
    python examples/cnn_digits.py --compile              # each training step as one program
    TORCH_BACKEND=torch python examples/cnn_digits.py    # PyTorch, for comparison

It exits non-zero if the test accuracy is below 90%.
"""

import argparse
import importlib
import os
import tempfile
import time

import numpy as np
from sklearn.datasets import load_digits
from tqdm import tqdm

torch = importlib.import_module(os.environ.get("TORCH_BACKEND", "jtorch"))
nn = torch.nn
F = torch.nn.functional
DataLoader = torch.utils.data.DataLoader
TensorDataset = torch.utils.data.TensorDataset

EPOCHS = 6
BATCH = 64


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(32 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))  # 16 x 4 x 4
        x = self.pool(F.relu(self.conv2(x)))  # 32 x 2 x 2
        x = self.dropout(torch.flatten(x, 1))
        return self.fc2(F.relu(self.fc1(x)))


def load_data():
    """Digits as (N, 1, 8, 8) float32 in [0, 1] and int64 labels; a fixed 80/20 split."""
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(labels))
    cut = int(0.8 * len(labels))
    train, test = order[:cut], order[cut:]
    return (TensorDataset(torch.from_numpy(images[train]), torch.from_numpy(labels[train])),
            TensorDataset(torch.from_numpy(images[test]), torch.from_numpy(labels[test])))


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += y.numel()
    return correct / total


def main() -> None:
    parser = argparse.ArgumentParser(description="Train a small CNN on the digits.")
    parser.add_argument("--compile", action="store_true",
                        help="torch.compile the whole training step")
    args = parser.parse_args()
    torch.manual_seed(0)
    train_set, test_set = load_data()
    train_loader = DataLoader(train_set, batch_size=BATCH, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=256)

    model = DigitsCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

    def train_step(x, y):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    if args.compile:
        train_step = torch.compile(train_step)

    start = time.time()
    for epoch in range(1, EPOCHS + 1):
        model.train()
        total = 0.0
        bar = tqdm(train_loader, desc=f"epoch {epoch}", leave=False)
        for i, (x, y) in enumerate(bar):
            loss = train_step(x, y)
            total += loss.item()
            bar.set_postfix(loss=f"{total / (i + 1):.4f}")
        scheduler.step()
        print(f"epoch {epoch}  train loss {total / len(train_loader):.4f}  "
              f"test accuracy {evaluate(model, test_loader):.3f}  "
              f"lr {scheduler.get_last_lr()[0]:.5f}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "digits_cnn.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
        restored = DigitsCNN()
        restored.load_state_dict(torch.load(path)["model"])
    accuracy = evaluate(restored, test_loader)
    print(f"restored checkpoint: test accuracy {accuracy:.3f} "
          f"({time.time() - start:.1f}s in all)")
    if accuracy < 0.9:
        raise SystemExit(f"FAIL: test accuracy {accuracy:.3f} < 0.90")
    print("OK")


if __name__ == "__main__":
    main()
