"""Tensor.put / put_ (writes at flat positions, as if self were 1-D) and Tensor.apply_ / map_ /
map2_ (a Python callable run on every element, CPU tensors only, as torch's)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import _C
from ._C import Tensor


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:  # noqa: A002
    """A copy of input with its flattened elements at `index` (negative counts from the end) set to
    source's elements in order, or, with accumulate, added to (repeated indices add up)."""
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    flat_index = index.reshape(-1).to(_C.int64)
    if flat_index.numel() and (int(flat_index.max()) >= n or int(flat_index.min()) < -n):
        bad = int(flat_index.max()) if int(flat_index.max()) >= n else int(flat_index.min())
        raise IndexError(f"put_(): index {bad} out of range for tensor of size {list(input.shape)} ({n} elements)")
    flat_index = _C.where(flat_index < 0, flat_index + n, flat_index)
    flat = input.reshape(-1).clone()
    out = flat.index_put_((flat_index,), source.reshape(-1).to(input.dtype), accumulate)
    return out.reshape(*input.shape)


def _python_values(t: Tensor) -> list:
    return t.detach().numpy().reshape(-1).tolist() if t.dtype != _C.bfloat16 else t.float().numpy().reshape(-1).tolist()


def _write_values(self: Tensor, values: list) -> Tensor:
    array = np.array(values).reshape(tuple(self.shape)) if values else np.zeros(tuple(self.shape))
    return self.copy_(_C.from_numpy(np.ascontiguousarray(array)).to(self.dtype))


def _check_cpu(self: Tensor, who: str) -> None:
    if self.device.type != "cpu":
        raise TypeError(f"{who} is only implemented on CPU tensors")


def apply_(self: Tensor, callable: Callable[[Any], Any]) -> Tensor:  # noqa: A002  (PyTorch's name)
    """In place: every element x becomes callable(x) (a Python number in, one out). Slow: CPU only."""
    _check_cpu(self, "apply_")
    if self.requires_grad:
        raise RuntimeError("Can't call apply_() on Variable that requires grad. Use var.detach().apply_() instead.")
    return _write_values(self, [callable(v) for v in _python_values(self)])


def map_(self: Tensor, tensor: Tensor, callable: Callable[[Any, Any], Any]) -> Tensor:  # noqa: A002
    """In place: every element x becomes callable(x, y), y the element of `tensor` (broadcast to self's
    shape) at the same position. Slow: CPU only."""
    _check_cpu(self, "map_")
    if self.requires_grad or tensor.requires_grad:
        raise RuntimeError("Can't call map_() on Variable that requires grad. Use var.detach().map_() instead.")
    other = _python_values(tensor.expand(*self.shape).contiguous())
    return _write_values(self, [callable(x, y) for x, y in zip(_python_values(self), other)])


def map2_(self: Tensor, x: Tensor, y: Tensor, callable: Callable[[Any, Any, Any], Any]) -> Tensor:  # noqa: A002
    """In place: every element s becomes callable(s, a, b), a and b the elements of x and y (broadcast
    to self's shape) at the same position. Slow: CPU only."""
    _check_cpu(self, "map2_")
    if self.requires_grad or x.requires_grad or y.requires_grad:
        raise RuntimeError("Can't call map2_() on Variable that requires grad. Use var.detach().map2_() instead.")
    a = _python_values(x.expand(*self.shape).contiguous())
    b = _python_values(y.expand(*self.shape).contiguous())
    return _write_values(self, [callable(s, u, v) for s, u, v in zip(_python_values(self), a, b)])


__all__ = ["put", "apply_", "map_", "map2_"]
