"""ember.amp: autocast and GradScaler with PyTorch's signatures, for float32 training.

Mixed precision is not implemented yet. What scripts write when it is off works as in PyTorch:
`autocast(..., enabled=False)` and autocast to float32 change nothing, `GradScaler(enabled=False)`
passes the loss and the optimizer step through, and a scaler asked for without a GPU warns and
turns itself off, as PyTorch's does without CUDA. autocast that asks for float16 or bfloat16
compute raises NotImplementedError rather than train at a precision the script did not get.
"""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Optional

from . import _C

__all__ = ["autocast", "GradScaler", "is_autocast_available"]


def is_autocast_available(device_type: str) -> bool:
    """False: no autocast in this build."""
    return False


class autocast:
    """`with ember.autocast(device_type="cpu", dtype=ember.bfloat16, enabled=use_amp):` — see the
    module docstring. Also a decorator."""

    def __init__(self, device_type: str = "cuda", dtype: Optional[Any] = None, enabled: bool = True,
                 cache_enabled: Optional[bool] = None) -> None:
        self.device_type, self.fast_dtype, self.enabled = device_type, dtype, bool(enabled)
        if not self.enabled:
            return
        if device_type != "cpu":
            warnings.warn(f"autocast: device_type {device_type!r} is not available in this build of "
                          "Ember; autocast is disabled")
            self.enabled = False
        elif dtype is None or dtype in (_C.float16, _C.bfloat16):
            raise NotImplementedError(
                "autocast: mixed precision (float16/bfloat16 compute) is not implemented in Ember yet; "
                "pass enabled=False, or dtype=ember.float32, to train in float32")
        elif dtype not in (_C.float32,):
            raise ValueError(f"autocast: dtype must be float16, bfloat16 or float32, got {dtype}")
        else:
            self.enabled = False  # float32 compute: nothing to cast

    def __enter__(self) -> "autocast":
        return self

    def __exit__(self, *exc) -> None:
        return None

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


class GradScaler:
    """PyTorch's loss scaler, always disabled here: scale() returns its argument, step(optimizer)
    calls optimizer.step(), update() and unscale_() do nothing, state_dict() is {} (as PyTorch's
    disabled scaler), get_scale() is 1.0."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        if enabled:
            warnings.warn("GradScaler is enabled, but this build of Ember has no CUDA and no mixed "
                          "precision; disabling it")
        self._enabled = False

    def is_enabled(self) -> bool:
        return self._enabled

    def scale(self, outputs: Any) -> Any:
        return outputs

    def unscale_(self, optimizer: Any) -> None:
        return None

    def step(self, optimizer: Any, *args, **kwargs) -> Any:
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: Any = None) -> None:
        return None

    def get_scale(self) -> float:
        return 1.0

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        return None
