"""Train, checkpoint model + optimizer with torch.save, resume in a fresh model (PyTorch style)."""

import os
import sys
import tempfile

import torch
import torch.nn as nn


def make_model():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.linspace(-0.4, 0.6, p.numel()).view_as(p))
    return model


def train(model, optimizer, steps, x, y):
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.l1_loss(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


def main(path):
    x = torch.arange(12, dtype=torch.float32).reshape(4, 3) / 10
    y = x.sum(dim=1, keepdim=True) * 0.5 - 0.2
    model = make_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.01)
    print(f"loss after 3 steps {train(model, optimizer, 3, x, y):.6f}")
    torch.save({"epoch": 3, "model": model.state_dict(), "optim": optimizer.state_dict()}, path)

    checkpoint = torch.load(path)
    resumed = make_model()
    resumed.load_state_dict(checkpoint["model"])
    opt2 = torch.optim.AdamW(resumed.parameters(), lr=0.05, weight_decay=0.01)
    opt2.load_state_dict(checkpoint["optim"])
    print("resumed from epoch", checkpoint["epoch"])
    same = all(torch.equal(a, b) for a, b in zip(model.parameters(), resumed.parameters()))
    print("weights restored", same)
    print(f"loss after 3 more steps {train(resumed, opt2, 3, x, y):.6f}")
    print(f"original continued {train(model, optimizer, 3, x, y):.6f}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(d, "ckpt.pt"))
