"""The PyTorch MNIST example's CNN, on the bundled digits resized to 28x28 (no downloads).

Same network, optimizer and schedule as pytorch/examples' ``mnist/main.py`` (two 3x3
convolutions, max pooling, dropout, two linear layers, log-softmax with ``nll_loss``,
Adadelta with StepLR), trained on scikit-learn's 8x8 digits resampled to MNIST's 28x28.
Runs unchanged on PyTorch (``python mnist_cnn.py``) and on jtorch
(``python -m jtorch mnist_cnn.py``).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from _common import digits, knobs, seeded_init, tick
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(2 * dropout)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


def test(model, loader, epoch):
    model.eval()
    loss, correct = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            loss += F.nll_loss(out, y, reduction="sum").item()
            correct += out.argmax(dim=1).eq(y).sum().item()
    n = len(loader.dataset)
    print(f"epoch {epoch} test loss {loss / n:.4f} accuracy {correct / n:.4f}")


def main():
    args = knobs(__doc__.splitlines()[0], epochs=3, batch_size=64, lr=1.0, gamma=0.7,
                 dropout=0.25, shuffle=1, log_every=10)
    torch.manual_seed(1)
    images, labels = digits(size=28)
    images = (images - 0.1307) / 0.3081  # MNIST's normalisation, as the example
    cut = int(0.8 * len(labels))
    train = TensorDataset(torch.from_numpy(images[:cut]), torch.from_numpy(labels[:cut]))
    held_out = TensorDataset(torch.from_numpy(images[cut:]), torch.from_numpy(labels[cut:]))
    train_loader = DataLoader(train, batch_size=args.batch_size, shuffle=bool(args.shuffle))
    test_loader = DataLoader(held_out, batch_size=1000)
    model = Net(args.dropout)
    seeded_init(model)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
            if tick(step, args, loss=loss):
                break
        scheduler.step()
        test(model, test_loader, epoch)
        if step == args.steps:
            break


if __name__ == "__main__":
    main()
