"""ember.amp: autocast and GradScaler with PyTorch's signatures.

GradScaler is PyTorch's dynamic loss scaling (C++ optim::GradScaler): on "cpu", and on "cuda" where
a CUDA device is there (without one it warns and turns itself off, as PyTorch's does).
float16 and bfloat16 compute (tensors of those dtypes, `model.to(ember.bfloat16)`), but autocast does
not yet: `autocast(..., enabled=False)` and autocast to float32 change nothing, and autocast that asks
for float16 or bfloat16 raises NotImplementedError rather than train at a precision the script did not get.
"""
from __future__ import annotations

import functools
from collections import abc
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
                "autocast: mixed precision (its per-op casts to float16/bfloat16) is not implemented in Ember "
                "yet; pass enabled=False, or dtype=ember.float32, to train in float32, or convert the model "
                "and its inputs with .to(ember.bfloat16) to train in bfloat16")
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
    """`scaler = ember.amp.GradScaler("cpu")`: dynamic loss scaling (C++ optim::GradScaler), with
    PyTorch's API, errors and state_dict keys. `scaler.scale(loss).backward()`, optionally
    `scaler.unscale_(opt)` before clipping, `scaler.step(opt)` (skipped where a gradient is inf or NaN),
    `scaler.update()`. Works with any optimizer that has param_groups. device "cuda" without a CUDA
    device warns and disables the scaler, as PyTorch's does; disabled, it passes everything through."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = str(device)
        if enabled and self._device.startswith("cuda") and _C._cuda_device_count() == 0:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            enabled = False
        self._c = _C.optim.GradScaler(float(init_scale), float(growth_factor), float(backoff_factor),
                                      int(growth_interval), bool(enabled))

    def is_enabled(self) -> bool:
        return self._c.is_enabled()

    def scale(self, outputs: Any) -> Any:
        """outputs (a tensor, or lists, tuples and iterables of tensors) times the scale."""
        if not self.is_enabled():
            return outputs
        if isinstance(outputs, _C.Tensor):
            return self._c.scale(outputs)

        def apply(value: Any) -> Any:
            if isinstance(value, _C.Tensor):
                return self._c.scale(value)
            if isinstance(value, (list, tuple)):
                return type(value)(apply(v) for v in value)
            if isinstance(value, abc.Iterable):
                return map(apply, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def unscale_(self, optimizer: Any) -> None:
        """Divides optimizer's gradients by the scale in place (once per optimizer per update())."""
        if self.is_enabled():
            self._c.unscale_(id(optimizer), _gradients(optimizer))

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """optimizer.step(*args, **kwargs) unless its gradients held an inf or NaN (then None)."""
        if not self.is_enabled():
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        if self._c.begin_step(id(optimizer), _gradients(optimizer)):
            return optimizer.step(*args, **kwargs)
        return None

    def update(self, new_scale: Any = None) -> None:
        """Backs the scale off after an inf or NaN, else counts towards its growth; or sets new_scale."""
        if not self.is_enabled():
            return
        if new_scale is None:
            self._c.update()
            return
        if isinstance(new_scale, _C.Tensor):
            if new_scale.numel() != 1 or new_scale.requires_grad or not new_scale.is_floating_point():
                raise ValueError("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                                 "torch.FloatTensor with requires_grad=False.")
            new_scale = new_scale.item()
        self._c.update_to(float(new_scale))

    def get_scale(self) -> float:
        return self._c.get_scale()

    def get_growth_factor(self) -> float:
        return self._c.growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._c.growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        return self._c.backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._c.backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        return self._c.growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._c.growth_interval = int(new_interval)

    def _get_growth_tracker(self) -> int:
        return self._c.growth_tracker if self.is_enabled() else 0

    def state_dict(self) -> dict:
        """{"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}; {} disabled."""
        return self._c.state_dict()

    def load_state_dict(self, state_dict: dict) -> None:
        self._c.load_state_dict(dict(state_dict))

    def __getstate__(self) -> dict:
        state = self.state_dict()
        return {"device": self._device, "enabled": bool(state), "state": state}

    def __setstate__(self, state: dict) -> None:
        s = state["state"]
        self._device = state["device"]
        self._c = _C.optim.GradScaler(s.get("scale", 2.0 ** 16), s.get("growth_factor", 2.0),
                                      s.get("backoff_factor", 0.5), s.get("growth_interval", 2000),
                                      state["enabled"])
        if state["enabled"]:
            self._c.load_state_dict(s)


def _gradients(optimizer: Any) -> list:
    return [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
