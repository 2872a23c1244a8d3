"""ember.cpu: torch.cpu's device queries for the CPU, and ember.cpu.amp (torch.cpu.amp's autocast)."""
from __future__ import annotations

from typing import Any

from . import amp

__all__ = ["amp", "current_device", "device_count", "is_available", "synchronize"]


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: CPU ops finish before they return."""
