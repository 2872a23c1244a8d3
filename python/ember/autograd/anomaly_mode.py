"""Anomaly detection's switches, as torch.autograd's: set_detect_anomaly (a call or a context
manager), detect_anomaly (a context manager and decorator) and is_anomaly_enabled.

NB: Ember records the flag only. Its engine is C++ and keeps no forward traceback per node, and
checking every node's outputs for NaN would need a hook in the engine; scripts that turn anomaly
detection on to debug run unchanged, without its extra checks."""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

_state = {"enabled": False, "check_nan": True}


def is_anomaly_enabled() -> bool:
    """True inside detect_anomaly() or after set_detect_anomaly(True)."""
    return _state["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    return _state["check_nan"]


class set_detect_anomaly:
    """set_detect_anomaly(mode, check_nan=True): sets the flag now; as a context manager, restores the
    previous value on exit. Only records the flag (see the module docstring)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (_state["enabled"], _state["check_nan"])
        _state["enabled"], _state["check_nan"] = bool(mode), bool(check_nan)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        _state["enabled"], _state["check_nan"] = self.prev


class detect_anomaly:
    """with detect_anomaly(): ... turns the flag on inside the block (and warns, as torch does, that
    it is a debugging mode). Also a decorator. Only records the flag (see the module docstring)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        self.prev = (_state["enabled"], _state["check_nan"])
        _state["enabled"], _state["check_nan"] = True, self.check_nan

    def __exit__(self, *exc: Any) -> None:
        _state["enabled"], _state["check_nan"] = self.prev

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)
        return wrapper


__all__ = ["set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]
