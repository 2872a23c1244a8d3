"""The distance-based pieces of torch.nn.functional: pairwise_distance and the losses that compare
embeddings (margin ranking, triplet margin, cosine embedding) and soft margin, each composed of ops
Ember has and reduced as PyTorch's ("mean", "sum" or "none")."""
from __future__ import annotations

from .. import _C


def _reduce(loss, reduction: str, who: str):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{who}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """||x1 - x2 + eps||_p along the last dim (x1 and x2 broadcast), as PyTorch's."""
    diff = _C.abs(x1 - x2 + eps)
    if p == float("inf"):
        return diff.amax(-1, keepdim)
    return (diff ** p).sum(-1, keepdim=keepdim) ** (1.0 / p)


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, size_average=None, reduce=None,
                        reduction: str = "mean"):
    """max(0, -target * (input1 - input2) + margin): target 1 asks input1 to rank higher."""
    return _reduce(_C.clamp(-target * (input1 - input2) + margin, 0.0, None), reduction, "margin_ranking_loss")


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, size_average=None, reduce=None, reduction: str = "mean"):
    """max(d(anchor, positive) - d(anchor, negative) + margin, 0) with d = pairwise_distance; swap
    takes the negative's distance to the positive when that is smaller."""
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _C.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(_C.clamp(d_pos - d_neg + margin, 0.0, None), reduction, "triplet_margin_loss")


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, size_average=None, reduce=None,
                          reduction: str = "mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1; the cosine
    along the last dim, its squared norms kept off zero by 1e-12 as PyTorch does."""
    dot = (input1 * input2).sum(-1)
    cos = dot / _C.sqrt(((input1 * input1).sum(-1) + 1e-12) * ((input2 * input2).sum(-1) + 1e-12))
    loss = _C.where(target == 1, 1.0 - cos, _C.where(target == -1, _C.clamp(cos - margin, 0.0, None), 0.0))
    return _reduce(loss, reduction, "cosine_embedding_loss")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):  # noqa: A002
    """log(1 + e^(-target * input)), for targets of 1 and -1."""
    z = -target * input
    # NB: log1p(e^z) computed as max(z, 0) + log1p(e^-|z|), which neither overflows nor underflows.
    return _reduce(_C.clamp(z, 0.0, None) + _C.log1p(_C.exp(-_C.abs(z))), reduction, "soft_margin_loss")


__all__ = ["pairwise_distance", "margin_ranking_loss", "triplet_margin_loss", "cosine_embedding_loss",
           "soft_margin_loss"]
