"""
ember.optim's C++ half: optimizers and LR schedulers
"""
from __future__ import annotations
import collections.abc
import ember._C
import ember._C.nn
import typing
__all__: list[str] = ['ASGD', 'Adadelta', 'Adagrad', 'Adam', 'AdamW', 'Adamax', 'AveragedModel', 'ChainedScheduler', 'ConstantLR', 'CosineAnnealingLR', 'CosineAnnealingWarmRestarts', 'CyclicLR', 'ExponentialLR', 'GradScaler', 'LBFGS', 'LRScheduler', 'LambdaLR', 'LinearLR', 'MultiStepLR', 'MultiplicativeLR', 'NAdam', 'NoamDecay', 'OneCycleLR', 'Optimizer', 'PolynomialLR', 'RAdam', 'RMSprop', 'ReduceLROnPlateau', 'Rprop', 'SGD', 'SWALR', 'SequentialLR', 'StepLR', 'WarmupCosineLR', 'clip_grad_norm_', 'clip_grad_value_', 'get_ema_avg_fn', 'get_ema_multi_avg_fn', 'get_swa_avg_fn', 'get_swa_multi_avg_fn', 'update_bn']
class Optimizer:
    """
    The base of the optimizers. Parameters are held by name and optimizer state is keyed by name, so a
    checkpoint lands on the right parameter even after the model's parameters were reordered.
    """
    def __init__(self, name: str, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
    def _add_param_group(self, arg0: collections.abc.Sequence[tuple[str, ember._C.Tensor]], arg1: dict) -> None:
        ...
    def _group_options(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> dict:
        ...
    def _group_params(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> list[tuple[str, ember._C.Tensor]]:
        ...
    def _num_groups(self) -> int:
        ...
    def _set_group_option(self, arg0: typing.SupportsInt | typing.SupportsIndex, arg1: str, arg2: typing.Any) -> None:
        ...
    def load_state_dict(self, state_dict: typing.Any, strict: bool = False) -> tuple[list[str], list[str], list[str]]:
        ...
    def state_dict(self) -> typing.Any:
        """
        {'type', 'param_groups': [{hyperparameters..., 'params': [names]}], 'state': {name: {...}}}; refers to the live state tensors.
        """
    def step(self) -> None:
        """
        One update of every parameter that has a gradient.
        """
    def zero_grad(self, set_to_none: bool = True) -> None:
        ...
    @property
    def _name(self) -> str:
        ...
    @property
    def defaults(self) -> dict:
        ...
    @property
    def state(self) -> dict[str, dict[str, ember._C.Tensor]]:
        """
        Per-parameter state by parameter name.
        """
class SGD(Optimizer):
    """
    SGD with momentum (torch.optim.SGD).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class Adam(Optimizer):
    """
    Adam (torch.optim.Adam).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class AdamW(Optimizer):
    """
    AdamW (torch.optim.AdamW).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class RMSprop(Optimizer):
    """
    RMSprop (torch.optim.RMSprop).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class Adagrad(Optimizer):
    """
    Adagrad (torch.optim.Adagrad).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class Adadelta(Optimizer):
    """
    Adadelta (torch.optim.Adadelta).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class Adamax(Optimizer):
    """
    Adamax (torch.optim.Adamax).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class NAdam(Optimizer):
    """
    NAdam (torch.optim.NAdam).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class RAdam(Optimizer):
    """
    RAdam (torch.optim.RAdam).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class Rprop(Optimizer):
    """
    Rprop (torch.optim.Rprop).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class ASGD(Optimizer):
    """
    ASGD (torch.optim.ASGD).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
class LBFGS(Optimizer):
    """
    L-BFGS (torch.optim.LBFGS).
    """
    def __init__(self, groups: collections.abc.Sequence[tuple[collections.abc.Sequence[tuple[str, ember._C.Tensor]], dict]], defaults: dict) -> None:
        ...
    def step(self, closure: collections.abc.Callable) -> ember._C.Tensor:
        """
        One L-BFGS step; closure() reevaluates the model and returns the loss.
        """
class GradScaler:
    """
    optim::GradScaler (ember.amp).
    """
    def __init__(self, init_scale: typing.SupportsFloat | typing.SupportsIndex, growth_factor: typing.SupportsFloat | typing.SupportsIndex, backoff_factor: typing.SupportsFloat | typing.SupportsIndex, growth_interval: typing.SupportsInt | typing.SupportsIndex, enabled: bool) -> None:
        ...
    def begin_step(self, key: typing.SupportsInt | typing.SupportsIndex, grads: collections.abc.Sequence[ember._C.Tensor]) -> bool:
        ...
    def get_scale(self) -> float:
        ...
    def is_enabled(self) -> bool:
        ...
    def load_state_dict(self, state_dict: dict) -> None:
        ...
    def scale(self, outputs: ember._C.Tensor) -> ember._C.Tensor:
        ...
    def state_dict(self) -> dict:
        ...
    def unscale_(self, key: typing.SupportsInt | typing.SupportsIndex, grads: collections.abc.Sequence[ember._C.Tensor]) -> None:
        ...
    def update(self) -> None:
        ...
    def update_to(self, new_scale: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def backoff_factor(self) -> float:
        ...
    @backoff_factor.setter
    def backoff_factor(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def growth_factor(self) -> float:
        ...
    @growth_factor.setter
    def growth_factor(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def growth_interval(self) -> int:
        ...
    @growth_interval.setter
    def growth_interval(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def growth_tracker(self) -> int:
        ...
class LRScheduler:
    """
    The base of the LR schedulers: step() after optimizer.step().
    """
    def get_last_lr(self) -> list[float]:
        ...
    def load_state_dict(self, state_dict: typing.Any) -> None:
        ...
    def state_dict(self) -> typing.Any:
        ...
    def step(self, epoch: typing.Any = None) -> None:
        ...
    @property
    def base_lrs(self) -> list[float]:
        ...
    @property
    def last_epoch(self) -> int:
        ...
class StepLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, step_size: typing.SupportsInt | typing.SupportsIndex, gamma: typing.SupportsFloat | typing.SupportsIndex = 0.1) -> None:
        ...
class MultiStepLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, milestones: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], gamma: typing.SupportsFloat | typing.SupportsIndex = 0.1) -> None:
        ...
class ExponentialLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, gamma: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class LinearLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, start_factor: typing.SupportsFloat | typing.SupportsIndex = 0.3333333333333333, end_factor: typing.SupportsFloat | typing.SupportsIndex = 1.0, total_iters: typing.SupportsInt | typing.SupportsIndex = 5) -> None:
        ...
class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, T_max: typing.SupportsInt | typing.SupportsIndex, eta_min: typing.SupportsFloat | typing.SupportsIndex = 0.0) -> None:
        ...
class WarmupCosineLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, warmup_steps: typing.SupportsInt | typing.SupportsIndex, total_steps: typing.SupportsInt | typing.SupportsIndex, min_lr: typing.SupportsFloat | typing.SupportsIndex = 0.0) -> None:
        ...
class NoamDecay(LRScheduler):
    def __init__(self, optimizer: Optimizer, d_model: typing.SupportsInt | typing.SupportsIndex, warmup_steps: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class OneCycleLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, max_lrs: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], total_steps: typing.SupportsInt | typing.SupportsIndex, pct_start: typing.SupportsFloat | typing.SupportsIndex, anneal_strategy: str, cycle_momentum: bool, base_momentum: typing.Any, max_momentum: typing.Any, div_factor: typing.SupportsFloat | typing.SupportsIndex, final_div_factor: typing.SupportsFloat | typing.SupportsIndex, three_phase: bool) -> None:
        ...
class PolynomialLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, total_iters: typing.SupportsInt | typing.SupportsIndex = 5, power: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> None:
        ...
class CosineAnnealingWarmRestarts(LRScheduler):
    def __init__(self, optimizer: Optimizer, T_0: typing.SupportsInt | typing.SupportsIndex, T_mult: typing.SupportsInt | typing.SupportsIndex = 1, eta_min: typing.SupportsFloat | typing.SupportsIndex = 0.0) -> None:
        ...
class CyclicLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, base_lrs: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], max_lrs: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], step_size_up: typing.SupportsInt | typing.SupportsIndex, step_size_down: typing.SupportsInt | typing.SupportsIndex | None, mode: str, gamma: typing.SupportsFloat | typing.SupportsIndex, scale_fn: typing.Any, scale_mode: str, cycle_momentum: bool, base_momentum: typing.Any, max_momentum: typing.Any) -> None:
        ...
class SequentialLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, schedulers: collections.abc.Sequence[LRScheduler], milestones: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None:
        ...
    @property
    def schedulers(self) -> list[LRScheduler]:
        ...
class ChainedScheduler(LRScheduler):
    def __init__(self, schedulers: collections.abc.Sequence[LRScheduler]) -> None:
        ...
    @property
    def schedulers(self) -> list[LRScheduler]:
        ...
class LambdaLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, lr_lambda: typing.Any) -> None:
        """
        lr = initial lr * lr_lambda(epoch); one function or one per group. The function is code, not state: state_dict() does not hold it.
        """
class MultiplicativeLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, lr_lambda: typing.Any) -> None:
        """
        lr *= lr_lambda(epoch) at every step; one function or one per group. The function is code, not state: state_dict() does not hold it.
        """
class ConstantLR(LRScheduler):
    def __init__(self, optimizer: Optimizer, factor: typing.SupportsFloat | typing.SupportsIndex = 0.3333333333333333, total_iters: typing.SupportsInt | typing.SupportsIndex = 5) -> None:
        """
        lr scaled by factor until total_iters steps, then restored.
        """
class ReduceLROnPlateau:
    """
    Cuts the lrs by factor once a metric stalls: scheduler.step(val_loss).
    """
    def __init__(self, optimizer: Optimizer, mode: str = 'min', factor: typing.SupportsFloat | typing.SupportsIndex = 0.1, patience: typing.SupportsInt | typing.SupportsIndex = 10, threshold: typing.SupportsFloat | typing.SupportsIndex = 0.0001, threshold_mode: str = 'rel', cooldown: typing.SupportsInt | typing.SupportsIndex = 0, min_lr: typing.Any = 0.0, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-08) -> None:
        ...
    def get_last_lr(self) -> list[float]:
        ...
    def load_state_dict(self, state_dict: typing.Any) -> None:
        ...
    def state_dict(self) -> typing.Any:
        ...
    def step(self, metrics: typing.Any) -> None:
        ...
    @property
    def best(self) -> float:
        ...
    @property
    def last_epoch(self) -> int:
        ...
    @property
    def num_bad_epochs(self) -> int:
        ...
class AveragedModel(ember._C.nn.Module):
    """
    torch.optim.swa_utils.AveragedModel: a deep copy of `model` whose parameters (and buffers, with
    use_buffers) average those update_parameters(model) has seen: the running mean, or avg_fn's or
    multi_avg_fn's average. n_averaged is a buffer; forward calls the copy.
    """
    def __init__(self, model: typing.Any, device: typing.Any = None, avg_fn: collections.abc.Callable[[ember._C.Tensor, ember._C.Tensor, ember._C.Tensor], ember._C.Tensor] | None = None, multi_avg_fn: collections.abc.Callable[[list[ember._C.Tensor], list[ember._C.Tensor], ember._C.Tensor], None] | None = None, use_buffers: bool = False) -> None:
        ...
    def forward(self, *args, **kwargs) -> typing.Any:
        """
        The averaged copy's forward.
        """
    def update_parameters(self, model: typing.Any) -> None:
        """
        Folds model's current parameters into the average (the first call copies them).
        """
    @property
    def avg_fn(self) -> collections.abc.Callable[[ember._C.Tensor, ember._C.Tensor, ember._C.Tensor], ember._C.Tensor] | None:
        ...
    @property
    def multi_avg_fn(self) -> collections.abc.Callable[[collections.abc.Sequence[ember._C.Tensor], collections.abc.Sequence[ember._C.Tensor], ember._C.Tensor], None] | None:
        ...
    @property
    def use_buffers(self) -> bool:
        ...
class SWALR(LRScheduler):
    """
    torch.optim.swa_utils.SWALR: anneals each group's lr to its swa_lr (stored in the group) over
    anneal_epochs steps, by "cos" or "linear", then holds it. Building it takes the first step.
    """
    def __init__(self, optimizer: Optimizer, swa_lr: typing.Any, anneal_epochs: typing.SupportsInt | typing.SupportsIndex = 10, anneal_strategy: str = 'cos', last_epoch: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
    @property
    def anneal_epochs(self) -> int:
        ...
    @property
    def anneal_strategy(self) -> str:
        ...
def _is_scheduler_key(key: str) -> bool:
    """
    True for the keys LR schedulers add to parameter groups (initial_lr, max_lr, ...).
    """
def clip_grad_norm_(parameters: collections.abc.Sequence[ember._C.Tensor], max_norm: typing.SupportsFloat | typing.SupportsIndex, norm_type: typing.SupportsFloat | typing.SupportsIndex = 2.0, error_if_nonfinite: bool = False) -> ember._C.Tensor:
    ...
def clip_grad_value_(parameters: collections.abc.Sequence[ember._C.Tensor], clip_value: typing.SupportsFloat | typing.SupportsIndex) -> None:
    ...
def get_ema_avg_fn(decay: typing.SupportsFloat | typing.SupportsIndex = 0.999) -> collections.abc.Callable[[ember._C.Tensor, ember._C.Tensor, ember._C.Tensor], ember._C.Tensor]:
    """
    avg_fn(averaged, current, num_averaged) of an exponential moving average.
    """
def get_ema_multi_avg_fn(decay: typing.SupportsFloat | typing.SupportsIndex = 0.999) -> collections.abc.Callable[[collections.abc.Sequence[ember._C.Tensor], collections.abc.Sequence[ember._C.Tensor], ember._C.Tensor], None]:
    """
    multi_avg_fn(averaged, current, num_averaged) of an exponential moving average.
    """
def get_swa_avg_fn() -> collections.abc.Callable[[ember._C.Tensor, ember._C.Tensor, ember._C.Tensor], ember._C.Tensor]:
    """
    avg_fn of the running mean.
    """
def get_swa_multi_avg_fn() -> collections.abc.Callable[[collections.abc.Sequence[ember._C.Tensor], collections.abc.Sequence[ember._C.Tensor], ember._C.Tensor], None]:
    """
    multi_avg_fn of the running mean.
    """
def update_bn(loader: collections.abc.Iterable, model: typing.Any, device: typing.Any = None) -> None:
    """
    Recomputes the batch-norm running statistics of `model` with one pass over `loader` (batches, or
    tuples whose first entry is the input): each becomes the average over the batches of the batch's
    mean and unbiased variance, as torch's.
    """
