"""Datasets for test_data.py's worker-process tests (importable without PyTorch)."""

from __future__ import annotations

import os

import jtorch


class PidDataset(jtorch.utils.data.Dataset):
    """Each item records which process fetched it."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = jtorch.utils.data.get_worker_info()
        return jtorch.tensor([i, os.getpid(), -1 if info is None else info.id])


class ShardedStream(jtorch.utils.data.IterableDataset):
    """Splits its range between workers through get_worker_info, as PyTorch's docs show."""

    def __iter__(self):
        info = jtorch.utils.data.get_worker_info()
        if info is None:
            return iter(range(10))
        return iter(range(info.id, 10, info.num_workers))


def init_worker(worker_id):
    os.environ["JT_WORKER_INIT"] = str(worker_id)


class SeedDataset(jtorch.utils.data.Dataset):
    """What each worker's random streams hold: its seed, then one draw from each."""

    def __len__(self):
        return 2

    def __getitem__(self, i):
        import random

        import numpy as np

        info = jtorch.utils.data.get_worker_info()
        return (info.seed, info.id, random.random(), float(np.random.random()),
                jtorch.rand(()).item())


class ParentDataset(jtorch.utils.data.Dataset):
    """Each item: the fetching process's parent, and a value computed with JAX there."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return jtorch.tensor([float(os.getppid()), (jtorch.arange(3.0) * i).sum().item()])
