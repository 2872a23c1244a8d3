"""ember.distributed.optim: ZeroRedundancyOptimizer (torch.distributed.optim's), over the C++ one
(distributed/zero_redundancy_optimizer.h): the parameters are partitioned over the ranks (greedily
by size), each rank keeps and steps the optimizer state of its share only, then every share is
broadcast from its owner. Used with DDP, which leaves the same averaged gradients on every rank.

    zero = ZeroRedundancyOptimizer(ddp.parameters(), optimizer_class=ember.optim.Adam, lr=1e-3)
    loss.backward(); zero.step()
    dcp.save({"model": model.state_dict(), "optim": zero.sharded_state_dict()}, checkpoint_id=d)
    zero.load_sharded_state_dict(d, key="optim")    # on any number of ranks

Its state is saved sharded (each parameter's state whole, in the file of the rank that owned it)
and loads on another number of ranks from wherever the checkpoint's index says it is. An LR
scheduler is built on `zero.optim`, this rank's optimizer.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterable, Optional

from .. import _C
from ..autograd.grad_mode import enable_grad
from .checkpoint import Shard

__all__ = ["ZeroRedundancyOptimizer"]


def _named(params: Iterable[Any]) -> list:
    """(name, parameter) pairs, named as Ember's optimizers name them (a throwaway SGD resolves the
    names of plain tensors from the module traversal that yielded them)."""
    params = list(params)
    if params and all(isinstance(p, tuple) and len(p) == 2 for p in params):
        return [(str(n), t) for n, t in params]
    if not params or isinstance(params[0], dict):
        raise ValueError("ZeroRedundancyOptimizer: params must be a non-empty iterable of parameters or of (name, "
                         "parameter) pairs (parameter groups are not supported)")
    names = _C.optim.SGD(params, lr=0.0).state_dict()["param_groups"][0]["params"]
    return list(zip(names, params))


class ZeroRedundancyOptimizer:
    def __init__(self, params: Iterable[Any], optimizer_class: Callable, process_group: Any = None,
                 parameters_as_bucket_view: bool = False, overlap_with_ddp: bool = False, **defaults: Any) -> None:
        if overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer: overlap_with_ddp is not supported")
        from . import _group
        self._zero = _C.distributed.ZeroRedundancyOptimizer(
            _named(params), lambda pairs: optimizer_class(pairs, **defaults), _group(process_group))

    @property
    def optim(self) -> Any:
        """This rank's optimizer, over its share of the parameters."""
        return self._zero.local

    @property
    def param_groups(self) -> list:
        return self.optim.param_groups

    def owner(self, name: str) -> int:
        """The rank that keeps the state of parameter `name` and updates it."""
        return self._zero.owner(name)

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._zero.step()
        return loss

    def zero_grad(self, set_to_none: bool = True) -> None:
        self._zero.zero_grad(set_to_none)

    def sharded_state_dict(self) -> Dict[str, Any]:
        """This rank's optimizer state as {"state": {param: {key: Shard}}}, for
        ember.distributed.checkpoint.save (each rank passes its own)."""
        out: Dict[str, Any] = {"state": {}}
        for name, local, global_shape, offsets in self._zero.state_shards(""):
            _, param, key = name.split("/", 2)
            out["state"].setdefault(param, {})[key] = Shard(local, global_shape, offsets)
        return out

    def load_sharded_state_dict(self, checkpoint_id: Any, key: str = "optim") -> None:
        """Loads the state of this rank's parameters from a checkpoint that dcp.save wrote with
        sharded_state_dict() under `key`, on any number of ranks; a parameter without state there
        starts fresh."""
        reader = _C.distributed.CheckpointReader(os.fspath(checkpoint_id))
        self._zero.load_state_shards(reader, f"{key}/" if key else "")
