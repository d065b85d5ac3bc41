"""Regress disease progression on scikit-learn's bundled diabetes data with an MLP.

A plain regression program: standardised features and target, a DataLoader, an MLP with
ReLU, mean-squared error, SGD with momentum and weight decay, a ReduceLROnPlateau
schedule on the validation loss, and R^2 on held-out patients. Runs unchanged on PyTorch
(``python diabetes_regression.py``) and on jtorch (``python -m jtorch diabetes_regression.py``).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from _common import knobs, seeded_init, tick
from torch.utils.data import DataLoader, TensorDataset


def load():
    import numpy as np
    from sklearn.datasets import load_diabetes

    x, y = load_diabetes(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    x, y = x[order].astype(np.float32), y[order].astype(np.float32)[:, None]
    cut = int(0.8 * len(y))
    mx, sx, my, sy = x[:cut].mean(0), x[:cut].std(0), y[:cut].mean(), y[:cut].std()
    x, y = (x - mx) / sx, (y - my) / sy
    return [torch.from_numpy(a) for a in (x[:cut], y[:cut], x[cut:], y[cut:])]


def main():
    args = knobs(__doc__.splitlines()[0], epochs=60, batch_size=32, hidden=64, lr=0.01,
                 shuffle=1)
    torch.manual_seed(0)
    train_x, train_y, val_x, val_y = load()
    loader = DataLoader(TensorDataset(train_x, train_y), batch_size=args.batch_size,
                        shuffle=bool(args.shuffle))
    model = nn.Sequential(nn.Linear(10, args.hidden), nn.ReLU(),
                          nn.Linear(args.hidden, args.hidden), nn.ReLU(),
                          nn.Linear(args.hidden, 1))
    seeded_init(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9,
                                weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=5)
    step = 0
    for _epoch in range(args.epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
            if tick(step, args, loss=loss):
                break
        model.eval()
        with torch.no_grad():
            val = F.mse_loss(model(val_x), val_y).item()
        scheduler.step(val)
        if step == args.steps:
            break
    r2 = 1 - val / val_y.var(unbiased=False).item()
    print(f"validation mse {val:.4f} r2 {r2:.4f} lr {optimizer.param_groups[0]['lr']:.5f}")


if __name__ == "__main__":
    main()
