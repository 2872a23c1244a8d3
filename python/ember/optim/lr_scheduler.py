"""ember.optim.lr_scheduler: learning-rate schedules (torch.optim.lr_scheduler). Build one on an
optimizer and call scheduler.step() after each optimizer.step(); the first step already uses the
schedule's first value. A scheduler keeps its optimizer alive. state_dict() holds progress only:
configuration (including LambdaLR's functions) comes from the constructor."""
from __future__ import annotations

from typing import Callable, Sequence, Union

from .._C.optim import (  # noqa: F401  (re-exported)
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    LRScheduler,
    MultiStepLR,
    NoamDecay,
    ReduceLROnPlateau,
    StepLR,
    WarmupCosineLR,
)
from .._C.optim import OneCycleLR as _OneCycleLR

_LRLambda = Union[Callable[[int], float], Sequence[Callable[[int], float]]]


class OneCycleLR(_OneCycleLR):
    """torch.optim.lr_scheduler.OneCycleLR: max_lr (one or one per group) and total_steps, or epochs
    and steps_per_epoch."""

    def __init__(self, optimizer, max_lr, total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3, anneal_strategy: str = "cos",
                 cycle_momentum: bool = True, base_momentum: float = 0.85, max_momentum: float = 0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4, three_phase: bool = False):
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("OneCycleLR: give total_steps, or epochs and steps_per_epoch")
            total_steps = epochs * steps_per_epoch
        max_lrs = [float(v) for v in max_lr] if isinstance(max_lr, (list, tuple)) else [float(max_lr)]
        super().__init__(optimizer, max_lrs, total_steps, pct_start, anneal_strategy, cycle_momentum,
                         base_momentum, max_momentum, div_factor, final_div_factor, three_phase)


__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LinearLR", "CosineAnnealingLR",
           "OneCycleLR", "LambdaLR", "ReduceLROnPlateau", "WarmupCosineLR", "NoamDecay"]
