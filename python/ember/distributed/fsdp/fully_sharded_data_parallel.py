"""FullyShardedDataParallel: every rank keeps 1/W of each parameter, of its gradient and of the
optimizer state; a unit's parameters are gathered before its forward and its backward and released
after each (the C++ FSDP, distributed/fsdp.h, does the sharding, gathers and reductions; this class
registers the units' forward hooks, as modules written in Python take any arguments).

    dist.init_process_group("gloo")
    model = FullyShardedDataParallel(GPT(), auto_wrap_policy=ModuleWrapPolicy({Block}))
    opt = ember.optim.AdamW(model.parameters(), lr=1e-3)    # the shards, by the model's own names
    loss_fn(model(x), y).backward()                         # each rank's share of the averaged gradient
    opt.step()

At rest the parameters are the shards: 1-D, ceil(numel / W) elements each, under the unwrapped
model's names (no wrapper prefix); build the optimizer after wrapping, on them (one built before
holds the replaced whole tensors, which no longer reach the model). state_dict() gathers the whole model on every rank;
ember.distributed.checkpoint.state_dict's get_state_dict gives the sharded form that dcp.save
writes per rank and dcp.load reads back on any number of ranks.
"""
from __future__ import annotations

import contextlib
import enum
import functools
import weakref
from dataclasses import dataclass
from typing import Any, Iterator, List, Optional, Tuple

from ... import _C
from ..._C import Tensor
from ...nn.modules.module import Module, _IncompatibleKeys

__all__ = ["FullyShardedDataParallel", "MixedPrecision", "ShardingStrategy", "BackwardPrefetch", "CPUOffload"]


class ShardingStrategy(enum.Enum):
    FULL_SHARD = enum.auto()      # parameters released after each unit's forward
    SHARD_GRAD_OP = enum.auto()   # kept from forward to backward
    NO_SHARD = enum.auto()
    HYBRID_SHARD = enum.auto()
    _HYBRID_SHARD_ZERO2 = enum.auto()


class BackwardPrefetch(enum.Enum):
    BACKWARD_PRE = enum.auto()
    BACKWARD_POST = enum.auto()


@dataclass
class MixedPrecision:
    """param_dtype: the dtype units gather their parameters in and compute in (the shards and the
    optimizer keep float32); reduce_dtype: the dtype gradients are averaged in (default
    param_dtype). Floating inputs of the root are cast to param_dtype, as PyTorch casts them."""
    param_dtype: Optional[Any] = None
    reduce_dtype: Optional[Any] = None
    buffer_dtype: Optional[Any] = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True


@dataclass
class CPUOffload:
    offload_params: bool = False


class _Handle:
    """What the units' hooks reach through a weak reference (a strong one from a module's own hook
    would keep the model alive from inside itself)."""
    __slots__ = ("fsdp", "cast_to", "__weakref__")

    def __init__(self, fsdp: Any, cast_to: Any) -> None:
        self.fsdp, self.cast_to = fsdp, cast_to


def _tensors(tree: Any, out: List[Tensor]) -> List[Tensor]:
    if isinstance(tree, Tensor):
        out.append(tree)
    elif isinstance(tree, (list, tuple)):
        for v in tree:
            _tensors(v, out)
    elif isinstance(tree, dict):
        for v in tree.values():
            _tensors(v, out)
    return out


def _cast(tree: Any, dtype: Any) -> Any:
    if isinstance(tree, Tensor):
        return tree.to(dtype) if tree.is_floating_point() else tree
    if isinstance(tree, (list, tuple)):
        return type(tree)(_cast(v, dtype) for v in tree)
    if isinstance(tree, dict):
        return {k: _cast(v, dtype) for k, v in tree.items()}
    return tree


def _ask(policy: Any, root: Module, name: str, numel: int) -> bool:
    """PyTorch's policy(module, recurse, nonwrapped_numel) asked of the module at `name`."""
    return bool(policy(root.get_submodule(name), False, numel))


def _pre_forward(ref: Any, unit: int, module: Any, args: Tuple[Any, ...]) -> Any:
    handle = ref()
    if handle is None:
        return None
    handle.fsdp.pre_forward(unit)
    if unit == 0 and handle.cast_to is not None:
        return _cast(args, handle.cast_to)
    return None


def _post_forward(ref: Any, unit: int, module: Any, args: Tuple[Any, ...], output: Any) -> None:
    handle = ref()
    if handle is not None:
        handle.fsdp.post_forward(unit, _tensors(output, []))


class FullyShardedDataParallel(Module):
    """torch.distributed.fsdp.FullyShardedDataParallel on Gloo, with use_orig_params' names.
    Supported: sharding_strategy FULL_SHARD and SHARD_GRAD_OP, auto_wrap_policy (wrap.py's policies
    or any callable policy(module, recurse, nonwrapped_numel)), mixed_precision (param_dtype,
    reduce_dtype), sync_module_states (on by default here: rank 0's values are broadcast first),
    backward_prefetch / forward_prefetch (either turns prefetching of the next unit's gather on).
    no_sync() and summon_full_params(model, writeback=...) are PyTorch's. NO_SHARD, HYBRID_SHARD,
    CPU offload of parameters, ignored_modules and param_init_fn are refused with
    NotImplementedError; device_id, limit_all_gathers and use_orig_params are accepted."""

    def __init__(self, module: Module, process_group: Any = None, sharding_strategy: Optional[ShardingStrategy] = None,
                 cpu_offload: Optional[CPUOffload] = None, auto_wrap_policy: Any = None,
                 backward_prefetch: Optional[BackwardPrefetch] = BackwardPrefetch.BACKWARD_PRE,
                 mixed_precision: Optional[MixedPrecision] = None, ignored_modules: Any = None,
                 param_init_fn: Any = None, device_id: Any = None, sync_module_states: bool = True,
                 forward_prefetch: bool = False, limit_all_gathers: bool = True, use_orig_params: bool = True,
                 ignored_states: Any = None, device_mesh: Any = None) -> None:
        super().__init__()
        from .. import _group
        strategy = sharding_strategy or ShardingStrategy.FULL_SHARD
        if strategy not in (ShardingStrategy.FULL_SHARD, ShardingStrategy.SHARD_GRAD_OP):
            raise NotImplementedError(f"FullyShardedDataParallel: sharding_strategy {strategy.name} is not supported "
                                      "(FULL_SHARD and SHARD_GRAD_OP are)")
        for name, value in (("ignored_modules", ignored_modules), ("ignored_states", ignored_states),
                            ("param_init_fn", param_init_fn), ("device_mesh", device_mesh)):
            if value is not None:
                raise NotImplementedError(f"FullyShardedDataParallel: {name} is not supported")
        if cpu_offload is not None and cpu_offload.offload_params:
            raise NotImplementedError("FullyShardedDataParallel: CPUOffload(offload_params=True) is not supported")
        mp = mixed_precision or MixedPrecision()
        if mp.buffer_dtype is not None:
            raise NotImplementedError("FullyShardedDataParallel: MixedPrecision.buffer_dtype is not supported")

        policy = None if auto_wrap_policy is None else functools.partial(_ask, auto_wrap_policy, module)
        self._fsdp_wrapped_module = module
        fsdp = _C.distributed.FSDP(module, policy, reshard_after_forward=strategy is ShardingStrategy.FULL_SHARD,
                                   param_dtype=mp.param_dtype, reduce_dtype=mp.reduce_dtype,
                                   sync_module_states=sync_module_states,
                                   prefetch=backward_prefetch is not None or forward_prefetch,
                                   group=_group(process_group))
        cast = mp.param_dtype if mp.param_dtype is not None and mp.cast_root_forward_inputs else None
        self._handle = _Handle(fsdp, cast)
        ref = weakref.ref(self._handle)
        for unit in range(fsdp.num_units()):
            name = fsdp.unit_name(unit)
            target = module.get_submodule(name) if name else module
            target.register_forward_pre_hook(functools.partial(_pre_forward, ref, unit))
            target.register_forward_hook(functools.partial(_post_forward, ref, unit), always_call=True)

    @property
    def module(self) -> Module:
        """The wrapped model."""
        return self._fsdp_wrapped_module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._fsdp_wrapped_module(*args, **kwargs)

    # The unwrapped model's names, as use_orig_params gives them in PyTorch.
    def named_parameters(self, *args: Any, **kwargs: Any) -> Iterator[Tuple[str, Tensor]]:
        return self._fsdp_wrapped_module.named_parameters(*args, **kwargs)

    def parameters(self, recurse: bool = True) -> Iterator[Tensor]:
        return self._fsdp_wrapped_module.parameters(recurse)

    def named_buffers(self, *args: Any, **kwargs: Any) -> Iterator[Tuple[str, Tensor]]:
        return self._fsdp_wrapped_module.named_buffers(*args, **kwargs)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        return self._fsdp_wrapped_module.buffers(recurse)

    def state_dict(self, *args: Any, **kwargs: Any) -> dict:  # type: ignore[override]
        """The whole model's state, gathered on every rank (PyTorch's FULL_STATE_DICT); every rank
        calls it. Sharded: ember.distributed.checkpoint.state_dict.get_model_state_dict."""
        return self._handle.fsdp.full_state_dict(rank0_only=False)

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:  # type: ignore[override]
        """Loads a whole (unwrapped) model's state dict into the shards and buffers; a missing or
        unexpected key (under strict) or a shape that differs is a RuntimeError naming it, as a
        plain module's load_state_dict raises, and nothing is loaded."""
        try:
            missing, unexpected = self._handle.fsdp.load_full_state_dict(dict(state_dict), strict)
        except (KeyError, ValueError) as e:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n"
                               f"{e.args[0] if e.args else e}") from None
        return _IncompatibleKeys(missing, unexpected)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Within it, backward keeps each unit's whole gradients, summed over the passes, and
        reduces nothing (the whole model's gradients on every rank meanwhile); the next backward
        outside reduces the sums."""
        old, self._fsdp.sync = self._fsdp.sync, False
        try:
            yield
        finally:
            self._fsdp.sync = old

    @staticmethod
    @contextlib.contextmanager
    def summon_full_params(module: Module, recurse: bool = True, writeback: bool = True, rank0_only: bool = False,
                           offload_to_cpu: bool = False, with_grads: bool = False) -> Iterator[None]:
        """Within it, every FSDP model in `module` holds its whole parameters (to read, or to
        change: with writeback the changes reach the shards on exit). Every rank enters it."""
        if rank0_only or with_grads:
            raise NotImplementedError("summon_full_params: rank0_only and with_grads are not supported")
        found = [m for m in ([module] if isinstance(module, FullyShardedDataParallel) else [])
                 + [m for m in module.modules() if isinstance(m, FullyShardedDataParallel) and m is not module]]
        for m in found:
            m._fsdp.summon_full_params()
        try:
            yield
        finally:
            for m in found:
                m._fsdp.end_full_params(writeback)

    def clip_grad_norm_(self, max_norm: float, norm_type: float = 2.0) -> Tensor:
        """Scales the shards' gradients so that the whole gradient's norm, over every rank, is at
        most max_norm; returns that norm. Every rank calls it."""
        from ... import tensor
        return tensor(self._handle.fsdp.clip_grad_norm_(float(max_norm), float(norm_type)))

    @property
    def _fsdp(self) -> Any:
        return self._handle.fsdp
