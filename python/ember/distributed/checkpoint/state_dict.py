"""torch.distributed.checkpoint.state_dict's get/set functions: a model's and an optimizer's state in
the form dcp.save writes and dcp.load fills, for a plain model, a DistributedDataParallel one (its
names without "module.") and a FullyShardedDataParallel one.

    model_sd, optim_sd = get_state_dict(model, opt)                  # FSDP: this rank's Shards
    dcp.save({"model": model_sd, "optim": optim_sd}, checkpoint_id=d)
    ...                                                               # any number of ranks later
    model_sd, optim_sd = get_state_dict(model, opt)
    state = {"model": model_sd, "optim": optim_sd}
    dcp.load(state, checkpoint_id=d)
    set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])

Under FSDP a parameter (and each optimizer state tensor of its shard's shape) is a Shard of the
flattened parameter, global_shape [numel], that names the parameter's shape, so the same checkpoint
loads at any world size and into the unwrapped model by name. With full_state_dict the tensors are
gathered whole (every rank takes part; with cpu_offload only rank 0 keeps them, as PyTorch does).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, Iterable, Optional, Tuple

from ... import _C
from ..._C import Tensor
from ...autograd.grad_mode import no_grad
from . import Shard

__all__ = ["StateDictOptions", "get_state_dict", "set_state_dict", "get_model_state_dict",
           "get_optimizer_state_dict", "set_model_state_dict", "set_optimizer_state_dict"]


@dataclasses.dataclass
class StateDictOptions:
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False


class _Param:
    """One FSDP parameter as this rank holds it."""

    def __init__(self, entry: Tuple[Any, ...], world: int) -> None:
        _, _, self.shape, self.numel, self.size, self.shard, self.offset, self.count = entry
        self.world = world

    def shard_of(self, t: Tensor) -> Shard:
        """A Shard over t, a tensor of the shard's shape (this rank's part, padding left out)."""
        return Shard(t.detach().narrow(0, 0, self.count), [self.numel], [self.offset], list(self.shape))

    def padded(self, local: Tensor) -> Tensor:
        """This rank's `count` elements, padded to the shard's size."""
        out = _C.zeros([self.size], dtype=local.dtype, device=local.device)
        with no_grad():
            out.narrow(0, 0, self.count).copy_(local.reshape(-1))
        return out

    def part_of(self, whole: Tensor) -> Tensor:
        """This rank's shard (padded) of a whole tensor of the parameter's elements."""
        if whole.numel() != self.numel:
            raise ValueError(f"expected {self.numel} elements (shape {list(self.shape)}), got shape {list(whole.shape)}")
        return self.padded(whole.reshape(-1).narrow(0, self.offset, self.count))

    def gathered(self, t: Tensor, group: Any) -> Tensor:
        """The whole tensor from every rank's shard-shaped t (a collective)."""
        from .. import all_gather
        parts = [_C.empty([self.size], dtype=t.dtype, device=t.device) for _ in range(self.world)]
        all_gather(parts, t.detach().contiguous(), group=group)
        return _C.cat(parts).narrow(0, 0, self.numel).reshape(list(self.shape)).clone()


class _Params:
    """The FSDP parameters by any of their names."""

    def __init__(self, fsdp: Any) -> None:
        self.fsdp = fsdp
        entries = fsdp.params()
        self.at = {}
        for entry in entries:
            self.at.setdefault(entry[1], []).append(entry)
        self.world = fsdp.world_size()

    def get(self, name: str) -> Optional[_Param]:
        found = self.fsdp.find_param(name)
        if found is None:
            return None
        unit, index = found
        return _Param(self.at[unit][index], self.world)


def _unwrapped(model: Any) -> Tuple[Any, Optional[Any]]:
    """(the model whose names the state uses, its FSDP state or None)."""
    from ..fsdp import FullyShardedDataParallel
    from ...nn.parallel import DistributedDataParallel
    if isinstance(model, FullyShardedDataParallel):
        return model.module, model._fsdp
    if isinstance(model, DistributedDataParallel):
        return model.module, None
    return model, None


def _one(optimizers: Any) -> Any:
    if isinstance(optimizers, Iterable) and not hasattr(optimizers, "state_dict"):
        optimizers = list(optimizers)
        if len(optimizers) != 1:
            raise NotImplementedError("state_dict: one optimizer at a time is supported")
        return optimizers[0]
    return optimizers


def _options(options: Optional[StateDictOptions]) -> StateDictOptions:
    return options or StateDictOptions()


def get_model_state_dict(model: Any, *, submodules: Any = None,
                         options: Optional[StateDictOptions] = None) -> Dict[str, Any]:
    """The model's state by the unwrapped names: FSDP parameters as Shards (or whole, gathered, with
    full_state_dict), buffers and plain models' tensors as they are."""
    o = _options(options)
    inner, fsdp = _unwrapped(model)
    if fsdp is None:
        return dict(inner.state_dict())
    if o.full_state_dict:
        return fsdp.full_state_dict(rank0_only=o.cpu_offload)
    params = _Params(fsdp)
    out: Dict[str, Any] = {}
    for name, t in inner.state_dict().items():
        param = params.get(name)
        out[name] = param.shard_of(t) if param is not None else t
    return out


def get_optimizer_state_dict(model: Any, optimizers: Any, *, submodules: Any = None,
                             options: Optional[StateDictOptions] = None) -> Dict[str, Any]:
    """The optimizer's state_dict(), its FSDP parameters' state as Shards (or gathered whole)."""
    o = _options(options)
    optimizer = _one(optimizers)
    sd = optimizer.state_dict()
    _, fsdp = _unwrapped(model)
    if fsdp is None:
        return sd
    from .. import get_rank, _group
    keep = not (o.full_state_dict and o.cpu_offload) or get_rank() == 0
    params = _Params(fsdp)
    state: Dict[str, Any] = {}
    for name in sorted(sd["state"]):  # the same order on every rank: the gathers are collectives
        entries = sd["state"][name]
        param = params.get(name)
        out = {}
        for key in sorted(entries):
            t = entries[key]
            if param is not None and isinstance(t, Tensor) and t.dim() == 1 and t.shape[0] == param.size:
                out[key] = param.gathered(t, _group(None)) if o.full_state_dict else param.shard_of(t)
            else:
                out[key] = t
        state[name] = out
    if not keep:
        return {}
    return {**sd, "state": state}


def get_state_dict(model: Any, optimizers: Any, *, submodules: Any = None,
                   options: Optional[StateDictOptions] = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    return (get_model_state_dict(model, options=options),
            get_optimizer_state_dict(model, optimizers, options=options))


def set_model_state_dict(model: Any, model_state_dict: Dict[str, Any], *,
                         options: Optional[StateDictOptions] = None) -> Any:
    """Loads a state dict of the unwrapped names: Shards (dcp.load filled them; copied in unless
    they are the model's own) and whole tensors (an FSDP model takes its share of each)."""
    o = _options(options)
    inner, fsdp = _unwrapped(model)
    if fsdp is None:
        return inner.load_state_dict(model_state_dict, strict=o.strict)
    params = _Params(fsdp)
    whole: Dict[str, Tensor] = {}
    for name, value in model_state_dict.items():
        param = params.get(name)
        if isinstance(value, Shard) and param is not None:
            with no_grad():
                param.shard.narrow(0, 0, param.count).copy_(value.local.reshape(-1))
        else:
            whole[name] = value
    missing, unexpected = fsdp.load_full_state_dict(whole, False)
    missing = [k for k in missing if k not in model_state_dict]
    from ...nn.modules.module import _IncompatibleKeys
    if o.strict and (missing or unexpected):
        raise RuntimeError("Error(s) in loading state_dict: " +
                           "; ".join([f"missing key '{k}'" for k in missing] +
                                     [f"unexpected key '{k}'" for k in unexpected]))
    return _IncompatibleKeys(missing, unexpected)


def set_optimizer_state_dict(model: Any, optimizers: Any, optim_state_dict: Dict[str, Any], *,
                             options: Optional[StateDictOptions] = None) -> None:
    """Loads an optimizer state dict: Shards and whole tensors of an FSDP parameter's elements
    become this rank's shard of them."""
    optimizer = _one(optimizers)
    _, fsdp = _unwrapped(model)
    if fsdp is None:
        optimizer.load_state_dict(optim_state_dict)
        return
    params = _Params(fsdp)
    state: Dict[str, Any] = {}
    for name, entries in optim_state_dict.get("state", {}).items():
        param = params.get(name)
        out = {}
        for key, value in entries.items():
            if isinstance(value, Shard):
                value = param.padded(value.local) if param is not None else value.local
            elif (param is not None and isinstance(value, Tensor) and value.dim() > 0
                  and value.numel() == param.numel and key != "step"):
                value = param.part_of(value)
            out[key] = value
        state[name] = out
    optimizer.load_state_dict({**optim_state_dict, "state": state})


def set_state_dict(model: Any, optimizers: Any, *, model_state_dict: Dict[str, Any],
                   optim_state_dict: Dict[str, Any], options: Optional[StateDictOptions] = None) -> Any:
    result = set_model_state_dict(model, model_state_dict, options=options)
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return result
