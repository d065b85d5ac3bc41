"""Semi-supervised node classification with a graph convolutional network (Kipf & Welling).

A two-layer GCN on a synthetic citation-like graph (a stochastic block model with four
communities and noisy bag-of-words features, generated here: no downloads), with the
normalised dense adjacency D^-1/2 (A + I) D^-1/2, dropout, Adam with weight decay,
full-batch training on 20 labelled nodes per class and accuracy on the others, using
boolean masks as graph libraries do. Runs unchanged on PyTorch (``python gcn.py``) and on
jtorch (``python -m jtorch gcn.py``).
"""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from _common import knobs, seeded_init, tick


def make_graph(nodes=600, classes=4, features=64, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, nodes)
    same = labels[:, None] == labels[None, :]
    edges = rng.random((nodes, nodes)) < np.where(same, 0.03, 0.003)
    adj = np.triu(edges, 1)
    adj = (adj | adj.T).astype(np.float32)
    centers = rng.random((classes, features)) < 0.15
    words = (rng.random((nodes, features)) < 0.05) | (centers[labels] & (rng.random(
        (nodes, features)) < 0.5))
    train = np.zeros(nodes, bool)
    for c in range(classes):
        train[np.flatnonzero(labels == c)[:20]] = True
    return (torch.from_numpy(adj), torch.from_numpy(words.astype(np.float32)),
            torch.from_numpy(labels.astype(np.int64)), torch.from_numpy(train))


def normalized_adjacency(adj):
    a = adj + torch.eye(adj.shape[0])
    d = a.sum(1).pow(-0.5)
    return d[:, None] * a * d[None, :]


class GCN(nn.Module):
    def __init__(self, features, hidden, classes, dropout):
        super().__init__()
        self.w1 = nn.Linear(features, hidden)
        self.w2 = nn.Linear(hidden, classes)
        self.dropout = dropout

    def forward(self, x, a_hat):
        x = F.dropout(x, self.dropout, self.training)
        x = F.relu(a_hat @ self.w1(x))
        x = F.dropout(x, self.dropout, self.training)
        return F.log_softmax(a_hat @ self.w2(x), dim=1)


def main():
    args = knobs(__doc__.splitlines()[0], epochs=200, hidden=16, lr=0.01, dropout=0.5,
                 log_every=20)
    torch.manual_seed(0)
    adj, x, y, train_mask = make_graph()
    test_mask = ~train_mask
    a_hat = normalized_adjacency(adj)
    model = GCN(x.shape[1], args.hidden, int(y.max()) + 1, args.dropout)
    seeded_init(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4)
    for epoch in range(1, args.epochs + 1):
        model.train()
        optimizer.zero_grad()
        out = model(x, a_hat)
        loss = F.nll_loss(out[train_mask], y[train_mask])
        loss.backward()
        optimizer.step()
        if tick(epoch, args, loss=loss):
            break
    model.eval()
    with torch.no_grad():
        pred = model(x, a_hat).argmax(1)
    acc = (pred[test_mask] == y[test_mask]).float().mean().item()
    print(f"test accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
