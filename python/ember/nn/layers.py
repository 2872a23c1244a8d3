"""Layers written in Python over ember.nn.functional: the loss modules, the activations PyTorch
scripts build as modules, Dropout2d and Unflatten. They hold no parameters (so checkpoints need
nothing from them) and work inside Sequential and other containers like any Python Module."""
from __future__ import annotations

from typing import Any, Sequence

from .. import _C
from . import functional as F
from .modules import Module


class _Loss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in ("mean", "sum", "none") and not (reduction == "batchmean" and type(self) is KLDivLoss):
            raise ValueError(f"{type(self).__name__}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.reduction = reduction

    def extra_repr(self) -> str:
        return "" if self.reduction == "mean" else f"reduction={self.reduction}"

    def _optional_buffer(self, name: str, value) -> None:
        # A class weight is state, as in PyTorch: a buffer that state_dict() saves and to() moves.
        if value is not None:
            self.register_buffer(name, value)
        else:
            setattr(self, name, None)


class CrossEntropyLoss(_Loss):
    """torch.nn.CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean', label_smoothing=0)."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        self._optional_buffer("weight", weight)

    def forward(self, input, target):  # noqa: A002
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_Loss):
    """torch.nn.NLLLoss(weight=None, ignore_index=-100, reduction='mean')."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.ignore_index = ignore_index
        self._optional_buffer("weight", weight)

    def forward(self, input, target):  # noqa: A002
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class MSELoss(_Loss):
    """torch.nn.MSELoss(reduction='mean')."""

    def forward(self, input, target):  # noqa: A002
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """torch.nn.L1Loss(reduction='mean')."""

    def forward(self, input, target):  # noqa: A002
        return F.l1_loss(input, target, reduction=self.reduction)


class BCELoss(_Loss):
    """torch.nn.BCELoss(weight=None, reduction='mean'), on probabilities."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self._optional_buffer("weight", weight)

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """torch.nn.BCEWithLogitsLoss(weight=None, reduction='mean', pos_weight=None), on logits."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None) -> None:
        super().__init__(reduction)
        self._optional_buffer("weight", weight)
        self._optional_buffer("pos_weight", pos_weight)

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy_with_logits(input, target, weight=self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class SmoothL1Loss(_Loss):
    """torch.nn.SmoothL1Loss(reduction='mean', beta=1.0)."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(reduction)
        self.beta = beta

    def forward(self, input, target):  # noqa: A002
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """torch.nn.HuberLoss(reduction='mean', delta=1.0)."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input, target):  # noqa: A002
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """torch.nn.KLDivLoss(reduction='mean', log_target=False); input holds log-probabilities."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(reduction)
        self.log_target = log_target

    def forward(self, input, target):  # noqa: A002
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class _Activation(Module):
    _fn: Any = None

    def __init__(self, *args: Any, inplace: bool = False, **kwargs: Any) -> None:
        super().__init__()
        self._args, self._kwargs = args, kwargs

    def forward(self, input):  # noqa: A002
        return type(self)._fn(input, *self._args, **self._kwargs)

    def extra_repr(self) -> str:
        return ", ".join([repr(a) for a in self._args] + [f"{k}={v!r}" for k, v in self._kwargs.items()])


class SiLU(_Activation):
    """x * sigmoid(x)."""
    _fn = staticmethod(F.silu)


class Mish(_Activation):
    """x * tanh(softplus(x))."""
    _fn = staticmethod(F.mish)


class ELU(_Activation):
    """ELU(alpha=1.0)."""
    _fn = staticmethod(F.elu)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(alpha=alpha)


class Softplus(_Activation):
    """Softplus(beta=1.0, threshold=20.0)."""
    _fn = staticmethod(F.softplus)

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__(beta=beta, threshold=threshold)


class Hardtanh(_Activation):
    """Hardtanh(min_val=-1.0, max_val=1.0)."""
    _fn = staticmethod(F.hardtanh)

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__(min_val=min_val, max_val=max_val)


class ReLU6(_Activation):
    """min(max(x, 0), 6)."""
    _fn = staticmethod(F.relu6)


class LogSigmoid(_Activation):
    """log(sigmoid(x))."""
    _fn = staticmethod(F.logsigmoid)


class LogSoftmax(_Activation):
    """LogSoftmax(dim)."""
    _fn = staticmethod(F.log_softmax)

    def __init__(self, dim: int | None = None) -> None:
        if dim is None:
            raise ValueError("LogSoftmax: give dim (PyTorch's implicit choice is deprecated)")
        super().__init__(dim)


class Dropout2d(Module):
    """Zeroes whole channels of [N, C, H, W] (or [C, H, W]) input with probability p in training,
    scaling the rest by 1 / (1 - p)."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"Dropout2d: p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, input):  # noqa: A002
        if not self.training or self.p == 0:
            return input
        if input.dim() not in (3, 4):
            raise ValueError(f"Dropout2d: expected 3-D or 4-D input, got shape {list(input.shape)}")
        mask_shape = list(input.shape[:-2]) + [1, 1]
        keep = _C.dropout(_C.ones(*mask_shape, dtype=input.dtype, device=input.device), self.p, True)
        return input * keep

    def extra_repr(self) -> str:
        return f"p={self.p}"


class Unflatten(Module):
    """Unflatten(dim, unflattened_size): dim split into the given sizes (a view when possible)."""

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):  # noqa: A002
        d = self.dim % input.dim()
        shape = list(input.shape[:d]) + list(self.unflattened_size) + list(input.shape[d + 1:])
        return input.reshape(*shape)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "BCELoss", "BCEWithLogitsLoss", "SmoothL1Loss",
           "HuberLoss", "KLDivLoss", "SiLU", "Mish", "ELU", "Softplus", "Hardtanh", "ReLU6", "LogSigmoid",
           "LogSoftmax", "Dropout2d", "Unflatten"]
