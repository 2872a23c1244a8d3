"""DistributedDataParallel: every rank trains the whole model on its share of each global batch;
backward averages the gradients over the ranks in buckets of about bucket_cap_mb, started while
backward still runs (the C++ Reducer, distributed/reducer.h), so the same optimizer step keeps the
replicas bitwise equal.

    dist.init_process_group("gloo")
    model = DistributedDataParallel(Net())
    loss_fn(model(x), y).backward()        # gradients averaged over ranks
    with model.no_sync():                  # accumulate without averaging
        loss_fn(model(x2), y2).backward()
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

from ... import _C
from ..modules.module import Module


class DistributedDataParallel(Module):
    """torch.nn.parallel.DistributedDataParallel on CPU (Gloo). Rank 0's parameters and buffers
    are broadcast at construction; with broadcast_buffers, buffers again before each forward.
    A parameter that gets no gradient in a backward pass is an error naming it unless
    find_unused_parameters=True. device_ids, output_device, dim, check_reduction,
    gradient_as_bucket_view and static_graph are accepted for compatibility and change nothing."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                 broadcast_buffers: bool = True, process_group: Any = None, bucket_cap_mb: Optional[float] = None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False) -> None:
        super().__init__()
        from ... import distributed as dist
        self.module = module
        self.process_group = dist._group(process_group)
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        named = list(module.named_parameters())
        state = [p for _, p in named] + list(module.buffers())
        _C.distributed.broadcast_coalesced(self.process_group, state, 0)
        self.reducer = _C.distributed.Reducer(named, self.process_group,
                                              25.0 if bucket_cap_mb is None else float(bucket_cap_mb),
                                              find_unused_parameters)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if self.broadcast_buffers:
            buffers = list(self.module.buffers())
            if buffers:
                _C.distributed.broadcast_coalesced(self.process_group, buffers, 0)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Within it, backward accumulates gradients locally; the next backward outside averages
        the accumulated sums."""
        old, self.reducer.sync = self.reducer.sync, False
        try:
            yield
        finally:
            self.reducer.sync = old
