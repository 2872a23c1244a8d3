"""use_deterministic_algorithms and its queries, as torch's. The flag is recorded for scripts that set
and read it; it changes nothing because every Ember op is already deterministic on the CPU: no
atomics, reductions in a fixed order whatever the thread count, and random ops only through seeded
generators. A build with CUDA kernels would have to consult it."""
from __future__ import annotations

_state = {"enabled": False, "warn_only": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Records whether deterministic algorithms are asked for (Ember's CPU ops always are)."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _state["enabled"], _state["warn_only"] = mode, warn_only and mode


def are_deterministic_algorithms_enabled() -> bool:
    """The mode last given to use_deterministic_algorithms (False at start)."""
    return _state["enabled"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """True when use_deterministic_algorithms(True, warn_only=True) was the last call."""
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """0/"default", 1/"warn", 2/"error": use_deterministic_algorithms(False), (True, warn_only=True),
    (True), as torch."""
    modes = {"default": 0, "warn": 1, "error": 2}
    level = modes.get(debug_mode, debug_mode) if isinstance(debug_mode, str) else debug_mode
    if level not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, 0, 1, 2, "
                           f"but got {debug_mode}")
    use_deterministic_algorithms(level > 0, warn_only=level == 1)


def get_deterministic_debug_mode() -> int:
    """0, 1 or 2 (see set_deterministic_debug_mode)."""
    return 0 if not _state["enabled"] else 1 if _state["warn_only"] else 2


__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode"]
