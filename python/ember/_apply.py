"""Tensor.apply_ / map_ / map2_: a Python callable run on every element (CPU tensors only, as
torch's)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import _C
from ._C import Tensor


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


__all__ = ["apply_", "map_", "map2_"]
