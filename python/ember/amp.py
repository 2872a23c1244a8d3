"""ember.amp: autocast and GradScaler with PyTorch's signatures.

autocast is PyTorch's mixed precision: inside `with ember.autocast("cpu", dtype=ember.bfloat16):` the
ops on PyTorch's lists cast their inputs (C++ ops/autocast_policy.cpp holds the lists, the same for
the ops written in Python): linear, matmul, convolution, attention and the RNN layers compute in
16 bits; losses and linear algebra in float32; the rest in their inputs' dtypes. The casts are
recorded, so float32 parameters get float32 gradients; run backward outside the region.
GradScaler is PyTorch's dynamic loss scaling (C++ optim::GradScaler): on "cpu", and on "cuda" where
a CUDA device is there (without one it warns and turns itself off, as PyTorch's does).
"""
from __future__ import annotations

import functools
from collections import abc
import warnings
from typing import Any, Callable, Optional

from . import _C

__all__ = ["autocast", "GradScaler", "is_autocast_available", "custom_fwd", "custom_bwd"]

_DEVICE_TYPES = ("cpu", "cuda")


# ---- the per-thread state, with torch's top-level names (re-exported by ember/__init__.py)

def is_autocast_enabled(device_type: Optional[str] = None) -> bool:
    """Whether autocast is on for device_type on this thread ("cuda" when not given, as in PyTorch)."""
    return bool(_C._autocast_state(device_type or "cuda")[0])


def set_autocast_enabled(device_type: Any, enabled: Optional[bool] = None) -> None:
    """set_autocast_enabled(device_type, enabled), or PyTorch's older set_autocast_enabled(enabled) for CUDA."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _, dtype, cache = _C._autocast_state(device_type)
    _C._set_autocast_state(device_type, bool(enabled), dtype, cache)


def get_autocast_dtype(device_type: str) -> Any:
    """The 16-bit dtype autocast on device_type casts to (bfloat16 on "cpu", float16 on "cuda" by default)."""
    return _C._autocast_state(device_type)[1]


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    enabled, _, cache = _C._autocast_state(device_type)
    _C._set_autocast_state(device_type, enabled, dtype, cache)


def is_autocast_cache_enabled() -> bool:
    return bool(_C._autocast_state("cpu")[2])


def set_autocast_cache_enabled(enabled: bool) -> None:
    for device_type in _DEVICE_TYPES:
        on, dtype, _ = _C._autocast_state(device_type)
        _C._set_autocast_state(device_type, on, dtype, bool(enabled))


def clear_autocast_cache() -> None:
    _C._clear_autocast_cache()


def autocast_increment_nesting() -> int:
    return _C._autocast_increment_nesting()


def autocast_decrement_nesting() -> int:
    return _C._autocast_decrement_nesting()


def is_autocast_cpu_enabled() -> bool:
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype() -> Any:
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype() -> Any:
    return get_autocast_dtype("cuda")


def is_autocast_available(device_type: str) -> bool:
    """True for "cpu" and "cuda", the device types Ember's autocast has lists for."""
    return device_type in _DEVICE_TYPES


class autocast:
    """`with ember.autocast(device_type="cpu", dtype=ember.bfloat16, enabled=use_amp):`, or as a
    decorator. dtype defaults to the device type's (bfloat16 on "cpu", float16 on "cuda");
    enabled=False makes a region without autocast inside one with it; cache_enabled casts each
    float32 parameter once per outermost region. As PyTorch's: "cuda" without a CUDA device, and a
    CPU dtype other than float16 or bfloat16, warn and disable autocast."""

    def __init__(self, device_type: str, dtype: Optional[Any] = None, enabled: bool = True,
                 cache_enabled: Optional[bool] = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        state = _C._autocast_state(device_type)
        self.fast_dtype = state[1] if dtype is None else dtype
        self._cache_enabled = state[2] if cache_enabled is None else bool(cache_enabled)
        enabled = bool(enabled)
        if enabled and device_type == "cuda" and _C._cuda_device_count() == 0:
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
            enabled = False
        if enabled and device_type == "cpu" and self.fast_dtype not in (_C.float16, _C.bfloat16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of ember.bfloat16, ember.float16 currently.")
            enabled = False
        if enabled and device_type == "cuda" and self.fast_dtype not in (_C.float16, _C.bfloat16):
            raise RuntimeError("In CUDA autocast, but the target dtype is not supported; autocast on CUDA "
                               f"computes in ember.float16 or ember.bfloat16, got {self.fast_dtype}")
        self._enabled = enabled

    def __enter__(self) -> "autocast":
        self._prev = _C._autocast_state(self.device)
        _C._set_autocast_state(self.device, self._enabled, self.fast_dtype, self._cache_enabled)
        _C._autocast_increment_nesting()
        return self

    def __exit__(self, *exc: Any) -> None:
        if _C._autocast_decrement_nesting() == 0:
            _C._clear_autocast_cache()
        _C._set_autocast_state(self.device, *self._prev)
        return None

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


def _cast_floats(value: Any, dtype: Any) -> Any:
    if isinstance(value, _C.Tensor):
        return value.to(dtype) if value.is_floating_point() and value.dtype != _C.float64 else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_floats(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast_floats(v, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd: Optional[Callable] = None, *, device_type: str = "cuda",
               cast_inputs: Optional[Any] = None) -> Callable:
    """For a custom autograd Function's forward (PyTorch's torch.amp.custom_fwd): with cast_inputs,
    forward runs with autocast off and its floating inputs cast to that dtype when autocast was on;
    backward (under custom_bwd) then runs with the autocast state forward had."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        state = _C._autocast_state(device_type)
        ctx._fwd_used_autocast, ctx._dtype = state[0], state[1]
        if cast_inputs is None or not state[0]:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast_floats(args, cast_inputs), **_cast_floats(kwargs, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd: Optional[Callable] = None, *, device_type: str = "cuda") -> Callable:
    """For a custom autograd Function's backward: runs it under the autocast state of its forward."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type=device_type, enabled=getattr(ctx, "_fwd_used_autocast", False),
                      dtype=getattr(ctx, "_dtype", None)):
            return bwd(*args, **kwargs)
    return decorate_bwd


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
