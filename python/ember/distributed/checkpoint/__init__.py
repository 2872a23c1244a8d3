"""ember.distributed.checkpoint: PyTorch DCP's save, load and async_save over state dicts, on Ember's
distributed checkpoints (distributed/checkpoint.h): each rank writes its part into checkpoint_id,
and the directory appears only once every rank has succeeded; a failed save (on any rank) raises on
every rank and leaves the checkpoint that was there whole.

    import ember.distributed.checkpoint as dcp
    state = {"model": model.state_dict(), "optim": opt.state_dict(), "step": step}
    dcp.save(state, checkpoint_id="ckpt/step-100")     # every rank calls it
    dcp.load(state, checkpoint_id="ckpt/step-100")     # in place; then model.load_state_dict(state["model"])
    future = dcp.async_save(state, checkpoint_id=...)  # returns once the state is copied; future.result()

Tensors are taken as replicated (DDP keeps them alike on every rank): rank 0 writes them once. A
tensor split over the ranks is given as Shard(local, global_shape, offsets), and a Shard in the
state dict given to load receives its region of the saved tensor, however many ranks saved it (a
checkpoint of 4 ranks loads on 2 or 1). A Shard of a flattened tensor (FSDP's parameters and their
optimizer state: global_shape [numel]) names its tensor's shape as `unflattened`, so that a whole
tensor of that shape loads from it (an unwrapped model from an FSDP checkpoint). load copies into the tensors (and Shards) the state dict
holds, replaces its other values, and adds the entries it lacks (an optimizer's state before its
first step). Without a process group, the world is this process alone.
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import tempfile
import threading
from typing import Any, Dict, List, Optional, Sequence

from ... import _C
from ..._C import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["Shard", "save", "load", "async_save"]

_D = _C.distributed


@dataclasses.dataclass
class Shard:
    """This rank's block of a tensor split over ranks: `local` covers [offsets, offsets + local.shape)
    of a tensor of `global_shape`; `unflattened`, when the tensor is a flattened one, its shape."""
    local: Tensor
    global_shape: Sequence[int]
    offsets: Sequence[int]
    unflattened: Optional[Sequence[int]] = None

    def __post_init__(self) -> None:
        shape, glob, offs = list(self.local.shape), list(self.global_shape), list(self.offsets)
        if len(glob) != len(shape) or len(offs) != len(shape):
            raise ValueError(f"Shard: local shape {shape}, global_shape {glob} and offsets {offs} must have one "
                             "entry per dim")
        for d, (n, g, o) in enumerate(zip(shape, glob, offs)):
            if o < 0 or o + n > g:
                raise ValueError(f"Shard: dim {d}: [{o}, {o + n}) is outside the global size {g}")


_solo_group = None


def _group(process_group: Any, no_dist: bool = False) -> Any:
    """The given group, the default one, or (none started, or no_dist) a group of this process alone."""
    from .. import _group as default_group, is_initialized
    if process_group is not None:
        return process_group
    if is_initialized() and not no_dist:
        return default_group(None)
    global _solo_group
    if _solo_group is None:
        store = _D.FileStore(tempfile.mkdtemp(prefix="ember-dcp-"))
        _solo_group = _D.new_gloo_group(store, 0, 1)
    return _solo_group


def _split(tree: Any, path: str, shards: List[Any]) -> Any:
    """tree with each Shard moved to `shards` (named by its path) and a marker left in its place."""
    if isinstance(tree, Shard):
        if tree.local.numel():  # a rank may hold none of a small tensor
            shards.append((path, tree.local.contiguous(), list(tree.global_shape), list(tree.offsets)))
        if tree.unflattened is None:
            return {"__shard__": path}
        return {"__shard__": path, "__shape__": [int(d) for d in tree.unflattened]}
    if isinstance(tree, dict):
        return {k: _split(v, f"{path}/{k}" if path else str(k), shards) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        items = [_split(v, f"{path}/{i}" if path else str(i), shards) for i, v in enumerate(tree)]
        return type(tree)(items) if isinstance(tree, list) else tuple(items)
    return tree


def _checkpoint_dir(checkpoint_id: Any, what: str) -> str:
    if checkpoint_id is None:
        raise ValueError(f"{what}: checkpoint_id (the checkpoint's directory) is required")
    return os.fspath(checkpoint_id)


def save(state_dict: Dict[str, Any], *, checkpoint_id: Any = None, storage_writer: Any = None, planner: Any = None,
         process_group: Any = None, no_dist: bool = False) -> None:
    """Writes state_dict of every rank into the directory checkpoint_id (replacing one there) and
    commits it atomically across the ranks; every rank returns once it is committed."""
    directory = _checkpoint_dir(checkpoint_id, "save")
    if storage_writer is not None or planner is not None:
        raise NotImplementedError("save: storage_writer and planner are not supported; give checkpoint_id")
    shards: List[Any] = []
    replicated = _split(state_dict, "", shards)
    _D.save_checkpoint(_group(process_group, no_dist), replicated, None, shards, directory)


def _fill(target: Any, saved: Any, reader: Any, path: str) -> Any:
    """target with the saved values copied into its tensors and Shards; its new value."""
    if _is_marker(saved):
        name = saved["__shard__"]
        if isinstance(target, Shard):
            if target.local.numel():
                block = reader.read(name, list(target.offsets), list(target.local.shape))
                with no_grad():
                    target.local.copy_(block)
            return target
        whole = _whole(saved, reader)
        if isinstance(target, Tensor):
            _copy_into(target, whole, path)
            return target
        return whole
    if isinstance(target, Shard):
        raise ValueError(f"load: '{path}' is a Shard in the state dict but a whole value in the checkpoint")
    if isinstance(target, Tensor) and isinstance(saved, Tensor):
        _copy_into(target, saved, path)
        return target
    if isinstance(target, dict) and isinstance(saved, dict):
        for k, v in saved.items():
            child = f"{path}/{k}" if path else str(k)
            target[k] = _fill(target[k], v, reader, child) if k in target else _materialized(v, reader)
        return target
    if isinstance(target, (list, tuple)) and isinstance(saved, (list, tuple)) and len(target) == len(saved):
        items = [_fill(t, s, reader, f"{path}/{i}" if path else str(i)) for i, (t, s) in enumerate(zip(target, saved))]
        if isinstance(target, list):
            target[:] = items
            return target
        return tuple(items)
    return _materialized(saved, reader)


def _is_marker(saved: Any) -> bool:
    return isinstance(saved, dict) and set(saved) in ({"__shard__"}, {"__shard__", "__shape__"})


def _whole(marker: Dict[str, Any], reader: Any) -> Tensor:
    """The whole saved tensor, in its unflattened shape when it was saved flattened."""
    whole = reader.read_all(marker["__shard__"])
    return whole.reshape(marker["__shape__"]) if "__shape__" in marker else whole


def _materialized(saved: Any, reader: Any) -> Any:
    """A saved value as the state dict gets it: tensors copied (the reader's map the file, which a
    later save replaces)."""
    if isinstance(saved, Tensor):
        return saved.clone()
    if _is_marker(saved):
        return _whole(saved, reader).clone()
    if isinstance(saved, dict):
        return {k: _materialized(v, reader) for k, v in saved.items()}
    if isinstance(saved, list):
        return [_materialized(v, reader) for v in saved]
    if isinstance(saved, tuple):
        return tuple(_materialized(v, reader) for v in saved)
    return saved


def _copy_into(target: Tensor, value: Tensor, path: str) -> None:
    if tuple(target.shape) != tuple(value.shape):
        raise ValueError(f"load: '{path}' has shape {list(value.shape)} in the checkpoint but {list(target.shape)} in "
                         "the state dict")
    with no_grad():
        target.copy_(value)


def load(state_dict: Dict[str, Any], *, checkpoint_id: Any = None, storage_reader: Any = None, planner: Any = None,
         process_group: Any = None, no_dist: bool = False) -> None:
    """Reads the checkpoint in checkpoint_id into state_dict, in place (see the module docstring).
    Every checksum is verified; a damaged or uncommitted checkpoint is an error naming it. A key
    the state dict holds that the checkpoint lacks is a KeyError naming it."""
    directory = _checkpoint_dir(checkpoint_id, "load")
    if storage_reader is not None or planner is not None:
        raise NotImplementedError("load: storage_reader and planner are not supported; give checkpoint_id")
    reader = _D.CheckpointReader(directory)
    saved = reader.replicated()
    missing = _missing(state_dict, saved, "")
    if missing:
        raise KeyError(f"load: the checkpoint in '{directory}' has no {', '.join(repr(m) for m in missing)}")
    _fill(state_dict, saved, reader, "")


def _missing(target: Any, saved: Any, path: str) -> List[str]:
    if isinstance(target, dict):
        if not isinstance(saved, dict):
            return [path] if path else []
        out = []
        for k, v in target.items():
            child = f"{path}/{k}" if path else str(k)
            out += _missing(v, saved[k], child) if k in saved else [child]
        return out
    return []


_async_lock = threading.Lock()
_async_group = None
_async_pool: Optional[concurrent.futures.ThreadPoolExecutor] = None


def _copied(tree: Any) -> Any:
    if isinstance(tree, Tensor):
        return tree.detach().clone()
    if isinstance(tree, Shard):
        return Shard(tree.local.detach().clone(), list(tree.global_shape), list(tree.offsets), tree.unflattened)
    if isinstance(tree, dict):
        return {k: _copied(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        items = [_copied(v) for v in tree]
        return items if isinstance(tree, list) else tuple(items)
    return tree


def async_save(state_dict: Dict[str, Any], *, checkpoint_id: Any = None, storage_writer: Any = None,
               planner: Any = None, process_group: Any = None) -> concurrent.futures.Future:
    """save() in the background: returns once the state is copied (training may change it from then
    on) with a Future whose result() waits for the commit and raises its error. Every rank calls it,
    in the same order; the writes run one at a time, on a process group of their own (made at the
    first call with new_group, as two threads' collectives on one group would interleave)."""
    global _async_group, _async_pool
    directory = _checkpoint_dir(checkpoint_id, "async_save")
    from .. import is_initialized, new_group
    with _async_lock:
        if _async_pool is None:
            _async_pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="ember-dcp")
        if process_group is None and is_initialized() and _async_group is None:
            _async_group = new_group()
    group = process_group or (_async_group if is_initialized() else _group(None))
    state = _copied(state_dict)
    return _async_pool.submit(save, state, checkpoint_id=directory, process_group=group)
