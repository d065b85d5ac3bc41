"""A DCGAN-style generator and discriminator on scikit-learn's 8x8 digits.

ConvTranspose2d, BatchNorm2d, LeakyReLU, Tanh and BCELoss, with the DCGAN paper's
``weights_init`` applied through ``Module.apply``. It runs unchanged on either backend:

    python examples/dcgan_digits.py                        # jtorch (default)
    python examples/dcgan_digits.py --compile              # each D+G step as one program
    TORCH_BACKEND=torch python examples/dcgan_digits.py    # PyTorch, for comparison

It prints both losses per epoch and a few generated digits as text, and exits non-zero
if training diverged (non-finite losses) or the samples stayed blank.
"""

import argparse
import importlib
import math
import os

import numpy as np
from sklearn.datasets import load_digits
from tqdm import tqdm

torch = importlib.import_module(os.environ.get("TORCH_BACKEND", "jtorch"))
nn = torch.nn

LATENT = 16
EPOCHS = 8
BATCH = 64


def weights_init(m):
    name = type(m).__name__
    if "Conv" in name:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif "BatchNorm" in name:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(LATENT, 64, 2, 1, 0, bias=False),  # 2x2
            nn.BatchNorm2d(64), nn.ReLU(True),
            nn.ConvTranspose2d(64, 32, 4, 2, 1, bias=False),  # 4x4
            nn.BatchNorm2d(32), nn.ReLU(True),
            nn.ConvTranspose2d(32, 1, 4, 2, 1, bias=False),  # 8x8
            nn.Tanh(),
        )

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, 32, 4, 2, 1, bias=False),  # 4x4
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(32, 64, 4, 2, 1, bias=False),  # 2x2
            nn.BatchNorm2d(64), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(64, 1, 2, 1, 0, bias=False),  # 1x1
            nn.Sigmoid(),
        )

    def forward(self, x):
        return self.main(x).view(-1)


def show(images) -> None:
    """Print images in [-1, 1] side by side with a 5-level character ramp."""
    ramp = " .:*#"
    rows = []
    for r in range(8):
        rows.append("  ".join("".join(ramp[min(4, int((v + 1) / 2 * 5))] for v in img[0, r])
                              for img in images))
    print("\n".join(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description="A DCGAN on the digits.")
    parser.add_argument("--compile", action="store_true", help="torch.compile each step")
    args = parser.parse_args()
    torch.manual_seed(0)
    images = load_digits().images.astype(np.float32) / 16.0 * 2.0 - 1.0  # [-1, 1]
    data = torch.utils.data.TensorDataset(torch.from_numpy(images[:, None]))
    loader = torch.utils.data.DataLoader(data, batch_size=BATCH, shuffle=True, drop_last=True)

    netG, netD = Generator(), Discriminator()
    netG.apply(weights_init)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    optD = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))
    fixed = torch.randn(6, LATENT, 1, 1)

    def train_step(real):
        b = real.size(0)
        ones, zeros = torch.full((b,), 1.0), torch.full((b,), 0.0)
        # Discriminator: real -> 1, fake -> 0.
        netD.zero_grad()
        fake = netG(torch.randn(b, LATENT, 1, 1))
        loss_d = criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)
        loss_d.backward()
        optD.step()
        # Generator: make the discriminator say 1.
        netG.zero_grad()
        loss_g = criterion(netD(fake), ones)
        loss_g.backward()
        optG.step()
        return loss_d, loss_g

    if args.compile:
        train_step = torch.compile(train_step)

    for epoch in range(1, EPOCHS + 1):
        d_total = g_total = 0.0
        for (real,) in tqdm(loader, desc=f"epoch {epoch}", leave=False):
            loss_d, loss_g = train_step(real)
            d_total += loss_d.item()
            g_total += loss_g.item()
        n = len(loader)
        print(f"epoch {epoch}  loss_D {d_total / n:.4f}  loss_G {g_total / n:.4f}")
        if not (math.isfinite(d_total) and math.isfinite(g_total)):
            raise SystemExit("FAIL: non-finite loss")

    netG.eval()
    with torch.no_grad():
        samples = netG(fixed).numpy()
    show(samples)
    spread = float(samples.std())
    print(f"sample pixel std {spread:.3f}")
    if spread < 0.1:
        raise SystemExit("FAIL: the generator's samples are blank")
    print("OK")


if __name__ == "__main__":
    main()
