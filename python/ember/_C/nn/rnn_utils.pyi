"""
torch.nn.utils.rnn's functions (nn/packed_sequence.h)
"""
from __future__ import annotations
import collections.abc
import ember._C
import ember.nn.utils.rnn
import typing
__all__: list[str] = ['invert_permutation', 'pack_padded_sequence', 'pack_sequence', 'pad_packed_sequence', 'pad_sequence', 'unpack_sequence', 'unpad_sequence']
def invert_permutation(permutation: ember._C.Tensor | None) -> ember._C.Tensor | None:
    """
    The inverse of a permutation of [0, n) (None stays None).
    """
def pack_padded_sequence(input: ember._C.Tensor, lengths: typing.Any, batch_first: bool = False, enforce_sorted: bool = True) -> ember.nn.utils.rnn.PackedSequence:
    """
    Packs a padded batch [T, B, *] ([B, T, *] with batch_first) of sequences of the given lengths.
    """
def pack_sequence(sequences: collections.abc.Sequence[ember._C.Tensor], enforce_sorted: bool = True) -> ember.nn.utils.rnn.PackedSequence:
    """
    Packs tensors [L_i, *] (longest first with enforce_sorted).
    """
def pad_packed_sequence(sequence: ember.nn.utils.rnn.PackedSequence, batch_first: bool = False, padding_value: typing.SupportsFloat | typing.SupportsIndex = 0.0, total_length: typing.SupportsInt | typing.SupportsIndex | None = None) -> tuple[ember._C.Tensor, ember._C.Tensor]:
    """
    (padded [T, B, *], lengths int64 [B] on the host), in the batch order before packing.
    """
def pad_sequence(sequences: collections.abc.Sequence[ember._C.Tensor], batch_first: bool = False, padding_value: typing.SupportsFloat | typing.SupportsIndex = 0.0, padding_side: str = 'right') -> ember._C.Tensor:
    """
    Stacks tensors [L_i, *] into [max L, B, *] ([B, max L, *] with batch_first), padded.
    """
def unpack_sequence(packed_sequences: ember.nn.utils.rnn.PackedSequence) -> list[ember._C.Tensor]:
    """
    The tensors pack_sequence packed, in their original order.
    """
def unpad_sequence(padded_sequences: ember._C.Tensor, lengths: typing.Any, batch_first: bool = False) -> list[ember._C.Tensor]:
    """
    The sequences of a padded batch, each cut to its length.
    """
