"""ember.distributed: what PyTorch scripts probe before they set up distributed training.

    if ember.distributed.is_available() and ember.distributed.is_initialized(): ...   # False here

This build has no process groups yet: is_available() and is_initialized() are False, the calls
that need a group raise as torch.distributed's do before init_process_group (a ValueError), and
init_process_group itself says that the backend is missing.
"""
from __future__ import annotations

import enum
from typing import Any, NoReturn

__all__ = ["is_available", "is_initialized", "is_torchelastic_launched", "init_process_group",
           "destroy_process_group", "get_rank", "get_world_size", "barrier", "all_reduce", "broadcast",
           "all_gather", "reduce", "ReduceOp", "GroupMember"]


class ReduceOp(enum.Enum):
    """torch.distributed.ReduceOp's names."""
    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    AVG = "avg"


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = -100


def is_available() -> bool:
    """False: this build of Ember has no distributed backend."""
    return False


def is_initialized() -> bool:
    """False: no process group can be initialized in this build."""
    return False


def is_torchelastic_launched() -> bool:
    return False


def _no_group(what: str) -> NoReturn:
    raise ValueError(f"ember.distributed.{what}: Default process group has not been initialized, please make "
                     "sure to call init_process_group (this build of Ember has no distributed backend)")


def init_process_group(backend: Any = None, *args: Any, **kwargs: Any) -> NoReturn:
    raise RuntimeError(f"ember.distributed.init_process_group: this build of Ember has no distributed backend "
                       f"(asked for {backend!r}); ember.distributed.is_available() is False")


def destroy_process_group(group: Any = None) -> None:
    _no_group("destroy_process_group")


def get_rank(group: Any = None) -> int:
    _no_group("get_rank")


def get_world_size(group: Any = None) -> int:
    _no_group("get_world_size")


def barrier(*args: Any, **kwargs: Any) -> None:
    _no_group("barrier")


def all_reduce(tensor: Any, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False) -> None:
    _no_group("all_reduce")


def reduce(tensor: Any, dst: int, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False) -> None:
    _no_group("reduce")


def broadcast(tensor: Any, src: int, group: Any = None, async_op: bool = False) -> None:
    _no_group("broadcast")


def all_gather(tensor_list: Any, tensor: Any, group: Any = None, async_op: bool = False) -> None:
    _no_group("all_gather")
