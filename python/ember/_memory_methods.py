"""Tensor.pin_memory / is_pinned / share_memory_ / is_shared, as torch's on a machine without a GPU.

pin_memory() raises there (page-locked memory needs the CUDA driver): Ember raises the RuntimeError a
CUDA allocation gives ("no CUDA device: ..."). With a CUDA device it returns the tensor as it is:
Ember has no page-locked allocator, and copies to the device work from ordinary memory (is_pinned()
stays False). A CUDA tensor cannot be pinned (RuntimeError), as in torch.

share_memory_() marks the tensor shared and returns it; is_shared() then reports True (CUDA tensors
always are). It does not move the storage: in Ember it matters only for DataLoader's thread workers
(worker_type="thread"), which live in this process and so already see, and write into, the very same
memory. Process workers get a copy (fork: copy-on-write pages; spawn: pickled), as torch's workers do
for tensors that were not shared.
"""
from __future__ import annotations

from . import _C
from ._C import Tensor


def _cuda_available() -> bool:
    return _C._cuda_device_count() > 0


def is_pinned(self, device=None) -> bool:
    """False: Ember never allocates page-locked memory."""
    return False


def pin_memory(self, device=None) -> Tensor:
    """torch.Tensor.pin_memory: see the module docstring (raises without a CUDA device)."""
    if self.device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.device.type}' tensor of {self.dtype}: only dense CPU tensors can be "
                           "pinned")
    if not _cuda_available():
        _C.empty(0, device=_C.device("cuda"))  # raises the error a CUDA allocation gives without a device
    return self


def share_memory_(self) -> Tensor:
    """Marks the tensor shared (see the module docstring) and returns it."""
    self._ember_shared = True
    return self


def is_shared(self) -> bool:
    """True after share_memory_() and for CUDA tensors, as in torch."""
    return self.device.type == "cuda" or bool(self.__dict__.get("_ember_shared", False))


def install() -> None:
    for name, f in (("is_pinned", is_pinned), ("pin_memory", pin_memory), ("share_memory_", share_memory_),
                    ("is_shared", is_shared)):
        if not hasattr(Tensor, name):  # a C++ method of the same name is kept
            setattr(Tensor, name, f)


install()
