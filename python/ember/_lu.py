"""LU factorisation with partial pivoting and the triangular solves, in batched tensor ops, for
ember.linalg (det, slogdet, inv, solve). One Python loop over columns; every step is ops over the
whole batch, so it runs on any device and autograd differentiates through it (the pivot choices
are constants, as in LAPACK's getrf, whose gradient is the same one away from ties).

The factorisation is the classic right-looking one (LAPACK's getf2): at column k, the row of the
largest |entry| in the remaining column (the first one on ties, as idamax) is swapped to the top,
the column below divided by the pivot gives L's column, and the remaining block loses the outer
product of that column and U's row. A zero pivot (the whole remaining column is 0: a singular
matrix) leaves the block as it is, so U has a 0 on its diagonal there, as LAPACK's does."""
from __future__ import annotations

from typing import List, NamedTuple

from . import _C
from ._C import Tensor
from ._autocast_op import autocast_op


class LU(NamedTuple):
    """P A = L U for a batch A of shape [B, n, n]: l_rows[k] is row k of L left of the diagonal
    ([B, k], the diagonal is 1), u_rows[k] row k of U from the diagonal on ([B, n - k]), perm
    the rows of A in P A's order ([B, n]) and swaps how many row swaps P makes ([B])."""
    l_rows: List[Tensor]
    u_rows: List[Tensor]
    perm: Tensor
    swaps: Tensor


def _swap_to_top(x: Tensor, rows: Tensor) -> Tensor:
    """x [B, m, w] with rows (the [B, m] source row of each row) gathered."""
    return x.gather(1, rows.unsqueeze(2).expand(x.shape[0], x.shape[1], x.shape[2]))


def lu_factor(a: Tensor) -> LU:
    """Partial-pivoting LU of a [B, n, n] batch."""
    batch, n = a.shape[0], a.shape[-1]
    dev = a.device
    perm = _C.arange(n, dtype=_C.int64, device=dev).expand(batch, n)
    swaps = _C.zeros(batch, dtype=_C.int64, device=dev)
    block, lower = a, _C.zeros(batch, n, 0, dtype=a.dtype, device=dev)  # rows k.. of L's columns so far
    l_rows, u_rows = [], []
    for k in range(n):
        m = n - k
        pivot_row = _C.argmax(block[:, :, 0].detach().abs(), 1, keepdim=True)  # [B, 1]
        place = _C.arange(m, dtype=_C.int64, device=dev).expand(batch, m)
        rows = _C.where(place == 0, pivot_row, _C.where(place == pivot_row, _C.zeros_like(place), place))
        block, lower = _swap_to_top(block, rows), _swap_to_top(lower, rows)
        perm = _C.cat([perm[:, :k], perm[:, k:].gather(1, rows)], 1)
        swaps = swaps + (pivot_row.reshape(-1) != 0).to(_C.int64)
        l_rows.append(lower[:, 0, :])
        u_rows.append(block[:, 0, :])
        if m == 1:
            break
        pivot = block[:, 0:1, 0:1]
        # NB: a zero pivot means the column below is 0 too: dividing by 1 instead keeps L's column 0.
        column = block[:, 1:, 0:1] / _C.where(pivot == 0, _C.ones_like(pivot), pivot)  # [B, m - 1, 1]
        block = block[:, 1:, 1:] - column * block[:, 0:1, 1:]
        lower = _C.cat([lower[:, 1:, :], column], 2)
    return LU(l_rows, u_rows, perm, swaps)


def diagonal(lu: LU) -> Tensor:
    """U's diagonal, [B, n]."""
    return _C.stack([row[:, 0] for row in lu.u_rows], 1)


@autocast_op("lu_solve")
def lu_solve(lu: LU, b: Tensor) -> Tensor:
    """X with A X = b for b [B, n, k]: L y = P b forward, then U x = y backward."""
    n = len(lu.u_rows)
    pb = b.gather(1, lu.perm.unsqueeze(2).expand(b.shape[0], n, b.shape[2]))
    ys: List[Tensor] = []
    for i in range(n):
        y = pb[:, i:i + 1, :]
        if i:
            y = y - _C.matmul(lu.l_rows[i].unsqueeze(1), _C.cat(ys, 1))
        ys.append(y)
    xs: List[Tensor] = []  # x_{i+1}, ..., x_{n-1}, in order
    for i in range(n - 1, -1, -1):
        u = lu.u_rows[i]
        x = ys[i]
        if xs:
            x = x - _C.matmul(u[:, 1:].unsqueeze(1), _C.cat(xs, 1))
        xs.insert(0, x / u[:, 0:1].unsqueeze(2))
    return _C.cat(xs, 1)
