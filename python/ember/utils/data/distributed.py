"""DistributedSampler: each of num_replicas processes gets its own share of the (shuffled) indices."""

import math

from ... import _C
from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _default_world():
    try:
        from ... import distributed as dist
    except ImportError:
        dist = None
    if dist is None or not getattr(dist, "is_available", lambda: False)():
        raise RuntimeError("Requires distributed package to be available")
    return dist


class DistributedSampler(Sampler):
    """Indices rank, rank + num_replicas, ... of the epoch's order. Without drop_last the order is padded with its
    own first indices to a multiple of num_replicas (so every replica gets the same number); with drop_last the tail
    is cut instead. The shuffled order depends on seed + epoch: call set_epoch at the start of each epoch."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None:
            num_replicas = _default_world().get_world_size()
        if rank is None:
            rank = _default_world().get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError("Invalid rank {}, rank should be in the interval [0, {}]".format(rank, num_replicas - 1))
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(self.dataset)
        if self.drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        # The order (permutation, padding, this replica's stride) is computed in C++ by the function the C++
        # DataLoader uses (ember/data/dataloader.h, epoch_indices); the seed keeps its low 64 bits, as manual_seed.
        seed = (self.seed + self.epoch) & 0xFFFFFFFFFFFFFFFF if self.shuffle else None
        return iter(_C._epoch_indices(len(self.dataset), seed, self.num_replicas, self.rank, self.drop_last).tolist())

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch, which with the seed decides the shuffled order (the same on every replica)."""
        self.epoch = epoch
