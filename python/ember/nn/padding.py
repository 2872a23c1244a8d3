"""The padding modules of torch.nn (ZeroPad2d, ConstantPad1d, ReflectionPad2d, ReplicationPad3d,
CircularPad1d, ...): thin modules over ember.nn.functional.pad, which holds the computation, its
gradient and its checks. `padding` is an int (the same amount on every side) or a tuple (left,
right[, top, bottom[, front, back]]), as in PyTorch; they hold no parameters."""
from __future__ import annotations

from typing import Sequence, Union

from . import functional as F
from .modules import Module

_Padding = Union[int, Sequence[int]]


class _PadNd(Module):
    _dims = 1
    _mode = "constant"

    def __init__(self, padding: _Padding, value: float = 0.0) -> None:
        super().__init__()
        if isinstance(padding, int):
            padding = (padding,) * (2 * self._dims)
        padding = tuple(int(p) for p in padding)
        if len(padding) != 2 * self._dims:
            raise ValueError(f"{type(self).__name__}: padding must be an int or {2 * self._dims} ints, got {padding}")
        self.padding, self.value = padding, value

    def forward(self, input):  # noqa: A002
        if self._mode == "constant":
            return F.pad(input, self.padding, mode="constant", value=self.value)
        return F.pad(input, self.padding, mode=self._mode)

    def extra_repr(self) -> str:
        if self._mode == "constant":
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


def _padding_module(name: str, dims: int, mode: str, doc: str):
    return type(name, (_PadNd,), {"_dims": dims, "_mode": mode, "__doc__": doc, "__module__": __name__})


__all__ = []
for _dims in (1, 2, 3):
    for _prefix, _mode in (("Reflection", "reflect"), ("Replication", "replicate"), ("Circular", "circular")):
        _name = f"{_prefix}Pad{_dims}d"
        globals()[_name] = _padding_module(_name, _dims, _mode, f"torch.nn.{_name}(padding): F.pad mode {_mode!r} "
                                           f"of the last {_dims} dim(s).")
        __all__.append(_name)


class ConstantPad1d(_PadNd):
    """torch.nn.ConstantPad1d(padding, value): the last dim padded with value."""
    _dims = 1


class ConstantPad2d(_PadNd):
    """torch.nn.ConstantPad2d(padding, value): the last 2 dims padded with value."""
    _dims = 2


class ConstantPad3d(_PadNd):
    """torch.nn.ConstantPad3d(padding, value): the last 3 dims padded with value."""
    _dims = 3


class ZeroPad1d(ConstantPad1d):
    """torch.nn.ZeroPad1d(padding): the last dim padded with zeros."""

    def __init__(self, padding: _Padding) -> None:
        super().__init__(padding, 0.0)


class ZeroPad2d(ConstantPad2d):
    """torch.nn.ZeroPad2d(padding): the last 2 dims padded with zeros."""

    def __init__(self, padding: _Padding) -> None:
        super().__init__(padding, 0.0)


class ZeroPad3d(ConstantPad3d):
    """torch.nn.ZeroPad3d(padding): the last 3 dims padded with zeros."""

    def __init__(self, padding: _Padding) -> None:
        super().__init__(padding, 0.0)


__all__ += ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]
