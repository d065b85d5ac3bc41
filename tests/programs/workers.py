"""DataLoader with worker processes (PyTorch style): per-epoch sums of the batches."""

import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return torch.tensor([float(i * i)]), i


def main():
    loader = DataLoader(Squares(), batch_size=4, num_workers=2)
    for epoch in range(2):
        total = sum(float(x.sum()) for x, _ in loader)
        labels = [y.tolist() for _, y in loader]
        print(f"epoch {epoch} total {total:.1f} batches {len(labels)} {labels}")


if __name__ == "__main__":
    main()
