"""An MLP regression trained with DataLoader, SGD + momentum and StepLR (PyTorch style)."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class MLP(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(2, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(F.tanh(self.fc1(x)))


def deterministic_init(model):
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--hidden", type=int, default=8)
    args = parser.parse_args()

    x = torch.stack([torch.linspace(-1, 1, 32), torch.linspace(1, -1, 32) ** 2], dim=1)
    y = (x[:, :1] * 2 - x[:, 1:] + 0.5).sin()
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=False)

    model = MLP(args.hidden)
    deterministic_init(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
    for epoch in range(args.epochs):
        model.train()
        total = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * xb.size(0)
        scheduler.step()
        print(f"epoch {epoch} loss {total / len(loader.dataset):.6f} "
              f"lr {scheduler.get_last_lr()[0]:.4f}")
    model.eval()
    with torch.no_grad():
        print(f"final mse {F.mse_loss(model(x), y).item():.6f}")


if __name__ == "__main__":
    main()
