"""Samplers: the order in which a DataLoader visits a data set's indices, and its grouping into
batches. The random ones resume exactly: state_dict() holds the seed the current epoch's order
came from, and load_state_dict() makes the next epoch reuse it."""
from __future__ import annotations

from typing import Any, Iterator, Sequence

from ... import _C


class Sampler:
    """Yields indices (or, for a batch sampler, lists of them); subclasses define __iter__ and
    usually __len__."""

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class _Seeded:
    """An epoch's order comes from a Generator seeded with a number drawn, when the epoch
    starts, from `generator` (default: the default generator, as PyTorch draws it)."""

    generator: _C.Generator | None

    def _epoch_generator(self) -> _C.Generator:
        if getattr(self, "_resume_seed", None) is not None:
            seed, self._resume_seed = self._resume_seed, None
        elif self.generator is not None:
            seed = _C.randint(0, 2 ** 62, (), generator=self.generator).item()
        else:
            seed = _C.randint(0, 2 ** 62, ()).item()
        self._epoch_seed = seed
        return _C.Generator(seed)

    def state_dict(self) -> dict:
        """{"epoch_seed": the seed of the current (last begun) epoch's order, or None, and, with a
        generator of its own, "generator": that generator's state}."""
        state = {"epoch_seed": getattr(self, "_epoch_seed", None)}
        if self.generator is not None:
            state["generator"] = tuple(self.generator.get_state())
        return state

    def load_state_dict(self, state: dict) -> None:
        """The next epoch takes its order from the saved seed (the saved epoch's order); the
        sampler's own generator, if any, goes back to its saved state."""
        self._resume_seed = state.get("epoch_seed")
        if self.generator is not None and state.get("generator") is not None:
            self.generator.set_state(tuple(state["generator"]))


class RandomSampler(_Seeded, Sampler):
    """A random permutation of the indices each epoch (or, with replacement, num_samples draws)."""

    def __init__(self, data_source: Any, replacement: bool = False, num_samples: int | None = None,
                 generator: _C.Generator | None = None) -> None:
        self.data_source, self.replacement, self.generator = data_source, replacement, generator
        self._num_samples = num_samples
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples <= 0):
            raise ValueError(f"RandomSampler: num_samples must be a positive int, got {num_samples!r}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n, g = len(self.data_source), self._epoch_generator()
        if self.replacement:
            return iter(_C.randint(0, n, (self.num_samples,), generator=g).tolist())
        order: list[int] = []
        while len(order) < self.num_samples:
            order += _C.randperm(n, generator=g).tolist()
        return iter(order[:self.num_samples])

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(_Seeded, Sampler):
    """The given indices in a random order each epoch."""

    def __init__(self, indices: Sequence[int], generator: _C.Generator | None = None) -> None:
        self.indices, self.generator = list(indices), generator

    def __iter__(self) -> Iterator[int]:
        order = _C.randperm(len(self.indices), generator=self._epoch_generator()).tolist()
        return iter([self.indices[i] for i in order])

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Lists of batch_size indices from sampler (the last one shorter unless drop_last)."""

    def __init__(self, sampler: Any, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"BatchSampler: batch_size must be a positive int, got {batch_size!r}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
