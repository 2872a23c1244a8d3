"""The function transforms (grad, vjp, jvp, jacrev, jacfwd) inside a vmap. Their inputs and
outputs are then batched tensors, whose samples are independent: the transform runs on the
physical tensors, every sample at once, with the vmaps' batch dims first ([B_1, ..., B_L, *sample]),
so its products are the per-sample ones. An input the same for every sample is expanded first, so
that each sample differentiates by its own copy (a per-sample gradient of shared parameters)."""
from __future__ import annotations

from typing import Any, List

from ._batched import BatchedTensor, _Level, active_levels
from ._batching import expanded

__all__ = ["active_levels", "to_physical", "from_physical"]


def to_physical(x: Any, levels: List[_Level]) -> Any:
    """x (batched at some of the running levels, or at none) as a tensor [B_1, ..., B_L, *sample]."""
    if not levels:
        return x
    return to_physical(expanded(x, levels[-1].level), levels[:-1])


def from_physical(p: Any, levels: List[_Level]) -> Any:
    """The inverse of to_physical: a tensor [B_1, ..., B_L, *sample] as batched at every level."""
    for lv in levels:
        p = BatchedTensor(p, lv.level)
    return p
