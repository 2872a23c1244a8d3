"""torch.mode composed of Ember's ops: along dim, the most frequent value and an index of it.

A sort along dim groups equal values into runs; a scatter_add counts each run; the first run with
the largest count is the mode (the smallest of the most frequent values, as PyTorch's choice), and
its index is the largest original position in that run (PyTorch's CPU kernel returns the last
occurrence). values is input gathered at indices, so the gradient goes to that one element."""
from __future__ import annotations

from . import _C
from ._C import Tensor

# NB: the class Ember's max/min/sort return (src/ops.cpp makes one per field list, as
# torch.return_types), so mode's result is what code written for those expects.
_ValuesIndices = type(_C.sort(_C.zeros(1), 0))


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):  # noqa: A002
    """(values, indices): the most frequent value along dim (the smallest among equally frequent
    ones) and the index of its last occurrence; dim is removed unless keepdim."""
    if input.dim() == 0:
        return _ValuesIndices(input.clone(), _C.zeros((), dtype=_C.int64, device=input.device))
    d = dim % input.dim()
    n = input.shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    moved = input.movedim(d, -1)
    rows = moved.reshape(-1, n)
    ordered, order = _C.sort(rows.detach(), 1)
    starts = _C.cat([_C.ones(rows.shape[0], 1, dtype=_C.bool, device=input.device),
                     ordered[:, 1:] != ordered[:, :-1]], 1)
    run = _C.cumsum(starts.to(_C.int64), 1) - 1
    counts = _C.scatter_add(_C.zeros_like(run), 1, run, _C.ones_like(run))
    best = _C.argmax(counts, 1, keepdim=True)  # NB: the first maximum: runs ascend by value
    last = _C.where(run == best, order, _C.full_like(order, -1)).amax(1, keepdim=True)
    values = rows.gather(1, last)
    shape = list(moved.shape[:-1])
    values, indices = values.reshape(*shape), last.reshape(*shape)
    if keepdim:
        values, indices = values.unsqueeze(d), indices.unsqueeze(d)
    return _ValuesIndices(values, indices)


__all__ = ["mode"]
