"""PyTorch call forms that the op table's signatures do not express, composed in Python over the
C++ ops (each keeps the plain form's fast path):

- any / all over several dims (a tuple or list), or dim=None with keepdim;
- round(decimals=d): round(x * 10^d) / 10^d, as PyTorch computes it (in the input's dtype);
- repeat_interleave with a tensor of repeats (one count per entry along dim), or with the counts
  alone (repeat_interleave(counts): each index repeated its count times);
- norm with p="fro" (the 2-norm of the entries over at most two dims) or p="nuc";
- div_ with rounding_mode (in place, as div with it)."""
from __future__ import annotations

from typing import Any

import numpy as _np

from . import _C
from ._C import Tensor
from ._promotion import check_castable
from ._tensor import div as _div

_c_any, _c_all, _c_round = _C.any, _C.all, _C.round
_c_repeat_interleave, _c_norm = _C.repeat_interleave, _C.norm
_c_div_ = Tensor.div_


def _dims(dim: Any, ndim: int, op: str) -> list[int]:
    dims = [dim] if isinstance(dim, int) else list(dim)
    rank = max(ndim, 1)
    out = []
    for d in dims:
        if not -rank <= d < rank:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {d})")
        d %= rank
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return out


def _logical_reduce(c_full: Any, name: str) -> Any:
    def reduce(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A002
        if dim is None:
            out = c_full(input)
            return out.reshape([1] * input.dim()) if keepdim else out
        if isinstance(dim, int):
            return c_full(input, dim, keepdim)
        dims = _dims(dim, input.dim(), name)
        if not dims:  # NB: as PyTorch, an empty tuple reduces nothing: each entry's truth
            return _C.ne(input, 0) if input.dtype != _C.bool else input.clone()
        out = input
        for d in dims:
            out = c_full(out, d, True)
        if not keepdim:
            out = out.reshape([s for i, s in enumerate(out.shape) if i not in dims])
        return out
    reduce.__name__ = name
    reduce.__doc__ = _C.__dict__[name].__doc__
    return reduce


any = _logical_reduce(_c_any, "any")  # noqa: A001  (PyTorch's names)
all = _logical_reduce(_c_all, "all")  # noqa: A001


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001,A002
    """The nearest integer, halves to even; with decimals, round(x * 10^d) / 10^d (d < 0:
    round(x / 10^-d) * 10^-d), in the input's dtype as PyTorch (so 0.05 rounds to 0.0)."""
    if decimals == 0:
        return _c_round(input)
    if not input.is_floating_point():
        raise NotImplementedError(f'"round_cpu" not implemented for \'{str(input.dtype).split(".")[-1]}\'')
    scale = 10.0 ** abs(decimals)
    if decimals > 0:
        return _c_round(input * scale) / scale
    return _c_round(input / scale) * scale


def repeat_interleave(input: Tensor, repeats: Any = None, dim: int | None = None, *,  # noqa: A002
                      output_size: int | None = None) -> Tensor:
    """Each entry along dim (of the flattened tensor without dim) repeated `repeats` times: a number,
    or a tensor of one count per entry (a one-entry tensor counts for all). With no repeats, input
    holds the counts and the result is each index repeated its count times."""
    if repeats is None:
        counts = input
        if counts.dim() > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return repeat_interleave(_C.arange(counts.shape[0], device=counts.device), counts)
    if not isinstance(repeats, Tensor):
        return _c_repeat_interleave(input, repeats, dim)
    if repeats.dim() == 0 or repeats.numel() == 1:
        return _c_repeat_interleave(input, int(repeats.reshape([]).item()), dim)
    if repeats.dim() > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if repeats.dtype not in (_C.int64, _C.int32):
        raise RuntimeError("repeats has to be Long or Int tensor")
    x = input.flatten() if dim is None else input
    d = 0 if dim is None else _dims(dim, x.dim(), "repeat_interleave")[0]
    counts = repeats.cpu().numpy()
    if counts.shape[0] != x.shape[d]:
        raise RuntimeError("repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {counts.shape[0]} and input.size({d}) = {x.shape[d]}")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    # NB: an index_select, so the gradient sums the copies back into each entry.
    index = _C.from_numpy(_np.repeat(_np.arange(counts.shape[0], dtype=_np.int64), counts)).to(x.device)
    return x.index_select(d, index)


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,  # noqa: A002
         dtype: Any = None) -> Tensor:
    """torch.norm: p="fro" is the 2-norm of the entries over dim (at most two dims; every entry when
    None), p="nuc" the nuclear norm of the matrices over dim (the last two when None), a number p the
    vector p-norm over dim."""
    if dtype is not None:
        input = input.to(dtype)
    if isinstance(dim, int):
        dim = [dim]
    if isinstance(p, str):
        if p == "nuc":
            from . import linalg
            return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
        if p != "fro":
            raise RuntimeError(f"norm: p must be a number, 'fro' or 'nuc', got '{p}'")
        if dim is not None and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {', '.join(map(str, dim))}")
        p = 2
    return _c_norm(input, p, dim, keepdim)


def _div_(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is None:
        return _c_div_(self, other)
    result = _div(self, other, rounding_mode=rounding_mode)
    check_castable(result, self)
    return self.copy_(result)


_div_.__doc__ = "In place: self.copy_(div(self, other, rounding_mode=rounding_mode))."


# NB: each keeps the op table's doc first (test_codegen checks it), then says what it adds.
for _f, _c in ((round, _c_round), (repeat_interleave, _c_repeat_interleave), (norm, _c_norm)):
    _f.__doc__ = f"{_c.__doc__}\n\nPyTorch's forms too: {_f.__doc__}"


def _method(f: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return f(self, *args, **kwargs)
    method.__name__, method.__doc__ = f.__name__, f.__doc__
    return method


Tensor.any, Tensor.all, Tensor.round = _method(any), _method(all), _method(round)
Tensor.repeat_interleave, Tensor.norm = _method(repeat_interleave), _method(norm)
Tensor.div_ = _div_
