"""ember.nn.utils.rnn: batches of sequences of different lengths, as torch.nn.utils.rnn (C++:
nn/packed_sequence.h).

    packed = pack_padded_sequence(padded, lengths, enforce_sorted=False)   # [T, B, *] + lengths
    output, (h_n, c_n) = lstm(packed)           # each sequence runs for its own length only
    padded_out, lengths = pad_packed_sequence(output)

A PackedSequence holds the steps of every sequence, longest first, time step by time step: `data`
[sum(lengths), *], `batch_sizes` (int64 [T]: how many sequences are still running at each step),
and the permutation that sorted the batch by length (`sorted_indices`) with its inverse. Packing and
unpacking are index_select gathers, so gradients flow through them. RNN, LSTM and GRU take a
PackedSequence as input and return one as output (their states in the caller's batch order).
"""
from __future__ import annotations

import collections

import numpy as np

from ... import _C
from ..._C import Tensor
from ..._C.nn.rnn_utils import (  # noqa: F401  (re-exported)
    invert_permutation,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)


class PackedSequence(collections.namedtuple("PackedSequence",
                                            ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """Sequences of different lengths packed step by step (see the module's docstring). Build one
    with pack_padded_sequence or pack_sequence rather than by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise TypeError("PackedSequence: batch_sizes is required (build one with pack_padded_sequence)")
        if not isinstance(batch_sizes, Tensor):
            batch_sizes = _C.from_numpy(np.asarray([int(b) for b in batch_sizes], dtype=np.int64).reshape(-1))
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> "PackedSequence":
        """data converted as Tensor.to does; the indices stay int64 and follow data to its device
        (batch_sizes stay on the host, as PyTorch's)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = (lambda t: t if t is None else t.to(data.device))
        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def cpu(self) -> "PackedSequence":
        return self.to("cpu")

    def cuda(self, device=None) -> "PackedSequence":
        return self.to("cuda" if device is None else device)

    def double(self) -> "PackedSequence":
        return self.to(_C.float64)

    def float(self) -> "PackedSequence":
        return self.to(_C.float32)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]
