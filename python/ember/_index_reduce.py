"""index_reduce (Tensor.index_reduce / index_reduce_): source's slices along dim reduced into self's
slices that index names, by "prod", "mean", "amax" or "amin" (torch.Tensor.index_reduce). It is
scatter_reduce with index broadcast over source's other dims, so values and gradients (amax/amin
split among ties, as PyTorch) are scatter_reduce's."""
from __future__ import annotations

from . import _C
from ._C import Tensor
from ._scatter_reduce import scatter_reduce

_REDUCTIONS = ("prod", "mean", "amax", "amin")


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,  # noqa: A002
                 include_self: bool = True) -> Tensor:
    """A copy of input where input.select(dim, index[i]) is reduced with source.select(dim, i) for
    every i; include_self=False leaves input's own values out of the slices index names."""
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, got shape {list(index.shape)}")
    dim = dim % max(input.dim(), 1)
    source_dim = source.shape[dim] if source.dim() > 0 else 1
    if index.numel() != source_dim:
        raise IndexError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
                         f"source.size(dim) ({source_dim})")
    others = [n for d, n in enumerate(input.shape) if d != dim]
    if [n for d, n in enumerate(source.shape) if d != dim] != others:
        raise RuntimeError(f"index_reduce_(): Source/destination tensor must have same slice shapes. Destination "
                           f"slice shape: {others} at dimension {dim} and source slice shape: "
                           f"{[n for d, n in enumerate(source.shape) if d != dim]} at dimension {dim}.")
    shape = [1] * source.dim()
    shape[dim] = index.numel()
    wrapped = _C.where(index < 0, index + input.shape[dim], index).to(_C.int64)
    return scatter_reduce(input, dim, wrapped.reshape(*shape).expand(*source.shape), source, reduce,
                          include_self=include_self)


__all__ = ["index_reduce"]
