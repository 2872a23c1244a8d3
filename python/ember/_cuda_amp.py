"""ember.cuda.amp: torch.cuda.amp's deprecated spellings, autocast and GradScaler with device "cuda",
over ember.amp's (which explain what they do in a build without CUDA or mixed precision)."""
from __future__ import annotations

from typing import Any

from . import _C
from . import amp as _amp


class autocast(_amp.autocast):
    """torch.cuda.amp.autocast(enabled=True, dtype=float16, cache_enabled=True): ember.amp.autocast("cuda", ...)."""

    def __init__(self, enabled: bool = True, dtype: Any = _C.float16, cache_enabled: bool = True) -> None:
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """torch.cuda.amp.GradScaler(init_scale=2**16, ...): ember.amp.GradScaler("cuda", ...)."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


__all__ = ["autocast", "GradScaler"]
