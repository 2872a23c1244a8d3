"""Data sets as PyTorch defines them: indexable (Dataset: __getitem__ and __len__) or iterable
(IterableDataset), and the ways to combine and split them."""
from __future__ import annotations

import bisect
import math
from typing import Any, Generic, Iterator, Sequence, TypeVar

from ... import _C

T = TypeVar("T")


class Dataset(Generic[T]):
    """A map-style data set: dataset[i] is sample i; subclasses define __getitem__ and __len__."""

    def __getitem__(self, index: int) -> T:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other: "Dataset[T]") -> "ConcatDataset[T]":
        return ConcatDataset([self, other])


class IterableDataset(Generic[T]):
    """A stream of samples: subclasses define __iter__ (a DataLoader then takes no sampler)."""

    def __iter__(self) -> Iterator[T]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class TensorDataset(Dataset):
    """Samples are the i-th rows of each tensor: dataset[i] == (t[i] for t in tensors)."""

    def __init__(self, *tensors: _C.Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset: expected at least one tensor")
        sizes = [t.shape[0] if t.dim() > 0 else None for t in tensors]
        if None in sizes or any(s != sizes[0] for s in sizes):
            shapes = ", ".join(str(list(t.shape)) for t in tensors)
            raise ValueError(f"TensorDataset: every tensor must have the same first dimension, got shapes {shapes}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of dataset at indices, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """The samples of each data set in turn."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: expected at least one data set")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset: an IterableDataset cannot be concatenated by index")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int):
        if index < 0:
            if -index > len(self):
                raise IndexError(f"ConcatDataset: index {index} out of range for {len(self)} samples")
            index += len(self)
        if index >= len(self):
            raise IndexError(f"ConcatDataset: index {index} out of range for {len(self)} samples")
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][index - start]


def random_split(dataset: Dataset, lengths: Sequence[int | float],
                 generator: _C.Generator | None = None) -> list[Subset]:
    """Splits dataset into disjoint random subsets of the given lengths (ints summing to
    len(dataset), or fractions summing to 1, whose remainders go one each to the first subsets,
    as PyTorch does). The order comes from generator (default: the default generator)."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if any(length < 0 for length in lengths):
        raise ValueError(f"random_split: lengths must not be negative, got {list(lengths)}")
    if sum(lengths) != n:
        raise ValueError(f"random_split: the lengths {list(lengths)} sum to {sum(lengths)}, "
                         f"the data set has {n} samples")
    order = _C.randperm(n, generator=generator).tolist() if generator is not None else _C.randperm(n).tolist()
    out, begin = [], 0
    for length in lengths:
        out.append(Subset(dataset, order[begin:begin + length]))
        begin += length
    return out
