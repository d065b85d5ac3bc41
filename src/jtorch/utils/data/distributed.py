"""DistributedSampler: each replica's share of a dataset."""

from __future__ import annotations

import math
from collections.abc import Iterator

from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _world():
    try:
        from ... import distributed as dist
    except ImportError:
        dist = None
    if dist is None or not dist.is_initialized():
        raise ValueError("Default process group has not been initialized, please make sure "
                         "to call init_process_group.")
    return dist


class DistributedSampler(Sampler):
    """Indices for replica ``rank`` of ``num_replicas``: the (optionally shuffled, seeded by
    ``seed + epoch``) index list, padded by repetition to a multiple of the replica count
    (or cut, with ``drop_last``), then every ``num_replicas``-th index from ``rank``."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None:
            num_replicas = _world().get_world_size()
        if rank is None:
            rank = _world().get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator:
        from ... import Generator, randperm

        n = len(self.dataset)
        if self.shuffle:
            g = Generator().manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch
