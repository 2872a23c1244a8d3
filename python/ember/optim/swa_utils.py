"""torch.optim.swa_utils: stochastic weight averaging and exponential moving averages of a model.

    swa_model = AveragedModel(model)                       # or multi_avg_fn=get_ema_multi_avg_fn(0.999)
    swa_scheduler = SWALR(optimizer, swa_lr=0.05)
    for epoch in range(...):
        train(model, optimizer)
        swa_model.update_parameters(model); swa_scheduler.step()
    update_bn(loader, swa_model)

As PyTorch's, with two differences of form: SWALR is written in Python over the optimizer's
param_groups (Ember's schedulers are C++ classes that Python cannot derive from), so it is no
ember.optim.lr_scheduler.LRScheduler instance and keeps each group's swa_lr itself; update_bn
computes the cumulative averages that torch gets from momentum=None (Ember's BatchNorm has a fixed
momentum) in hooks around each batch-norm layer.
"""
from __future__ import annotations

import itertools
import math
import warnings
from typing import Any, Callable, Iterable

from .. import _C
from ..autograd import no_grad
from ..nn.modules import Module


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """multi_avg_fn for an exponential moving average: ema = decay * ema + (1 - decay) * param."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list: list, current_param_list: list, _) -> None:
        for p_ema, p_model in zip(ema_param_list, current_param_list):
            if p_ema.is_floating_point():
                p_ema.lerp_(p_model, 1 - decay)  # torch._foreach_lerp_
            else:
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """multi_avg_fn for the running mean: avg += (param - avg) / (n_averaged + 1)."""
    @no_grad()
    def swa_update(averaged_param_list: list, current_param_list: list, num_averaged: Any) -> None:
        for p_avg, p_model in zip(averaged_param_list, current_param_list):
            p_avg.copy_(p_avg + (p_model - p_avg) / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """avg_fn for an exponential moving average (one tensor at a time)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn() -> Callable:
    """avg_fn for the running mean (one tensor at a time)."""
    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of `model` (copy.deepcopy) whose parameters (and buffers, with use_buffers) are the
    average of those update_parameters(model) has seen: the running mean by default, avg_fn or
    multi_avg_fn otherwise. n_averaged is a buffer (an int64 0-d tensor); forward calls the copy."""

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False):
        import copy
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        n = _C.zeros([], dtype=_C.int64)
        self.register_buffer("n_averaged", n.to(device) if device is not None else n)
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Folds model's current parameters into the average (the first call copies them)."""
        if self.use_buffers:
            self_param = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            model_param = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            self_param, model_param = list(self.parameters()), list(model.parameters())
        with no_grad():
            averaged, current = [], []
            copy_param = int(self.n_averaged.item()) == 0
            for p_averaged, p_model in zip(self_param, model_param):
                p_model_ = p_model.detach().to(p_averaged.device)
                averaged.append(p_averaged.detach())
                current.append(p_model_)
                if copy_param:
                    p_averaged.detach().copy_(p_model_)
            if int(self.n_averaged.item()) > 0:
                n_averaged = self.n_averaged
                if self.multi_avg_fn is not None:
                    self.multi_avg_fn(averaged, current, n_averaged)
                elif self.avg_fn is None:
                    # NB: torch groups by device and dtype and, on CPU, runs get_swa_avg_fn per tensor.
                    avg = get_swa_avg_fn()
                    for p_avg, p_model in zip(averaged, current):
                        p_avg.copy_(avg(p_avg, p_model, n_averaged.to(p_avg.device)))
                else:
                    for p_avg, p_model in zip(averaged, current):
                        p_avg.copy_(self.avg_fn(p_avg, p_model, n_averaged.to(p_avg.device)))
            if not self.use_buffers:
                # The copy's buffers (batch-norm statistics) follow the model's.
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged.add_(1)


def _batch_norms(model: Module) -> list:
    return [m for m in model.modules() if isinstance(m, _C.nn._BatchNorm)]


@no_grad()
def update_bn(loader: Iterable, model: Module, device: Any = None) -> None:
    """Recomputes the batch-norm running statistics of `model` with one pass over `loader` (batches,
    or (input, ...) tuples whose first entry is the input), as torch's: the running mean and
    variance become the averages, over the batches, of each batch's mean and unbiased variance."""
    norms = _batch_norms(model)
    if not norms:
        return
    for bn in norms:
        bn.reset_running_stats()
    sums: dict = {}
    handles = []

    def cumulative(bn, args, output):
        # What torch's momentum=None gives: running = mean over the batches seen of batch stats.
        x = args[0]
        dims = [d for d in range(x.dim()) if d != 1]
        n = x.numel() // x.shape[1]
        mean = x.mean(dims)
        var = ((x - mean.reshape([1, -1] + [1] * (x.dim() - 2))) ** 2).sum(dims) / max(n - 1, 1)
        count, s_mean, s_var = sums.get(_C.nn._address(bn), (0, 0.0, 0.0))
        count, s_mean, s_var = count + 1, s_mean + mean, s_var + var
        sums[_C.nn._address(bn)] = (count, s_mean, s_var)
        bn.running_mean.copy_(s_mean / count)
        bn.running_var.copy_(s_var / count)

    for bn in norms:
        handles.append(bn.register_forward_hook(cumulative))
    was_training = model.training
    model.train()
    try:
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)


class SWALR:
    """torch.optim.swa_utils.SWALR: anneals each group's lr to swa_lr over anneal_epochs steps
    ("cos" or "linear"), then holds it. Constructing it takes the first step, as torch's
    schedulers do; call step() after each epoch."""

    def __init__(self, optimizer: Any, swa_lr: float | list, anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1):
        groups = optimizer.param_groups
        if isinstance(swa_lr, (list, tuple)):
            if len(swa_lr) != len(groups):
                raise ValueError(f"swa_lr must have the same length as optimizer.param_groups: "
                                 f"swa_lr has {len(swa_lr)} values, param_groups has {len(groups)}")
            swa_lrs = [float(v) for v in swa_lr]
        else:
            swa_lrs = [float(swa_lr)] * len(groups)
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.optimizer = optimizer
        self.swa_lrs = swa_lrs
        self.anneal_epochs = anneal_epochs
        self._anneal_strategy = anneal_strategy
        if last_epoch == -1:
            self.initial_lrs = [g["lr"] for g in groups]
        else:
            raise ValueError("SWALR: last_epoch other than -1 is not supported (resume with load_state_dict)")
        self.base_lrs = list(self.initial_lrs)
        self.last_epoch = last_epoch
        self._step_count = 0
        self._get_lr_called_within_step = False
        self.step()

    @property
    def anneal_func(self) -> Callable[[float], float]:
        return self._cosine_anneal if self._anneal_strategy == "cos" else self._linear_anneal

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        groups = self.optimizer.param_groups
        prev_lrs = [self._get_initial_lr(g["lr"], swa, prev_alpha) for g, swa in zip(groups, self.swa_lrs)]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [swa * alpha + lr * (1 - alpha) for swa, lr in zip(self.swa_lrs, prev_lrs)]

    def step(self, epoch: int | None = None) -> None:
        if epoch is not None:
            raise ValueError("SWALR.step: the epoch argument is not supported (as torch, it is deprecated)")
        self._step_count += 1
        self.last_epoch += 1
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def get_last_lr(self) -> list:
        return list(self._last_lr)

    def state_dict(self) -> dict:
        """Every attribute but the optimizer, as torch's."""
        return {k: (list(v) if isinstance(v, list) else v) for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)


__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]
