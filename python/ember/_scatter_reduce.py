"""torch.scatter_reduce composed of Ember's ops: src reduced into input at index along dim with
"sum", "prod", "mean", "amax" or "amin", counting input's own value (include_self=True) or not.

- sum and mean are scatter_add (mean then divides by the count, flooring for integer dtypes, as
  PyTorch does); their gradients are the ops'.
- prod multiplies src's elements in one at a time, in PyTorch's order (a step per element sent to
  the most-hit position); amax and amin sort src's elements by the output position they reduce into,
  then combine each run of equal positions by a segmented scan (log2 of the longest run steps, each
  one op over every element), and write each run's last element into the output.
- prod is an autograd.Function with PyTorch's gradient (grad * result / x, the exclusive product
  where x is the one 0), so inf and NaN entries get PyTorch's NaN.
- amax and amin are an autograd.Function: the value computed as above, and PyTorch's gradient:
  each element equal to the result gets grad / (how many do). NB: as PyTorch's, that count
  includes input's element where it equals the result even when include_self=False (then input's
  own gradient there is 0, and the others get less than grad). (A linear stand-in, value +
  (S - S.detach()), made inf - inf = NaN of every infinite element of input.)
The backward is ops, so it differentiates again; every other path is ordinary ops."""
from __future__ import annotations

from typing import Any

from . import _C, _zero_grad
from .autograd.function import Function
from ._C import Tensor

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _check(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str) -> None:  # noqa: A002
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): src must be a Tensor, got {type(src).__name__}")
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(f"scatter_reduce(): Expected dtype int32/int64 for index, got {index.dtype}")
    if input.dtype != src.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.dim() != input.dim() or src.dim() != input.dim():
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    # NB: as PyTorch, an empty index is checked no further (its shape need not fit).
    too_big = index.numel() > 0 and any(index.shape[d] > src.shape[d] or (d != dim and index.shape[d] > input.shape[d])
                                        for d in range(index.dim()))
    if too_big:
        raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(input.shape)} "
                           f"apart from dimension {dim} and to be no larger size than src {list(src.shape)}")


def unwritten_copy(input: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """A copy of input for a scatter with an empty index: nothing is read from src, yet the result
    depends on it, with a zero gradient, as PyTorch's."""
    return _zero_grad.with_zero_grad(input.clone(), src)


def _flat_targets(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The flat position in input of each element of index (its coordinates, with index's value as
    the coordinate along dim)."""
    strides = [1] * input.dim()
    for d in range(input.dim() - 2, -1, -1):
        strides[d] = strides[d + 1] * input.shape[d + 1]
    flat = index.to(_C.int64) * strides[dim]
    for d in range(index.dim()):
        if d != dim and index.shape[d] > 1:
            shape = [1] * index.dim()
            shape[d] = index.shape[d]
            flat = flat + _C.arange(index.shape[d], dtype=_C.int64, device=input.device).reshape(*shape) * strides[d]
    return flat.reshape(-1)


def _segment_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, combine: Any, longest: int):
    """(positions, values): for each flat position of input that index names, the combination of
    the src elements sent there (combine(a, b) elementwise; longest = the most sent to one)."""
    targets = _flat_targets(input, dim, index)
    order = _C.argsort(targets)
    keys = targets.index_select(0, order)
    values = src.reshape(-1).index_select(0, order)
    n, step = keys.numel(), 1
    while step < longest:  # NB: an inclusive segmented scan (Hillis-Steele): runs are contiguous
        same = keys[step:] == keys[:n - step]
        values = _C.cat([values[:step], _C.where(same, combine(values[step:], values[:n - step]), values[step:])], 0)
        step *= 2
    last = _C.cat([keys[1:] != keys[:n - 1], _C.ones(1, dtype=_C.bool, device=keys.device)], 0)
    ends = _C.nonzero(last).reshape(-1)
    return keys.index_select(0, ends), values.index_select(0, ends)


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,  # noqa: A002
                   include_self: bool = True) -> Tensor:
    """A copy of input with src's elements reduced into the positions index names along dim
    (torch.scatter_reduce): reduce is "sum", "prod", "mean", "amax" or "amin"; include_self=False
    leaves input's own value out of the positions that receive any. Positions no index names keep
    input's value."""
    dim = dim % max(input.dim(), 1)
    _check(input, dim, index, src, reduce)
    if index.numel() == 0:
        return unwritten_copy(input, src) if reduce in ("sum", "mean") else _EmptyScatter.apply(input, src, reduce)
    src = src[tuple(slice(0, n) for n in index.shape)]  # PyTorch reads src where index has entries
    index = index.to(_C.int64)
    counts = _C.scatter_add(_C.zeros(*input.shape, dtype=_C.int64, device=input.device), dim, index,
                            _C.ones(*index.shape, dtype=_C.int64, device=input.device))
    hit = counts > 0
    if reduce in ("sum", "mean"):
        base = input if include_self else _C.where(hit, _C.zeros_like(input), input)
        total = _C.scatter_add(base, dim, index, src)
        if reduce == "sum":
            return total
        n = (counts + 1 if include_self else _C.where(hit, counts, _C.ones_like(counts))).to(input.dtype)
        return total / n if input.is_floating_point() else _C.floor_divide(total, n)
    longest = int(counts.max())
    combine = {"prod": _C.mul, "amax": _C.maximum, "amin": _C.minimum}[reduce]
    if reduce == "prod":
        return _ScatterProd.apply(input, src, dim, index, hit, include_self, longest)
    return _ScatterExtremum.apply(input, src, dim, index, hit, include_self, combine, longest)


def _placed(input: Tensor, dim: int, index: Tensor, src: Tensor, combine: Any, longest: int) -> Tensor:  # noqa: A002
    """input's shape holding, at each position index names, the combination of what src sends there
    (0 elsewhere)."""
    positions, values = _segment_reduce(input, dim, index, src, combine, longest)
    placed = _C.index_add(additive_zeros((input.numel(),), input), 0, positions, values)
    return placed.reshape(*input.shape)


def additive_zeros(shape, like: Tensor) -> Tensor:
    """Zeros of like's dtype and device to index_add into that keep a copied -0: -0 for floats, the
    identity of addition (+0 + -0 is +0)."""
    return _C.full(tuple(shape), -0.0 if like.is_floating_point() else 0, dtype=like.dtype, device=like.device)


def _prod(input: Tensor, src: Tensor, dim: int, index: Tensor, hit: Tensor, include_self: bool,  # noqa: A002
          longest: int) -> Tensor:
    """input with src's elements multiplied into the positions index names one at a time, in index's
    order: (input * s0) * s1 ..., or s0 * s1 ... without input, as PyTorch's loop. NB: the order
    decides where a product passes through the subnormals or overflows, so no tree order will do;
    one step per element sent to the most-hit position."""
    targets = _flat_targets(input, dim, index)
    order = _C.argsort(targets, stable=True)
    keys = targets.index_select(0, order)
    values = src.reshape(-1).index_select(0, order)
    n = keys.numel()
    first = _C.cat([_C.ones(1, dtype=_C.bool, device=keys.device), keys[1:] != keys[:n - 1]], 0)
    positions = _C.arange(n, dtype=_C.int64, device=keys.device)
    rank = positions - _C.cummax(_C.where(first, positions, _C.zeros_like(positions)), 0)[0]
    flat = input.reshape(-1)
    product = flat if include_self else _C.where(hit.reshape(-1), _C.ones_like(flat), flat)
    for k in range(longest):
        at = _C.nonzero(rank == k).reshape(-1)
        slots = keys.index_select(0, at)
        product = product.index_put((slots,), product.index_select(0, slots) * values.index_select(0, at))
    return product.reshape(*input.shape)


def _ones_at_zeros(t: Tensor) -> Tensor:
    return _C.where(t == 0, _C.ones_like(t), t)


class _ScatterProd(Function):
    """scatter_reduce with prod, and PyTorch's gradient for it (scatter_reduce_backward): input's is
    grad * (the product with input's zeros taken as 1) / input, so inf and NaN entries get NaN as in
    PyTorch; src's is grad * result / src, with the exclusive product where src holds the only 0 sent
    to a position (and 0 where two are)."""

    @staticmethod
    def forward(ctx, input, src, dim, index, hit, include_self, longest):  # noqa: A002
        result = _prod(input, src, dim, index, hit, include_self, longest)
        ctx.save_for_backward(input, src, index, hit, result)
        ctx.dim, ctx.include_self, ctx.longest = dim, include_self, longest
        return result

    @staticmethod
    def backward(ctx, grad):
        input, src, index, hit, result = ctx.saved_tensors  # noqa: A001
        dim, include_self, longest = ctx.dim, ctx.include_self, ctx.longest
        masked_self = _ones_at_zeros(input)
        grad_self = grad * _prod(masked_self, src, dim, index, hit, include_self, longest) / masked_self
        if not include_self:
            grad_self = _C.where(hit, _C.zeros_like(grad_self), grad_self)
        src_zero = src == 0
        zeros_sent = _C.scatter_add(_C.zeros_like(input), dim, index, src_zero.to(input.dtype)).gather(dim, index)
        single_zero = src_zero & (zeros_sent == 1)
        without_it = _prod(input, _C.where(single_zero, _C.ones_like(src), src), dim, index, hit, include_self, longest)
        grad_src = _C.where(single_zero, (grad * without_it).gather(dim, index),
                            (grad * result).gather(dim, index) / _ones_at_zeros(src))
        return grad_self, grad_src, None, None, None, None, None


class _EmptyScatter(Function):
    """scatter_reduce with prod, amax or amin and an empty index: a copy of input with PyTorch's
    gradient, whose formulas hold with nothing scattered too: grad * input / input for prod (NaN at
    inf and NaN, 1 at 0), and for amax and amin grad / (input == input) there (NaN at NaN)."""

    @staticmethod
    def forward(ctx, input, src, reduce):  # noqa: A002
        ctx.save_for_backward(input)
        ctx.reduce, ctx.src_shape = reduce, src.shape
        return input.clone()

    @staticmethod
    def backward(ctx, grad):
        input, = ctx.saved_tensors  # noqa: A001
        if ctx.reduce == "prod":
            masked = _ones_at_zeros(input)
            grad_self = grad * masked / masked
        else:
            is_result = (input == input).to(grad.dtype)
            grad_self = is_result * (grad / is_result)
        return grad_self, _C.zeros(*ctx.src_shape, dtype=grad.dtype, device=grad.device), None


class _ScatterExtremum(Function):
    """scatter_reduce with amax or amin (combine), and PyTorch's gradient for it."""

    @staticmethod
    def forward(ctx, input, src, dim, index, hit, include_self, combine, longest):  # noqa: A002
        placed = _placed(input, dim, index, src, combine, longest)
        result = _C.where(hit, combine(input, placed) if include_self else placed, input)
        ctx.save_for_backward(input, src, index, hit, result)
        ctx.dim, ctx.include_self = dim, include_self
        return result

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's formula (scatter_reduce_backward), written the same way: the elements equal to
        # the result share its gradient.
        input, src, index, hit, result = ctx.saved_tensors  # noqa: A001
        dim = ctx.dim
        value = result.gather(dim, index)
        self_is = (input == result).to(grad.dtype)
        src_is = (src == value).to(grad.dtype)
        share = grad / _C.scatter_add(self_is, dim, index, src_is)
        grad_self = self_is * share
        if not ctx.include_self:
            grad_self = _C.where(hit, _C.zeros_like(grad_self), grad_self)
        grad_src = src_is * share.gather(dim, index)
        return grad_self, grad_src, None, None, None, None, None, None


__all__ = ["scatter_reduce"]
