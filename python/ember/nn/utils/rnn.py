"""ember.nn.utils.rnn: batches of sequences of different lengths, as torch.nn.utils.rnn.

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
from typing import Iterable, Sequence

import numpy as np

from ... import _C
from ..._C import Tensor


def _int64(values, device=None) -> Tensor:
    """An int64 tensor of values, on device (the host when None)."""
    t = _C.from_numpy(np.asarray(list(values), dtype=np.int64).reshape(-1))
    return t if device is None else t.to(device)


def _lengths_list(lengths) -> list:
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of [0, n) (None stays None)."""
    if permutation is None:
        return None
    order = [int(i) for i in permutation.tolist()]
    inverse = [0] * len(order)
    for position, index in enumerate(order):
        inverse[index] = position
    return _int64(inverse, permutation.device)


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
            batch_sizes = _int64(int(b) for b in batch_sizes)
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


def _packed_rows(batch_sizes: list, batch: int) -> list:
    """The rows of a [T * batch, *] padded tensor that packing keeps, in packed order."""
    return [t * batch + b for t, n in enumerate(batch_sizes) for b in range(n)]


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,  # noqa: A002
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded batch [T, B, *] ([B, T, *] with batch_first) whose sequence b has lengths[b]
    steps. With enforce_sorted, lengths must be in decreasing order; otherwise the batch is sorted
    here and the permutation kept in the result."""
    lengths = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if len(lengths) != input.shape[batch_dim]:
        raise ValueError(f"pack_padded_sequence: {len(lengths)} lengths for a batch of {input.shape[batch_dim]} "
                         f"sequences (input of shape {tuple(input.shape)})")
    if any(n <= 0 for n in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = sorted(range(len(lengths)), key=lambda b: -lengths[b])  # stable: equal lengths keep their order
        sorted_indices = _int64(order, input.device)
        input = input.index_select(batch_dim, sorted_indices)
        lengths = [lengths[b] for b in order]
    if batch_first:
        input = input.transpose(0, 1)
    steps = input.shape[0]
    if lengths and lengths[0] > steps:
        raise RuntimeError(f"pack_padded_sequence: a length of {lengths[0]} is longer than the {steps} steps of "
                           f"the input")
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0] if lengths else 0)]
    flat = input.reshape(steps * len(lengths), *input.shape[2:])
    rows = _int64(_packed_rows(batch_sizes, len(lengths)), input.device)
    return PackedSequence(flat.index_select(0, rows), batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """Unpacks to (padded [T, B, *] ([B, T, *] with batch_first), lengths int64 [B]), in the batch
    order the sequences had before packing; total_length pads T further."""
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    batch = batch_sizes[0] if batch_sizes else 0
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least {steps}, but got total_length={total_length}")
        steps = total_length
    lengths = [sum(1 for n in batch_sizes if n > b) for b in range(batch)]
    # Every padded position reads its packed row, or the extra row of padding_value after them.
    pad_row = _C.full((1, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    source = _C.cat([data, pad_row], 0)
    index = [data.shape[0]] * (steps * batch)
    for row, position in enumerate(_packed_rows(batch_sizes, batch)):
        index[position] = row
    padded = source.index_select(0, _int64(index, data.device)).reshape(steps, batch, *data.shape[1:])
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = [lengths[int(b)] for b in sequence.unsorted_indices.tolist()]
    lengths_t = _int64(lengths)  # on the host, as PyTorch's
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths_t


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stacks tensors [L_i, *] into [max L, B, *] ([B, max L, *] with batch_first), padding each with
    padding_value on its right (or left)."""
    if padding_side not in ("right", "left"):
        raise ValueError(f"pad_sequence: padding_side must be 'left' or 'right', got {padding_side!r}")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            pad = _C.full((missing, *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = _C.cat([s, pad] if padding_side == "right" else [pad, s], 0)
        rows.append(s)
    return _C.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list:
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[b, :n] for b, n in enumerate(_lengths_list(lengths))]


def pack_sequence(sequences: Iterable[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs tensors [L_i, *] (longest first with enforce_sorted)."""
    sequences = list(sequences)
    return pack_padded_sequence(pad_sequence(sequences), [s.shape[0] for s in sequences],
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The tensors pack_sequence packed, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]
