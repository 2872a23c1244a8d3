"""ember.data: data sets on disk and a mini-batch loader that resumes mid-epoch (the C++ data/).

    train = ember.data.FashionMNIST(train=True)     # images uint8 [60000, 28, 28], labels int64
    loader = ember.data.DataLoader(train.images, train.labels, batch_size=64, shuffle=True, seed=1)
    for epoch in range(epochs):
        for x, y in loader:                         # one epoch: a new order each time
            ...
            ember.io.save({"loader": loader.state_dict(), ...}, path)   # at any batch
    loader.load_state_dict(ember.io.load(path)["loader"])
    for x, y in loader: ...                         # goes on with the batch after the saved one

Exact resume: an epoch's order is drawn from a copy of the loader's generator, which moves past
that draw only when the next epoch starts, so during an epoch it holds the state the order came
from. state_dict() saves that state and the next batch's index; load_state_dict() restores them
and begins that epoch there, and the next `for ... in loader` continues it (data/data_loader.h).
"""
from __future__ import annotations

import os

from . import _C


def read_idx(path: str | os.PathLike) -> _C.Tensor:
    """Reads an idx file (MNIST's format), gzipped or plain, into a new tensor of its shape:
    uint8, int32, float32 or float64 as its header says. A malformed file is a ValueError naming
    it; a missing file is a FileNotFoundError, one that cannot be read a RuntimeError."""
    return _C.data.read_idx(os.fspath(path))


class FashionMNIST(_C.data.FashionMNIST):
    """One split of Fashion-MNIST (torchvision.datasets.FashionMNIST without the transforms):
    `images` uint8 [N, 28, 28], `labels` int64 [N] in [0, 10) naming `FashionMNIST.classes`.
    `root` holds {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz (or without .gz); by default the
    directory of Debian's dataset-fashion-mnist (scripts/install_deps.sh data)."""

    def __init__(self, root: str | os.PathLike = _C.data.FashionMNIST.default_root, train: bool = True):
        super().__init__(os.fspath(root), train)

    def __getitem__(self, index: int):
        """(image, label) of one sample: uint8 [28, 28] and an int."""
        return self.images[index], self.labels[index].item()

    def __repr__(self) -> str:
        return f"FashionMNIST({len(self)} samples)"


class DataLoader(_C.data.DataLoader):
    """Mini-batches (inputs, targets) over two tensors whose first dimension indexes the samples:
    `for x, y in loader` runs one epoch (shuffled anew each time when shuffle=True, by the
    loader's own generator seeded with `seed`); len(loader) is the number of batches per epoch
    (the last one shorter unless drop_last). Batches are contiguous copies of the rows.
    state_dict() / load_state_dict() resume mid-epoch exactly (see the module's docstring)."""

    def __init__(self, inputs: _C.Tensor, targets: _C.Tensor, batch_size: int = 1, shuffle: bool = False,
                 drop_last: bool = False, seed: int = 0):
        super().__init__(inputs, targets, batch_size, shuffle, drop_last, seed)
        self._resumed = False

    def __iter__(self):
        # NB: the epoch starts here, not at the first next(): a state_dict() taken between iter()
        # and the first batch already describes this epoch.
        if self._resumed:
            self._resumed = False  # load_state_dict began the saved epoch: continue it
        else:
            self.start_epoch()
        return self._batches()

    def _batches(self):
        while True:
            batch = self.next()
            if batch is None:
                return
            yield batch

    def start_epoch(self) -> None:
        """Begins the next epoch (draws its order when shuffling); then next() returns its
        batches, (inputs, targets), and None once it is over."""
        super().start_epoch()
        self._resumed = False

    def resume_epoch(self, next_batch: int) -> None:
        """Continues, from batch next_batch, the epoch whose order the generator draws now (one
        restored from a checkpoint); the next `for ... in loader` goes on from there."""
        super().resume_epoch(next_batch)
        self._resumed = True

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores what state_dict() returned (from a loader over the same number of samples with
        the same batch_size, shuffle and drop_last) and begins the saved epoch at the saved batch:
        the next `for ... in loader` goes on from there."""
        super().load_state_dict(state_dict)
        self._resumed = True

    def __repr__(self) -> str:
        return (f"DataLoader({self.num_samples} samples, batch_size={self.batch_size}, "
                f"shuffle={self.shuffle}, drop_last={self.drop_last})")


__all__ = ["read_idx", "FashionMNIST", "DataLoader"]
