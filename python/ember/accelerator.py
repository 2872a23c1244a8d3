"""ember.accelerator: PyTorch's device-neutral accelerator queries; this build has none."""
from __future__ import annotations

__all__ = ["is_available", "device_count", "current_accelerator"]


def is_available() -> bool:
    """False: no accelerator backend in this build."""
    return False


def device_count() -> int:
    """0."""
    return 0


def current_accelerator(check_available: bool = False) -> None:
    """None: no accelerator."""
    return None
