"""ember.cpu.amp: torch.cpu.amp's spellings, autocast with device "cpu" (ember.amp.autocast)."""
from __future__ import annotations

from typing import Any

from .. import _C
from .. import amp as _amp

__all__ = ["autocast", "GradScaler"]


class autocast(_amp.autocast):
    """torch.cpu.amp.autocast(enabled=True, dtype=bfloat16, cache_enabled=True): ember.amp.autocast("cpu", ...)."""

    def __init__(self, enabled: bool = True, dtype: Any = _C.bfloat16, cache_enabled: bool = True) -> None:
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """torch.cpu.amp.GradScaler(...): ember.amp.GradScaler("cpu", ...)."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
