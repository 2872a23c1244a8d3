"""embedding_bag and nn.EmbeddingBag (torch.nn's): the sum, mean or max of the embeddings of each bag
of indices, bags given as the rows of a 2-D input or as a 1-D input cut at offsets, composed of
embedding lookups and index_add (segment sums), so the weight gets its gradient."""
from __future__ import annotations

import numpy as np

from .. import _C
from . import init
from .modules import Module
from .parameter import Parameter


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type: float = 2, scale_grad_by_freq: bool = False,  # noqa: A002
                  mode: str = "mean", sparse: bool = False, per_sample_weights=None, include_last_offset: bool = False,
                  padding_idx: int | None = None):
    """[B, D] reductions ("sum", "mean" or "max") of weight's rows at each bag's indices; an empty bag
    gives zeros. per_sample_weights (mode "sum" only) scale each index's row; padding_idx's rows take
    no part."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  f"on GitHub.")
    if max_norm is not None:
        raise NotImplementedError("embedding_bag: max_norm is not supported")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                             "of fixed length sequences.")
        b, length = input.shape
        flat = input.reshape(-1)
        bag_of = np.repeat(np.arange(b), length)
        psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    else:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        starts = [int(o) for o in offsets.tolist()]
        if include_last_offset:
            starts = starts[:-1]
        b, flat, psw = len(starts), input, per_sample_weights
        ends = starts[1:] + [input.shape[0]]
        bag_of = np.repeat(np.arange(b), np.subtract(ends, starts))
    keep = np.ones(flat.shape[0], dtype=bool) if padding_idx is None else (flat.cpu().numpy() != padding_idx)
    rows = weight.index_select(0, flat)
    if psw is not None:
        rows = rows * psw.unsqueeze(1)
    rows = rows * _C.from_numpy(keep.astype(np.float64)).to(weight.dtype).to(weight.device).unsqueeze(1)
    bags = _C.from_numpy(bag_of.astype(np.int64)).to(weight.device)
    counts = np.bincount(bag_of[keep], minlength=b).astype(np.float64)
    if mode == "max":
        return _bag_max(rows, bag_of, keep, b, weight)
    sums = _C.index_add(_C.zeros(b, weight.shape[1], dtype=weight.dtype, device=weight.device), 0, bags, rows)
    if mode == "sum":
        return sums
    return sums / _C.from_numpy(np.maximum(counts, 1.0)).to(weight.dtype).to(weight.device).unsqueeze(1)


def _bag_max(rows, bag_of, keep, b, weight):
    # Each bag's rows, max over them (0 for an empty bag); one reduction per bag.
    out = []
    for k in range(b):
        members = np.nonzero((bag_of == k) & keep)[0]
        if len(members) == 0:
            out.append(_C.zeros(weight.shape[1], dtype=weight.dtype, device=weight.device))
        else:
            index = _C.from_numpy(members.astype(np.int64)).to(weight.device)
            out.append(rows.index_select(0, index).amax(0))
    return _C.stack(out, 0)


class EmbeddingBag(Module):
    """EmbeddingBag(num_embeddings, embedding_dim, mode='mean', padding_idx=None, ...): weight
    [num_embeddings, embedding_dim] from N(0, 1), as PyTorch's; forward(input, offsets=None,
    per_sample_weights=None)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm=None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False, _weight=None,
                 include_last_offset: bool = False, padding_idx: int | None = None, device=None, dtype=None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim, self.mode = num_embeddings, embedding_dim, mode
        self.include_last_offset, self.padding_idx = include_last_offset, padding_idx
        if _weight is not None:
            self.weight = Parameter(_weight)
        else:
            self.weight = Parameter(_C.empty(num_embeddings, embedding_dim, dtype=dtype or _C.float32, device=device))
            init.normal_(self.weight)
            if padding_idx is not None:
                with _no_grad():
                    self.weight[padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):  # noqa: A002
        return embedding_bag(input, self.weight, offsets, mode=self.mode, per_sample_weights=per_sample_weights,
                             include_last_offset=self.include_last_offset, padding_idx=self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}, mode='{self.mode}'"
        return s if self.padding_idx is None else s + f", padding_idx={self.padding_idx}"


def _no_grad():
    from ..autograd import no_grad
    return no_grad()


__all__ = ["embedding_bag", "EmbeddingBag"]
