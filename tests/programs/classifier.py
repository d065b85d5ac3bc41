"""A small CNN classifier: custom Dataset, Adam, CosineAnnealingLR, accuracy (PyTorch style)."""

import sys

import torch
from torch import nn, optim
from torch.utils.data import DataLoader, Dataset


class Stripes(Dataset):
    """8x8 images with a horizontal (class 0) or vertical (class 1) stripe."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        img = torch.zeros(1, 8, 8)
        label = i % 2
        if label == 0:
            img[0, i % 8, :] = 1.0
        else:
            img[0, :, i % 8] = 1.0
        return img, label


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(4 * 4 * 4, 2)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def main(epochs):
    model = Net()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32)).reshape(p.shape) * 0.3)
    loader = DataLoader(Stripes(16), batch_size=4)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        correct, seen, running = 0, 0, 0.0
        for images, labels in loader:
            logits = model(images)
            loss = criterion(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
            correct += (logits.argmax(dim=1) == labels).sum().item()
            seen += labels.numel()
        scheduler.step()
        print(f"epoch {epoch}: loss={running / len(loader):.5f} acc={correct / seen:.3f}")
    print("params", sum(p.numel() for p in model.parameters()))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
