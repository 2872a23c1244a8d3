"""Embedding.from_pretrained and EmbeddingBag.from_pretrained: a table built around given vectors
(word2vec, GloVe, another model's embedding). Both are C++ layers, so the classmethods are installed
on them from here."""
from __future__ import annotations

from .._C.nn import Embedding, EmbeddingBag
from .parameter import Parameter


def _check(embeddings, who: str) -> None:
    if embeddings.dim() != 2:
        raise ValueError(f"{who}.from_pretrained: Embeddings parameter is expected to be 2-dimensional, "
                         f"got shape {list(embeddings.shape)}")


def _unsupported(who: str, **options) -> None:
    # NB: Ember's embedding lookups have no max_norm renormalisation, no frequency-scaled and no sparse
    # gradients; refusing them beats training with a rule the script did not ask for.
    for name, value in options.items():
        if value:
            raise NotImplementedError(f"{who}.from_pretrained: {name}={value!r} is not supported by Ember")


def _embedding_from_pretrained(cls, embeddings, freeze: bool = True, padding_idx=None, max_norm=None,
                               norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False):
    """An Embedding whose weight is `embeddings` [num_embeddings, embedding_dim] itself (shared, as
    PyTorch's), trainable unless freeze. padding_idx only keeps that row's gradient at zero: the row is
    not cleared, as in PyTorch."""
    _check(embeddings, "Embedding")
    _unsupported("Embedding", max_norm=max_norm, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
    rows, cols = embeddings.shape
    layer = cls(rows, cols, padding_idx=padding_idx)
    layer.weight = Parameter(embeddings, requires_grad=not freeze)
    return layer


def _bag_from_pretrained(cls, embeddings, freeze: bool = True, max_norm=None, norm_type: float = 2.0,
                         scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                         include_last_offset: bool = False, padding_idx=None):
    """An EmbeddingBag over `embeddings` [num_embeddings, embedding_dim] (shared), trainable unless freeze."""
    _check(embeddings, "EmbeddingBag")
    _unsupported("EmbeddingBag", max_norm=max_norm, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
    rows, cols = embeddings.shape
    bag = cls(rows, cols, mode=mode, _weight=embeddings, include_last_offset=include_last_offset,
              padding_idx=padding_idx)
    bag.weight.requires_grad_(not freeze)
    return bag


Embedding.from_pretrained = classmethod(_embedding_from_pretrained)
EmbeddingBag.from_pretrained = classmethod(_bag_from_pretrained)
