"""DataLoader(pin_memory=True) as torch's without an accelerator: each new iterator warns that
pinned memory won't be used (and that pin_memory_device is deprecated when one is named); batches are
unchanged. Ember has no page-locked memory, so with a CUDA device batches are unchanged too."""
from __future__ import annotations

import warnings

from ... import _C


def warn_pin_memory(loader) -> None:
    if not loader.pin_memory:
        return
    if getattr(loader, "pin_memory_device", ""):
        warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                      f"ignore pin_memory_device='{loader.pin_memory_device}'.", stacklevel=3)
    if _C._cuda_device_count() == 0:
        warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                      "memory won't be used.", stacklevel=3)
