"""Layers written in Python over ember.nn.functional: CosineSimilarity, the 1-D pools, Fold and
Unfold, LocalResponseNorm. They hold no parameters (so checkpoints need
nothing from them) and work inside Sequential and other containers like any Python Module."""
from __future__ import annotations

from typing import Any, Sequence

from .. import _C
from . import functional as F
from .modules import Module


class _Activation(Module):
    _fn: Any = None

    def __init__(self, *args: Any, inplace: bool = False, **kwargs: Any) -> None:
        super().__init__()
        self._args, self._kwargs = args, kwargs

    def forward(self, input):  # noqa: A002
        return type(self)._fn(input, *self._args, **self._kwargs)

    def extra_repr(self) -> str:
        return ", ".join([repr(a) for a in self._args] + [f"{k}={v!r}" for k, v in self._kwargs.items()])


class CosineSimilarity(Module):
    """CosineSimilarity(dim=1, eps=1e-8) of two inputs."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class _Pool1d(Module):
    _fn: Any = None

    def __init__(self, kernel_size, stride=None, padding=0, **options: Any) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride or kernel_size, padding
        self._options = options

    def forward(self, input):  # noqa: A002
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, **self._options)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool1d(_Pool1d):
    """MaxPool1d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False)."""
    _fn = staticmethod(F.max_pool1d)

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__(kernel_size, stride, padding, dilation=dilation, ceil_mode=ceil_mode,
                         return_indices=return_indices)


class AvgPool1d(_Pool1d):
    """AvgPool1d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)."""
    _fn = staticmethod(F.avg_pool1d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad)


class AdaptiveAvgPool1d(_Activation):
    """AdaptiveAvgPool1d(output_size)."""
    _fn = staticmethod(F.adaptive_avg_pool1d)

    def __init__(self, output_size) -> None:
        super().__init__(output_size)


class AdaptiveMaxPool1d(_Activation):
    """AdaptiveMaxPool1d(output_size, return_indices=False)."""
    _fn = staticmethod(F.adaptive_max_pool1d)

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size, return_indices)


class LPPool1d(Module):
    """LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)."""

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):  # noqa: A002
        return F.lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(LPPool1d):
    """LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)."""

    def forward(self, input):  # noqa: A002
        return F.lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class Unfold(Module):
    """Unfold(kernel_size, dilation=1, padding=0, stride=1): im2col."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):  # noqa: A002
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(Module):
    """Fold(output_size, kernel_size, dilation=1, padding=0, stride=1): col2im."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):  # noqa: A002
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


class LocalResponseNorm(Module):
    """LocalResponseNorm(size, alpha=1e-4, beta=0.75, k=1.0) over the channels (dim 1)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):  # noqa: A002
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


__all__ = ["CosineSimilarity", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "LPPool1d",
           "LPPool2d", "Unfold", "Fold", "LocalResponseNorm"]
