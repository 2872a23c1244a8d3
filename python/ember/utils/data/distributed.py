"""DistributedSampler: each rank's share of one global order (torch.utils.data.distributed).

Every rank draws the same global order for an epoch (a permutation seeded by seed + epoch, or
0..N-1) and takes every num_replicas-th index starting at its rank, so the ranks' batches of one
step are consecutive stretches of the global order. Its state is the number of samples of that
order the whole job has consumed: a job saved on 2 ranks and resumed on 3 (or 1) goes on with
the same global order from where it stopped.

    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for epoch in range(start_epoch, epochs):
        sampler.set_epoch(epoch)
        for batch in loader: ...
        state = loader.state_dict()     # holds {"epoch", "consumed", ...}: same on every rank

Like PyTorch's, without drop_last the share is padded by wrapping around the order so every rank
gets the same number of samples; with drop_last the tail that does not divide evenly is left out.
"""
from __future__ import annotations

import math
from typing import Any, Iterator, Optional

from ... import _C
from .sampler import Sampler


class DistributedSampler(Sampler):
    def __init__(self, dataset: Any, num_replicas: Optional[int] = None, rank: Optional[int] = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        from ... import distributed as dist
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if not isinstance(num_replicas, int) or num_replicas < 1:
            raise ValueError(f"DistributedSampler: num_replicas must be a positive int, got {num_replicas!r}")
        if not isinstance(rank, int) or not 0 <= rank < num_replicas:
            raise ValueError(f"DistributedSampler: invalid rank {rank!r}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        self.epoch = 0
        self._start = 0  # samples of this epoch's global order consumed before this iteration

    # ---- sizes, as PyTorch's (from the resume point on)
    def _remaining(self) -> int:
        return max(len(self.dataset) - self._start, 0)

    @property
    def num_samples(self) -> int:
        """This rank's samples in the current (possibly resumed) epoch."""
        n = self._remaining()
        if self.drop_last:
            return n // self.num_replicas
        return math.ceil(n / self.num_replicas)

    @property
    def total_size(self) -> int:
        return self.num_samples * self.num_replicas

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Selects the epoch's order; a new epoch starts at its first sample (unless a loaded
        state named this epoch)."""
        if epoch != self.epoch:
            self._start = 0
        self.epoch = epoch

    def global_order(self) -> list:
        """The epoch's order of every index (the same on every rank)."""
        n = len(self.dataset)
        if self.shuffle:
            return _C.randperm(n, generator=_C.Generator(self.seed + self.epoch)).tolist()
        return list(range(n))

    def __iter__(self) -> Iterator[int]:
        full = self.global_order()
        order = full[self._start:]
        if not order:
            return iter([])
        total = self.total_size
        if total > len(order):
            # Padded from the start of the epoch's order, as PyTorch pads (and as the job that
            # was not interrupted pads).
            pad = total - len(order)
            order += (full * math.ceil(pad / len(full)))[:pad]
        else:
            order = order[:total]
        return iter(order[self.rank:total:self.num_replicas])

    # ---- state: global samples consumed
    def state_dict(self, samples_served: int = 0) -> dict:
        """{"epoch", "consumed": samples of the epoch's global order the job has consumed, "seed",
        "shuffle", "num_samples": len(dataset)}. `samples_served`: this rank's samples handed out
        in the current iteration (the DataLoader passes it); every rank takes the same number per
        step, so the job consumed that many times num_replicas."""
        consumed = min(self._start + samples_served * self.num_replicas, len(self.dataset))
        return {"epoch": self.epoch, "consumed": consumed, "seed": self.seed, "shuffle": self.shuffle,
                "num_samples": len(self.dataset)}

    def load_state_dict(self, state: dict) -> None:
        """The next iteration continues the saved epoch's global order after its consumed samples,
        on however many ranks this sampler has."""
        for key, mine in (("seed", self.seed), ("shuffle", self.shuffle), ("num_samples", len(self.dataset))):
            if state.get(key, mine) != mine:
                raise ValueError(f"DistributedSampler.load_state_dict: the state is of a sampler with {key} "
                                 f"{state.get(key)!r}, this one has {mine!r}")
        consumed = state.get("consumed", 0)
        if not isinstance(consumed, int) or not 0 <= consumed <= len(self.dataset):
            raise ValueError(f"DistributedSampler.load_state_dict: consumed must be in [0, {len(self.dataset)}], "
                             f"got {consumed!r}")
        self.epoch = state.get("epoch", self.epoch)
        self._start = consumed

    # The DataLoader tells how far this rank got (see DataLoader.state_dict).
    _resumes_itself = True
