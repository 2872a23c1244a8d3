"""Auto-wrap policies (torch.distributed.fsdp.wrap's): which modules of a model become FSDP units.
A policy is asked bottom-up, with the number of parameter elements under the module that no unit
below it holds already."""
from __future__ import annotations

from typing import Any, Iterable, Set, Type

__all__ = ["ModuleWrapPolicy", "size_based_auto_wrap_policy", "transformer_auto_wrap_policy"]


class ModuleWrapPolicy:
    """Every module of one of these classes becomes a unit (a transformer's block, say)."""

    def __init__(self, module_classes: Iterable[Type[Any]]) -> None:
        self._module_classes = tuple(set(module_classes))

    def __call__(self, module: Any, recurse: bool, nonwrapped_numel: int) -> bool:
        return recurse or isinstance(module, self._module_classes)


def size_based_auto_wrap_policy(module: Any, recurse: bool, nonwrapped_numel: int,
                                min_num_params: int = int(1e8), force_leaf_modules: Set[Type[Any]] = None,
                                exclude_wrap_modules: Set[Type[Any]] = None) -> bool:
    """A module becomes a unit once min_num_params elements or more would be left to it (use
    functools.partial to set min_num_params)."""
    if recurse:
        return True
    exclude = tuple(exclude_wrap_modules or ())
    return nonwrapped_numel >= min_num_params and not (exclude and isinstance(module, exclude))


def transformer_auto_wrap_policy(module: Any, recurse: bool, nonwrapped_numel: int,
                                 transformer_layer_cls: Set[Type[Any]] = frozenset()) -> bool:
    """Every module of a class in transformer_layer_cls becomes a unit (functools.partial sets it)."""
    return recurse or isinstance(module, tuple(transformer_layer_cls))
