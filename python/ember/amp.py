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
from typing import Any, Callable, Optional

from . import _C
from ._C import (  # noqa: F401  (re-exported; python/src/autocast.cpp)
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_available,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from ._C.optim import GradScaler  # noqa: F401  (python/src/grad_scaler.cpp)

__all__ = ["autocast", "GradScaler", "is_autocast_available", "custom_fwd", "custom_bwd"]


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
