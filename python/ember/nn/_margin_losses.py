"""The distance and margin losses of torch.nn.functional: pairwise_distance, pdist, the losses that
compare embeddings (margin ranking, triplet margin, cosine embedding, hinge embedding), the margin
classifiers' (soft margin, multi-label soft margin, multi-class margin) and the Poisson and Gaussian
negative log-likelihoods, each composed of ops Ember has and reduced as PyTorch's ("mean", "sum" or
"none")."""
from __future__ import annotations

import math

import numpy as np

from .. import _C
from ..autograd.function import Function
from .._autocast_op import autocast_op
from ._activation_functions import logsigmoid


def _index(positions, device):
    """An int64 index tensor of NumPy positions, on device."""
    return _C.from_numpy(np.ascontiguousarray(positions, dtype=np.int64)).to(device)


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
    diff = x1 - x2 + eps
    if diff.dim() == 0:
        return _C.abs(diff)
    return _C.norm(diff, float(p), [-1], keepdim)  # NB: PyTorch's norm, its gradients at 0, NaN and inf


@autocast_op("margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin: float = 0.0, size_average=None, reduce=None,
                        reduction: str = "mean"):
    """max(0, -target * (input1 - input2) + margin): target 1 asks input1 to rank higher."""
    return _reduce(_C.clamp(-target * (input1 - input2) + margin, 0.0, None), reduction, "margin_ranking_loss")


@autocast_op("triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, size_average=None, reduce=None, reduction: str = "mean"):
    """max(d(anchor, positive) - d(anchor, negative) + margin, 0) with d = pairwise_distance; swap
    takes the negative's distance to the positive when that is smaller."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _C.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    # NB: summed in PyTorch's order, margin first: the rounding decides whether a loss of about 0
    # comes out exactly 0, where the clamp passes no gradient.
    return _reduce(_C.clamp(margin + d_pos - d_neg, 0.0, None), reduction, "triplet_margin_loss")


_EPS_1E12_F32 = 9.999999960041972e-13  # 1e-12 rounded to float32, as PyTorch's EPSILON


@autocast_op("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, size_average=None, reduce=None,
                          reduction: str = "mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1; the cosine
    along the last dim, its squared norms kept off zero by 1e-12 as PyTorch does (its float constant,
    9.99999996e-13: the loss of a vector near 0 depends on it)."""
    dot = (input1 * input2).sum(-1)
    cos = dot / _C.sqrt(((input1 * input1).sum(-1) + _EPS_1E12_F32) * ((input2 * input2).sum(-1) + _EPS_1E12_F32))
    loss = _C.where(target == 1, 1.0 - cos, _C.where(target == -1, _C.clamp(cos - margin, 0.0, None), 0.0))
    return _reduce(loss, reduction, "cosine_embedding_loss")


@autocast_op("soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):  # noqa: A002
    """log(1 + e^(-target * input)), for targets of 1 and -1."""
    # NB: log1p(e^(-target input)) = -log sigmoid(target input), computed by logsigmoid, which neither
    # overflows nor underflows and whose gradient is right at 0 (max(z, 0) + log1p(e^-|z|) gives 0 there).
    # NB: 0 - logsigmoid, not its negation: a loss of 0 is +0, as PyTorch's log1p(exp(-inf))
    return _reduce(0.0 - logsigmoid(target * input), reduction, "soft_margin_loss")


@autocast_op("pdist")
def pdist(input, p: float = 2.0):  # noqa: A002
    """The p-norm distances between every pair of rows i < j of input [N, M], in row-major order."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    i, j = np.triu_indices(input.shape[0], 1)
    rows = input.index_select(0, _index(i, input.device))
    cols = input.index_select(0, _index(j, input.device))
    diff = _C.abs(rows - cols)
    if p == float("inf"):
        return diff.amax(-1)
    return (diff ** p).sum(-1) ** (1.0 / p)


@autocast_op("hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,  # noqa: A002
                         reduction: str = "mean"):
    """input where target is 1, max(0, margin - input) where it is -1 (PyTorch's sum of the two)."""
    loss = _C.where(target != -1, input, 0.0) + _C.where(target != 1, _C.clamp(margin - input, 0.0, None), 0.0)
    return _reduce(loss, reduction, "hinge_embedding_loss")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                reduction: str = "mean"):
    """-(target log sigmoid(input) + (1 - target) log sigmoid(-input)), weighted, averaged over the
    classes (the last dim), then reduced over the batch."""
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.mean(-1), reduction, "multilabel_soft_margin_loss")


@autocast_op("multi_margin_loss")
def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,  # noqa: A002
                      size_average=None, reduce=None, reduction: str = "mean"):
    """sum over j != target of max(0, margin - input[target] + input[j])^p / C per sample (times
    weight[target]), for input [N, C] (or [C]) and class indices target."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input if input.dim() == 2 else input.unsqueeze(0)
    t = target.reshape(-1)
    w = None if weight is None else weight.detach().index_select(0, t).unsqueeze(1)
    loss = _MultiMargin.apply(x, t, p, margin, w)
    return _reduce(loss if input.dim() == 2 else loss.reshape(()), reduction, "multi_margin_loss")


class _MultiMargin(Function):
    """The per-sample loss, as PyTorch's kernel: a term counts where z = margin - x[target] + x[j] > 0
    (a NaN z counts as nothing); the gradient is its derivative (1 or 2 z over C, times the weight;
    minus their sum at the target) times the incoming gradient, so an infinite incoming gradient
    gives NaN at the terms that did not count, as PyTorch's does."""

    @staticmethod
    def forward(ctx, x, t, p, margin, w):
        other = _C.one_hot(t, x.shape[1]).bool().logical_not()
        z = (margin - x.gather(1, t.unsqueeze(1))) + x  # NB: PyTorch's order (margin - x[y] absorbs the margin)
        counts = (z > 0) & other
        g = 1.0 / x.shape[1]
        # NB: 2 / C times z, as PyTorch's, stays finite where 2 z overflows
        d = counts.to(x.dtype) * g if p == 1 else _C.where(counts, (2 * g) * z, 0.0)
        terms = _C.where(counts, z if p == 1 else z * z, 0.0)
        if w is not None:
            d, terms = d * w, terms * w
        ctx.save_for_backward(d, t)
        return terms.sum(1) / x.shape[1]

    @staticmethod
    def backward(ctx, grad):
        d, t = ctx.saved_tensors
        d = d.scatter(1, t.unsqueeze(1), -d.sum(1, keepdim=True))
        return d * grad.unsqueeze(1), None, None, None, None


@autocast_op("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False, size_average=None,  # noqa: A002
                     eps: float = 1e-8, reduce=None, reduction: str = "mean"):
    """exp(input) - target input (log_input), else input - target log(input + eps); full adds
    Stirling's approximation of log(target!) where target > 1."""
    loss = _C.exp(input) - target * input if log_input else input - target * _C.log(input + eps)
    if full:
        safe = _C.where(target > 1, target, 1.0)
        stirling = safe * _C.log(safe) - safe + 0.5 * _C.log(safe * (2 * math.pi))
        loss = loss + _C.where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,  # noqa: A002
                      reduction: str = "mean"):
    """0.5 (log(var) + (input - target)^2 / var) (+ 0.5 log(2 pi) with full), var clamped to eps in
    value only (its gradient passes as PyTorch's does); var may lack input's last dim or have it 1."""
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = var + (_C.clamp(var, eps, None) - var).detach()
    loss = 0.5 * (_C.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, "gaussian_nll_loss")


__all__ = ["pairwise_distance", "margin_ranking_loss", "triplet_margin_loss", "cosine_embedding_loss",
           "soft_margin_loss", "pdist", "hinge_embedding_loss", "multilabel_soft_margin_loss", "multi_margin_loss",
           "poisson_nll_loss", "gaussian_nll_loss"]
