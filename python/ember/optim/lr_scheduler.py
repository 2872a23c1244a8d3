"""ember.optim.lr_scheduler: learning-rate schedules (torch.optim.lr_scheduler). Build one on an
optimizer and call scheduler.step() after each optimizer.step(); the first step already uses the
schedule's first value. A scheduler keeps its optimizer alive. state_dict() holds progress only:
configuration (including LambdaLR's functions) comes from the constructor."""
from __future__ import annotations

from typing import Callable, Sequence, Union

from .._C.optim import (  # noqa: F401  (re-exported)
    ChainedScheduler as _ChainedScheduler,
    CosineAnnealingLR,
    ConstantLR,
    CosineAnnealingWarmRestarts,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    LRScheduler,
    MultiplicativeLR,
    MultiStepLR,
    NoamDecay,
    PolynomialLR,
    ReduceLROnPlateau,
    SequentialLR,
    StepLR,
    WarmupCosineLR,
)
from .._C.optim import CyclicLR as _CyclicLR
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
                         _number_or_list(base_momentum), _number_or_list(max_momentum), div_factor,
                         final_div_factor, three_phase)


def _per_group(value, what: str) -> list:
    return [float(v) for v in value] if isinstance(value, (list, tuple)) else [float(value)]


def _number_or_list(value):
    # torch takes a momentum bound as one number or one per group.
    return [float(v) for v in value] if isinstance(value, (list, tuple)) else float(value)


class CyclicLR(_CyclicLR):
    """torch.optim.lr_scheduler.CyclicLR: the lr cycles between base_lr and max_lr (one value or one
    per group); momentum (or Adam's beta1) cycles inversely between max_momentum and
    base_momentum unless cycle_momentum=False."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up: int = 2000, step_size_down: int | None = None,
                 mode: str = "triangular", gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None,
                 scale_mode: str = "cycle", cycle_momentum: bool = True, base_momentum: float = 0.8,
                 max_momentum: float = 0.9, last_epoch: int = -1):
        if last_epoch != -1:
            raise ValueError("CyclicLR: last_epoch is not supported (resume with load_state_dict)")
        super().__init__(optimizer, _per_group(base_lr, "base_lr"), _per_group(max_lr, "max_lr"), int(step_size_up),
                         None if step_size_down is None else int(step_size_down), mode, float(gamma), scale_fn,
                         scale_mode, bool(cycle_momentum), _number_or_list(base_momentum),
                         _number_or_list(max_momentum))


class ChainedScheduler(_ChainedScheduler):
    """torch.optim.lr_scheduler.ChainedScheduler(schedulers, optimizer=None): steps each in turn."""

    def __init__(self, schedulers, optimizer=None):
        super().__init__(list(schedulers))


__all__ = ["LRScheduler", "ConstantLR", "MultiplicativeLR", "PolynomialLR", "CosineAnnealingWarmRestarts", "CyclicLR", "SequentialLR",
           "ChainedScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LinearLR", "CosineAnnealingLR",
           "OneCycleLR", "LambdaLR", "ReduceLROnPlateau", "WarmupCosineLR", "NoamDecay"]
