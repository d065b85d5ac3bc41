"""A variational autoencoder of handwritten digits (PyTorch's VAE example, on 8x8 digits).

The network and loss of pytorch/examples' ``vae/main.py`` (linear encoder to a mean and
log-variance, the reparameterisation trick with ``torch.randn_like``, a sigmoid decoder,
binary cross-entropy plus the KL term), Adam, on scikit-learn's bundled digits (no
downloads). Runs unchanged on PyTorch (``python vae.py``) and on jtorch
(``python -m jtorch vae.py``).
"""

import torch
import torch.nn.functional as F
from _common import digits, knobs, seeded_init, tick
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, hidden, latent):
        super().__init__()
        self.fc1 = nn.Linear(64, hidden)
        self.fc21 = nn.Linear(hidden, latent)
        self.fc22 = nn.Linear(hidden, latent)
        self.fc3 = nn.Linear(latent, hidden)
        self.fc4 = nn.Linear(hidden, 64)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    bce = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def main():
    args = knobs(__doc__.splitlines()[0], epochs=20, batch_size=128, hidden=200, latent=10,
                 lr=1e-3, shuffle=1)
    torch.manual_seed(1)
    images, _ = digits()
    cut = int(0.8 * len(images))
    train = TensorDataset(torch.from_numpy(images[:cut]))
    test_x = torch.from_numpy(images[cut:])
    loader = DataLoader(train, batch_size=args.batch_size, shuffle=bool(args.shuffle))
    model = VAE(args.hidden, args.latent)
    seeded_init(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    step = 0
    for epoch in range(args.epochs):
        model.train()
        total = 0.0
        for (x,) in loader:
            optimizer.zero_grad()
            recon, mu, logvar = model(x)
            loss = loss_function(recon, x, mu, logvar)
            loss.backward()
            total += loss.item()
            optimizer.step()
            step += 1
            if tick(step, args, loss=loss / len(x)):
                break
        model.eval()
        with torch.no_grad():
            recon, mu, logvar = model(test_x)
            test_loss = loss_function(recon, test_x, mu, logvar).item() / len(test_x)
        print(f"epoch {epoch} train loss {total / cut:.4f} test loss {test_loss:.4f}")
        if step == args.steps:
            break


if __name__ == "__main__":
    main()
