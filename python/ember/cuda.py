"""ember.cuda: what PyTorch scripts ask about CUDA, answered for this CPU-only build.

    device = "cuda" if ember.cuda.is_available() else "cpu"   # "cpu" here

The queries answer (no devices); seeding is accepted and does nothing, as in PyTorch without
CUDA; anything that needs a device raises a RuntimeError that says so.
"""
from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "seed", "seed_all",
           "synchronize", "current_device", "get_device_name", "set_device", "empty_cache",
           "is_bf16_supported"]


def _no_cuda(what: str) -> NoReturn:
    raise RuntimeError(f"ember.cuda.{what}: this build of Ember has no CUDA backend "
                       "(ember.cuda.is_available() is False); run on the CPU")


def is_available() -> bool:
    """False: this build has no CUDA backend."""
    return False


def device_count() -> int:
    """0."""
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: no CUDA device."""
    return False


def manual_seed(seed: int) -> None:
    """Accepted and ignored (no CUDA generator), as PyTorch does without CUDA."""


def manual_seed_all(seed: int) -> None:
    """Accepted and ignored (no CUDA generator), as PyTorch does without CUDA."""


def seed() -> None:
    """Accepted and ignored."""


def seed_all() -> None:
    """Accepted and ignored."""


def empty_cache() -> None:
    """Nothing to free."""


def synchronize(device: Any = None) -> NoReturn:
    _no_cuda("synchronize")


def current_device() -> NoReturn:
    _no_cuda("current_device")


def set_device(device: Any) -> NoReturn:
    _no_cuda("set_device")


def get_device_name(device: Any = None) -> NoReturn:
    _no_cuda("get_device_name")
