"""ember.cuda: PyTorch's torch.cuda calls, answered by Ember's CUDA backend (cuda/ in the sources).

    device = "cuda" if ember.cuda.is_available() else "cpu"
    model.to(device); x = x.to(device)

Without a device (or in a build without the backend) the queries answer (is_available() is False,
device_count() is 0), seeding is accepted, and anything that needs a device raises a RuntimeError
starting "no CUDA device: " that says why. Every device draws random numbers from Ember's one
Philox generator (ember.manual_seed), so a dropout mask is the same on the CPU and on a GPU; the
seeding calls here seed that generator when a GPU is present.
"""
from __future__ import annotations

from typing import Any

from . import _C

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "seed", "seed_all",
           "synchronize", "current_device", "get_device_name", "set_device", "empty_cache",
           "is_bf16_supported", "memory_allocated", "memory_reserved"]


def _index(device: Any) -> int:
    """The index of `device` (None, an int, "cuda", "cuda:1" or an ember.device); -1 for None."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    d = device if isinstance(device, _C.device) else _C.device(str(device))
    if d.type != "cuda":
        raise ValueError(f"expected a CUDA device, got {d}")
    return d.index or 0


def is_available() -> bool:
    """True when this build has the CUDA backend and the machine a CUDA device."""
    return _C._cuda_device_count() > 0


def device_count() -> int:
    """The CUDA devices this process can use (0 without one)."""
    return _C._cuda_device_count()


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether a CUDA device is there to compute bfloat16 on (Ember computes it in float32 and rounds
    once per op on every device, so any device that runs Ember supports it)."""
    return is_available()


def manual_seed(seed: int) -> None:
    """Seeds Ember's generator, which every device draws from, when a GPU is present; accepted and
    ignored without one, as PyTorch does."""
    if is_available():
        _C.manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """As manual_seed: one generator serves every device."""
    manual_seed(seed)


def seed() -> None:
    """Accepted and ignored (ember.seed() reseeds the one generator)."""


def seed_all() -> None:
    """Accepted and ignored (ember.seed() reseeds the one generator)."""


def empty_cache() -> None:
    """Returns the CUDA allocator's cached free blocks to the driver (nothing to do without a GPU)."""
    _C._cuda_empty_cache()


def synchronize(device: Any = None) -> None:
    """Waits for every kernel queued on `device` (every device when None)."""
    _C._cuda_synchronize(_index(device))


def current_device() -> int:
    """0: Ember puts each tensor on the device it names; "cuda" means cuda:0."""
    _C._check_device(_C.device("cuda:0"), "ember.cuda.current_device")
    return 0


def set_device(device: Any) -> None:
    """Checks that the device exists; tensors still go where their device= says ("cuda" is cuda:0)."""
    i = _index(device)
    _C._check_device(_C.device(f"cuda:{max(i, 0)}"), "ember.cuda.set_device")


def get_device_name(device: Any = None) -> str:
    return _C._cuda_get_device_name(max(_index(device), 0))


def memory_allocated(device: Any = None) -> int:
    """Bytes held by live tensors on the device."""
    return _C._cuda_memory_allocated(max(_index(device), 0))


def memory_reserved(device: Any = None) -> int:
    """Bytes the caching allocator holds on the device (live and cached)."""
    return _C._cuda_memory_reserved(max(_index(device), 0))


# ember.cuda.amp (torch.cuda.amp's autocast and GradScaler): a module of its own, importable by its dotted name.
import sys as _sys  # noqa: E402
from . import _cuda_amp as amp  # noqa: E402
_sys.modules[__name__ + ".amp"] = amp

# ember.cuda.random and ember.cuda.memory: the submodules PyTorch scripts import by name
# (from torch.cuda.random import manual_seed_all), each holding the functions above that it holds in
# PyTorch.
import types as _types  # noqa: E402


def _submodule(name: str, doc: str, names: list) -> _types.ModuleType:
    module = _types.ModuleType(f"{__name__}.{name}", doc)
    for n in names:
        setattr(module, n, globals()[n])
    module.__all__ = names
    _sys.modules[module.__name__] = module
    return module


random = _submodule("random", "torch.cuda.random: seeding the CUDA generators.",
                    ["manual_seed", "manual_seed_all", "seed", "seed_all"])
memory = _submodule("memory", "torch.cuda.memory: the caching allocator's figures.",
                    ["empty_cache", "memory_allocated", "memory_reserved"])
