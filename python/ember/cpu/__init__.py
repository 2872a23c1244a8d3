"""ember.cpu: torch.cpu's device queries for the CPU, and ember.cpu.amp (torch.cpu.amp's autocast)."""
from __future__ import annotations

from typing import Any

from .. import _C
from . import amp

__all__ = ["amp", "current_device", "device_count", "is_available", "synchronize", "memory_allocated",
           "max_memory_allocated", "reset_peak_memory_stats"]


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: CPU ops finish before they return."""


def memory_allocated(device: Any = None) -> int:
    """Bytes held by this process's live CPU tensors (memory they borrow, from NumPy or a mapped
    file, not counted), as torch.cuda.memory_allocated counts a GPU's; Ember's own, not PyTorch's."""
    return _C._cpu_memory_allocated()


def max_memory_allocated(device: Any = None) -> int:
    """The most memory_allocated() held since the start or the last reset_peak_memory_stats()."""
    return _C._cpu_max_memory_allocated()


def reset_peak_memory_stats(device: Any = None) -> None:
    _C._cpu_reset_peak_memory_stats()
