"""PyTorch's rule for the ops that index along a dim (scatter, scatter_reduce, index_copy,
index_reduce, quantile): a 0-d tensor counts as 1-D of one entry, its dim 0 (or -1), so
x.scatter(0, i, s) of a 0-d x, i and s writes s into x. as_one_dim lifts every 0-d tensor
argument to shape [1], runs the op, and gives the 0-d self's result back its shape."""
from __future__ import annotations

from typing import Any

from ._C import Tensor


def _lift(x: Any) -> Any:
    return x.reshape(1) if isinstance(x, Tensor) and x.dim() == 0 else x


def as_one_dim(op: Any) -> Any:
    def wrapped(self: Tensor, dim: Any = None, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(self, Tensor) or self.dim() != 0 or not isinstance(dim, int):
            return op(self, dim, *args, **kwargs)
        if dim not in (0, -1):
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})")
        out = op(self.reshape(1), 0, *(_lift(a) for a in args), **{k: _lift(v) for k, v in kwargs.items()})
        return out.reshape(()) if isinstance(out, Tensor) and out.dim() == 1 else out
    wrapped.__name__ = getattr(op, "__name__", "op")
    wrapped.__doc__ = op.__doc__
    return wrapped
