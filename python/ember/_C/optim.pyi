"""
ember.optim's C++ half: optimizers and LR schedulers
"""
from __future__ import annotations
import collections.abc
import ember._C
import ember._C.nn
import typing
__all__: list[str] = ['ASGD', 'Adadelta', 'Adagrad', 'Adam', 'AdamW', 'Adamax', 'AveragedModel', 'ChainedScheduler', 'ConstantLR', 'CosineAnnealingLR', 'CosineAnnealingWarmRestarts', 'CyclicLR', 'ExponentialLR', 'GradScaler', 'LBFGS', 'LRScheduler', 'LambdaLR', 'LinearLR', 'MultiStepLR', 'MultiplicativeLR', 'NAdam', 'NoamDecay', 'OneCycleLR', 'Optimizer', 'ParamGroup', 'PolynomialLR', 'RAdam', 'RMSprop', 'ReduceLROnPlateau', 'Rprop', 'SGD', 'SWALR', 'SequentialLR', 'StepLR', 'WarmupCosineLR', 'clip_grad_norm_', 'clip_grad_value_', 'get_ema_avg_fn', 'get_ema_multi_avg_fn', 'get_swa_avg_fn', 'get_swa_multi_avg_fn', 'update_bn']
class Optimizer:
    """
    torch.optim.Optimizer over the C++ optimizers: parameters are held by name and optimizer state is keyed
    by name, so a checkpoint lands on the right parameter even after the model's parameters were
    reordered. Subclass it to write an optimizer in Python (ember.optim's docstring).
    """
    _extras = None
    _int_keys: typing.ClassVar[frozenset]
    _keyed_by_position: typing.ClassVar[bool] = False
    _names_root = None
    def __init__(self, params: typing.Any, defaults: typing.Any) -> None:
        """
        torch.optim.Optimizer(params, defaults), for an optimizer written in Python: params as the built-in optimizers take them, defaults the hyperparameters every group starts from. self.state is a dict per parameter, keyed by the tensor; state_dict() keys it by name.
        """
    def __repr__(self) -> str:
        ...
    def _add_param_group(self, arg0: collections.abc.Sequence[tuple[str, ember._C.Tensor]], arg1: dict) -> None:
        ...
    def add_param_group(self, param_group: typing.Any) -> None:
        """
        Adds a group {"params": parameters, hyperparameter: value, ...}.
        """
    def load_state_dict(self, state_dict: typing.Any, strict: bool = False) -> typing.Any:
        """
        Restores state by parameter name: returns (missing, unexpected, moved) names; strict makes unexpected names an error. State keyed by position loads only into an optimizer keyed by position whose parameters match it in number and shape.
        """
    def state_dict(self) -> dict:
        """
        {'type', 'param_groups': [{hyperparameters..., 'params': [names]}], 'state': {name: {...}}} (plus 'keyed_by': 'position' when the parameters had no names); refers to the live state tensors.
        """
    def step(self, closure: typing.Any = None) -> typing.Any:
        """
        One update of every parameter that has a gradient; with a closure, calls it (under enable_grad) first and returns its loss.
        """
    def zero_grad(self, set_to_none: bool = True) -> None:
        ...
    @property
    def _name(self) -> str:
        ...
    @property
    def defaults(self) -> typing.Any:
        ...
    @property
    def param_groups(self) -> list:
        """
        The groups as live views: opt.param_groups[0]["lr"] = 0.01 sets the optimizer's lr.
        """
    @property
    def state(self) -> typing.Any:
        """
        Per-parameter state: opt.state[p] (p a parameter; a built-in optimizer also takes its name). An optimizer written in Python keeps a defaultdict(dict) here, as PyTorch's.
        """
    @state.setter
    def state(self, arg1: typing.Any) -> None:
        ...
class SGD(Optimizer):
    """
    SGD with momentum (torch.optim.SGD).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        SGD(params, lr=0.001, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, *, maximize=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class Adam(Optimizer):
    """
    Adam (torch.optim.Adam).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0, amsgrad=False, *, maximize=False, decoupled_weight_decay=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class AdamW(Optimizer):
    """
    AdamW (torch.optim.AdamW).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        AdamW(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.01, amsgrad=False, *, maximize=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class RMSprop(Optimizer):
    """
    RMSprop (torch.optim.RMSprop).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        RMSprop(params, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0.0, momentum=0.0, centered=False, *, maximize=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class Adagrad(Optimizer):
    """
    Adagrad (torch.optim.Adagrad).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        Adagrad(params, lr=0.01, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10, *, maximize=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class Adadelta(Optimizer):
    """
    Adadelta (torch.optim.Adadelta).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        Adadelta(params, lr=1.0, rho=0.9, eps=1e-06, weight_decay=0.0, *, maximize=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class Adamax(Optimizer):
    """
    Adamax (torch.optim.Adamax).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        Adamax(params, lr=0.002, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0, *, maximize=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class NAdam(Optimizer):
    """
    NAdam (torch.optim.NAdam).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        NAdam(params, lr=0.002, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0, momentum_decay=0.004, decoupled_weight_decay=False, *, maximize=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class RAdam(Optimizer):
    """
    RAdam (torch.optim.RAdam).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        RAdam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0, decoupled_weight_decay=False, *, maximize=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class Rprop(Optimizer):
    """
    Rprop (torch.optim.Rprop).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        Rprop(params, lr=0.01, etas=(0.5, 1.2), step_sizes=(1e-06, 50.0), *, maximize=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class ASGD(Optimizer):
    """
    ASGD (torch.optim.ASGD).
    """
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        ASGD(params, lr=0.01, lambd=0.0001, alpha=0.75, t0=1000000.0, weight_decay=0.0, *, maximize=False, master_weights=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
class LBFGS(Optimizer):
    """
    torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None (max_iter * 5 // 4), tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None or 'strong_wolfe', *, maximize=False);
    step(closure) is required. One parameter group, whose line search shows as the flag "strong_wolfe".
    """
    _int_keys: typing.ClassVar[frozenset]
    def __init__(self, params: typing.Any, *args, **kwargs) -> None:
        """
        LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-07, tolerance_change=1e-09, history_size=100, line_search_fn=None, *, maximize=False)
        
        params: tensors, (name, tensor) pairs, a dict name -> tensor, or param-group dicts (ember.optim's docstring). foreach, fused, differentiable and capturable are accepted when off.
        """
    def add_param_group(self, param_group: typing.Any) -> None:
        ...
    def step(self, closure: typing.Any = None) -> ember._C.Tensor:
        """
        One L-BFGS step: up to max_iter iterations, each calling closure() (which zeroes the gradients, computes the loss, calls backward and returns it) as often as the line search needs. Returns the first loss.
        """
class GradScaler:
    """
    torch.amp.GradScaler(device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True): dynamic loss scaling (C++ optim::GradScaler).
    `scaler.scale(loss).backward()`, optionally `scaler.unscale_(opt)` before clipping, `scaler.step(opt)`
    (skipped where a gradient is inf or NaN), `scaler.update()`. Works with any optimizer that has
    param_groups. device "cuda" without a CUDA device warns and disables the scaler, as PyTorch's does;
    disabled, it passes everything through.
    """
    def __getstate__(self) -> tuple[str, bool, dict]:
        ...
    def __init__(self, device: str = 'cuda', init_scale: typing.SupportsFloat | typing.SupportsIndex = 65536.0, growth_factor: typing.SupportsFloat | typing.SupportsIndex = 2.0, backoff_factor: typing.SupportsFloat | typing.SupportsIndex = 0.5, growth_interval: typing.SupportsInt | typing.SupportsIndex = 2000, enabled: bool = True) -> None:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    def _get_growth_tracker(self) -> int:
        ...
    def get_backoff_factor(self) -> float:
        ...
    def get_growth_factor(self) -> float:
        ...
    def get_growth_interval(self) -> int:
        ...
    def get_scale(self) -> float:
        ...
    def is_enabled(self) -> bool:
        ...
    def load_state_dict(self, state_dict: typing.Any) -> None:
        ...
    def scale(self, outputs: typing.Any) -> typing.Any:
        """
        outputs (a tensor, or lists, tuples and iterables of tensors) times the scale.
        """
    def set_backoff_factor(self, new_factor: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    def set_growth_factor(self, new_factor: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    def set_growth_interval(self, new_interval: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def state_dict(self) -> dict:
        """
        {'scale', 'growth_factor', 'backoff_factor', 'growth_interval', '_growth_tracker'}; {} when disabled.
        """
    def step(self, optimizer: typing.Any, *args, **kwargs) -> typing.Any:
        """
        optimizer.step(*args, **kwargs) unless its gradients held an inf or NaN (then None).
        """
    def unscale_(self, optimizer: typing.Any) -> None:
        """
        Divides optimizer's gradients by the scale in place (once per optimizer per update()).
        """
    def update(self, new_scale: typing.Any = None) -> None:
        """
        Backs the scale off after an inf or NaN, else counts towards its growth; or sets new_scale.
        """
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
class ParamGroup:
    """
    A live view of one parameter group: reading and writing hyperparameters ("lr", ...) reads and writes
    the optimizer's. "params" holds the tensors and "param_names" their names. In an optimizer written
    in Python, entries the C++ half cannot hold (None, strings, ...) live in the view's Python dict, and
    any key may be added.
    """
    __hash__: typing.ClassVar[None] = None
    def __contains__(self, arg0: typing.Any) -> bool:
        ...
    def __delitem__(self, key: str) -> None:
        ...
    def __eq__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __getitem__(self, key: str) -> typing.Any:
        ...
    def __iter__(self) -> collections.abc.Iterator:
        ...
    def __len__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def __setitem__(self, key: str, value: typing.Any) -> None:
        ...
    def get(self, key: str, default: typing.Any = None) -> typing.Any:
        ...
    def items(self) -> list:
        ...
    def keys(self) -> list:
        ...
    def pop(self, key: str, *args) -> typing.Any:
        ...
    def setdefault(self, key: str, default: typing.Any = None) -> typing.Any:
        ...
    def update(self, other: typing.Any = None, **kwargs) -> None:
        ...
    def values(self) -> list:
        ...
class _StateView:
    """
    A built-in optimizer's state by parameter (the tensor) or name.
    """
    __hash__: typing.ClassVar[None] = None
    def __contains__(self, key: typing.Any) -> bool:
        ...
    def __getitem__(self, key: typing.Any) -> ...:
        ...
    def __iter__(self) -> collections.abc.Iterator:
        ...
    def __len__(self) -> int:
        ...
    def get(self, key: typing.Any, default: typing.Any = None) -> typing.Any:
        ...
    def items(self) -> list:
        ...
    def keys(self) -> list:
        ...
    def names(self) -> list:
        """
        The names of the parameters that have state.
        """
    def values(self) -> list:
        ...
class AveragedModel(ember._C.nn.Module):
    """
    torch.optim.swa_utils.AveragedModel: a deep copy of `model` whose parameters (and buffers, with
    use_buffers) average those update_parameters(model) has seen: the running mean, or avg_fn's or
    multi_avg_fn's average. n_averaged is a buffer; forward calls the copy.
    """
    def __deepcopy__(self, memo: dict) -> AveragedModel:
        ...
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
