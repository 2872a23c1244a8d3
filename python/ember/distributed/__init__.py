"""ember.distributed: torch.distributed's API on Ember's process groups (Gloo on CPU).

    import ember.distributed as dist
    dist.init_process_group("gloo")        # RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT from env
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    dist.destroy_process_group()

Run N ranks with `python -m ember.distributed.run --nproc N script.py args` (or `ember-run`).
Collectives write in place; with async_op=True they return a Work to wait() on.

Timeouts: init_process_group waits 5 minutes (default_rendezvous_timeout) for every rank to join,
then raises DistStoreError naming the missing ranks; ranks that disagree on WORLD_SIZE, or two
processes with one RANK, raise ValueError at once. A collective waits 30 minutes
(default_pg_timeout, torch's for gloo) for a peer: a peer that dies makes it raise
DistBackendError at once, a stopped or hung one after the timeout, naming the rank where this one
can tell. init_process_group(timeout=timedelta(...)) sets both, as torch's does.
"""
from __future__ import annotations

import datetime
import os
import pickle
from typing import Any, List, Optional

from .. import _C

_D = _C.distributed
ReduceOp = _D.ReduceOp
Work = _D.Work
Store, TCPStore, FileStore, PrefixStore = _D.Store, _D.TCPStore, _D.FileStore, _D.PrefixStore
ProcessGroup = _D.ProcessGroup
DistError, DistBackendError, DistStoreError = _D.DistError, _D.DistBackendError, _D.DistStoreError
default_pg_timeout = datetime.timedelta(minutes=30)
default_rendezvous_timeout = datetime.timedelta(minutes=5)
Backend = type("Backend", (), {"GLOO": "gloo", "NCCL": "nccl"})


def is_available() -> bool:
    return True


def is_torchelastic_launched() -> bool:
    """True under torchrun's elastic agent (TORCHELASTIC_RUN_ID set); ember-run does not set it."""
    return "TORCHELASTIC_RUN_ID" in os.environ


class GroupMember:
    """torch.distributed.GroupMember: WORLD (None stands for the default group) and the rank of a
    process outside a group."""
    WORLD = None
    NON_GROUP_MEMBER = -100


def _seconds(timeout: Any) -> Optional[float]:
    if timeout is None:
        return None
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def init_process_group(backend: Optional[str] = None, init_method: Optional[str] = None,
                       timeout: Any = None, world_size: int = -1, rank: int = -1,
                       store: Optional[Store] = None, group_name: str = "") -> None:
    """Starts the default group: backend "gloo" (default) or "nccl"; init_method "env://"
    (default), "file:///path" or "tcp://host:port"; or an explicit store (with rank and world_size).
    timeout (a timedelta or seconds) bounds the rendezvous and every collective; None: 5 minutes
    for the rendezvous, 30 for a collective."""
    backend = (backend or "gloo").lower()
    seconds = _seconds(timeout)
    if store is not None:
        if rank < 0 or world_size < 1:
            raise ValueError("init_process_group: a store needs rank and world_size")
        global _store_group, _store
        _D.rendezvous(store, rank, world_size,
                      seconds if seconds is not None else default_rendezvous_timeout.total_seconds())
        _store_group = _D.new_gloo_group(PrefixStore("default_pg", store), rank, world_size,
                                         seconds if seconds is not None else default_pg_timeout.total_seconds())
        _store = store
        return
    _D.init_process_group(backend, init_method or "env://", rank, world_size, seconds)


_store_group: Optional[ProcessGroup] = None
_store: Optional[Store] = None
_groups_made = 0


def is_initialized() -> bool:
    return _store_group is not None or _D.is_initialized()


def _group(group: Optional[ProcessGroup]) -> ProcessGroup:
    if group is not None:
        return group
    if _store_group is not None:
        return _store_group
    return _D.default_group()


def group_world() -> ProcessGroup:
    """The default group (torch.distributed.group.WORLD)."""
    return _group(None)


def new_group(ranks: Optional[List[int]] = None, timeout: Any = None, backend: Optional[str] = None,
              pg_options: Any = None, use_local_synchronization: bool = False,
              group_desc: Optional[str] = None) -> ProcessGroup:
    """A new group of every rank of the default one (torch.distributed.new_group): its collectives
    never meet the default group's, so another thread may run them. Every rank calls it, in the
    same order. Groups of a subset of the ranks are not supported."""
    world = get_world_size()
    if ranks is not None and sorted(ranks) != list(range(world)):
        raise NotImplementedError(f"new_group: ranks {sorted(ranks)}: only groups of all {world} ranks "
                                  "are supported")
    if _store_group is None:
        return _D.new_group((backend or "").lower())
    global _groups_made
    _groups_made += 1
    timeout = _seconds(timeout) if timeout is not None else _store_group.timeout
    return _D.new_gloo_group(PrefixStore(f"group_{_groups_made}", _store), get_rank(), world, timeout)


def destroy_process_group(group: Optional[ProcessGroup] = None) -> None:
    global _store_group
    if _store_group is not None:
        global _store
        _store_group.barrier().wait()
        _store_group = None
        _store = None
        return
    _D.destroy_process_group()


def get_rank(group: Optional[ProcessGroup] = None) -> int:
    """This process's rank in group (the default one); a ValueError before init_process_group, as
    torch's."""
    return _group(group).rank()


def get_world_size(group: Optional[ProcessGroup] = None) -> int:
    """The number of ranks in group (the default one); a ValueError before init_process_group."""
    return _group(group).size()


def get_backend(group: Optional[ProcessGroup] = None) -> str:
    return _group(group).backend()


def _finish(work: Work, async_op: bool) -> Optional[Work]:
    if async_op:
        return work
    work.wait()
    return None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Combines `tensor` over every rank, in place."""
    return _finish(_group(group).allreduce(tensor, op), async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """Copies rank `src`'s tensor into every rank's."""
    return _finish(_group(group).broadcast(tensor, src), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[r] = rank r's tensor."""
    return _finish(_group(group).allgather(list(tensor_list), tensor), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """output_tensor (size * input's first dim) = every rank's input, by rank."""
    g = _group(group)
    return _finish(g.allgather(list(output_tensor.chunk(g.size(), 0)), input_tensor), async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """output = input_list[rank] combined over every rank."""
    return _finish(_group(group).reduce_scatter(output, list(input_list), op), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    g = _group(group)
    return _finish(g.reduce_scatter(output, list(input.chunk(g.size(), 0)), op), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    return _finish(_group(group).barrier(), async_op)


def send(tensor, dst, group=None, tag=0) -> None:
    _group(group).send(tensor, dst, tag).wait()


def recv(tensor, src=None, group=None, tag=0) -> int:
    """Receives from rank `src` (required: Ember has no receive-from-any); returns src."""
    if src is None:
        raise ValueError("recv: src is required (receiving from any rank is not supported)")
    _group(group).recv(tensor, src, tag).wait()
    return src


def isend(tensor, dst, group=None, tag=0) -> Work:
    return _group(group).send(tensor, dst, tag)


def irecv(tensor, src=None, group=None, tag=0) -> Work:
    if src is None:
        raise ValueError("irecv: src is required (receiving from any rank is not supported)")
    return _group(group).recv(tensor, src, tag)


def all_gather_object(object_list: List[Any], obj: Any, group=None) -> None:
    """object_list[r] = rank r's obj (pickled: only between the ranks of one trusted job)."""
    import numpy as np
    import ember
    g = _group(group)
    data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8)
    sizes = [ember.zeros(1, dtype=ember.int64) for _ in range(g.size())]
    g.allgather(sizes, ember.full((1,), len(data), dtype=ember.int64)).wait()
    lengths = [int(s.item()) for s in sizes]
    padded = np.zeros(max(lengths), dtype=np.uint8)
    padded[: len(data)] = data
    out = [ember.zeros(max(lengths), dtype=ember.uint8) for _ in range(g.size())]
    g.allgather(out, ember.from_numpy(padded)).wait()
    for r in range(g.size()):
        object_list[r] = pickle.loads(out[r].numpy()[: lengths[r]].tobytes())


def broadcast_object_list(object_list: List[Any], src: int = 0, group=None) -> None:
    """Every rank's object_list becomes rank src's (pickled)."""
    g = _group(group)
    gathered: List[Any] = [None] * g.size()
    all_gather_object(gathered, list(object_list) if g.rank() == src else None, group=g)
    object_list[:] = gathered[src]


__all__ = [name for name in dir() if not name.startswith("_")]
