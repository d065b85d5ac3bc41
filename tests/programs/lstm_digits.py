"""Classify handwritten digits with an LSTM that reads each image row by row.

The "MNIST with an RNN" pattern on scikit-learn's bundled 8x8 digits (no downloads):
each image is a sequence of 8 rows of 8 pixels, an ``nn.LSTM(batch_first=True)`` reads
it and a linear layer classifies its last hidden state; DataLoader, Adam, cross-entropy,
test accuracy. Runs unchanged on PyTorch (``python lstm_digits.py``) and on jtorch
(``python -m jtorch lstm_digits.py``).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from _common import digits, knobs, seeded_init, tick
from torch.utils.data import DataLoader, TensorDataset


class RowLSTM(nn.Module):
    def __init__(self, hidden, layers):
        super().__init__()
        self.lstm = nn.LSTM(8, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, 10)

    def forward(self, images):
        rows = images.squeeze(1)  # (batch, 8 rows, 8 pixels)
        out, _ = self.lstm(rows)
        return self.head(out[:, -1])


def accuracy(model, images, labels):
    model.eval()
    with torch.no_grad():
        return (model(images).argmax(1) == labels).float().mean().item()


def main():
    args = knobs(__doc__.splitlines()[0], epochs=10, batch_size=64, hidden=64, layers=2,
                 lr=0.005, shuffle=1)
    torch.manual_seed(0)
    images, labels = digits()
    cut = int(0.8 * len(labels))
    train = TensorDataset(torch.from_numpy(images[:cut]), torch.from_numpy(labels[:cut]))
    test_x, test_y = torch.from_numpy(images[cut:]), torch.from_numpy(labels[cut:])
    loader = DataLoader(train, batch_size=args.batch_size, shuffle=bool(args.shuffle))
    model = RowLSTM(args.hidden, args.layers)
    seeded_init(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
            if tick(step, args, loss=loss):
                break
        print(f"epoch {epoch} test accuracy {accuracy(model, test_x, test_y):.4f}")
        if step == args.steps:
            break


if __name__ == "__main__":
    main()
