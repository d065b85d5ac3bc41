"""A variational autoencoder on scikit-learn's 8x8 digits, written with torch.distributions.

The encoder outputs a diagonal ``Normal`` posterior, sampled with ``rsample`` (the
reparameterisation trick), the decoder a ``Bernoulli`` likelihood per pixel, and the loss
is the negative ELBO with ``kl_divergence`` against the standard-normal prior. It runs
unchanged on either backend:

    python examples/vae_digits.py                        # jtorch (default)
    python examples/vae_digits.py --compile              # each training step as one program
    TORCH_BACKEND=torch python examples/vae_digits.py    # PyTorch, for comparison

It prints the ELBO per epoch and exits non-zero unless training improves it by a clear
margin. Random streams differ between the backends, so the numbers agree closely, not
exactly.
"""

import argparse
import importlib
import os
import sys

from sklearn.datasets import load_digits

torch = importlib.import_module(os.environ.get("TORCH_BACKEND", "jtorch"))
nn = torch.nn
D = torch.distributions

LATENT = 4
EPOCHS = 15
BATCH = 128


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 128), nn.ReLU(), nn.Linear(128, 64))

    def forward(self, x):
        """The negative ELBO of a batch, averaged over its images."""
        loc, log_scale = self.encoder(x).chunk(2, dim=-1)
        posterior = D.Independent(D.Normal(loc, log_scale.exp()), 1)
        prior = D.Independent(D.Normal(torch.zeros_like(loc), torch.ones_like(loc)), 1)
        z = posterior.rsample()
        likelihood = D.Independent(D.Bernoulli(logits=self.decoder(z)), 1)
        elbo = likelihood.log_prob(x) - D.kl_divergence(posterior, prior)
        return -elbo.mean()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", action="store_true", help="torch.compile each step")
    args = parser.parse_args()
    torch.manual_seed(0)
    images = torch.tensor(load_digits().data / 16.0, dtype=torch.float32)
    binary = (images > 0.5).float()
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)

    def train_step(batch):
        loss = model(batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    if args.compile:
        # Argument validation reads values on the host, which would run every step eagerly.
        D.Distribution.set_default_validate_args(False)
        train_step = torch.compile(train_step)
    losses = []
    for epoch in range(EPOCHS):
        order = torch.randperm(len(binary))
        total = 0.0
        for i in range(0, len(binary) - BATCH + 1, BATCH):
            total += train_step(binary[order[i:i + BATCH]]).item()
        losses.append(total / (len(binary) // BATCH))
        print(f"epoch {epoch + 1:2d}  -ELBO per image {losses[-1]:.2f} nats")
    return 0 if losses[-1] < 0.8 * losses[0] else 1


if __name__ == "__main__":
    sys.exit(main())
